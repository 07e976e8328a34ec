"""Input validation, written once: the rules a check's input meets, whatever surface it comes through.

Each rule returns why the input cannot be used (a message for people), or None; the surface
raises its own kind of error with that message. The text is checked by `Checker.acheck`, which
the Python API, the CLI and the server all go through (`InputError`), and again by the graph's
`extract_claims` node for a direct `graph.invoke` (an ``input_failure`` on the report). A
``--source`` file's text is bounded here too; whether a source text agrees with the other evidence
settings is `veracity.source_mode`'s to say.
"""

from __future__ import annotations

import re

from veracity.errors import InputError

MAX_SOURCE_BYTES = 50_000_000
"""Largest --source file read (a PDF of a few hundred pages); larger is refused before reading."""
MAX_SOURCE_CHARS = 2_000_000
"""Most characters of source text kept for a check."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(text: str) -> str:
    """`text` with every unpaired surrogate replaced by U+FFFD, so the report can always be written as JSON.

    Python strings can hold them (from ``surrogateescape`` decoding, or built by hand); UTF-8 cannot.
    """
    return _SURROGATE.sub("\ufffd", text)


def input_problem(text: object, max_chars: int) -> str | None:
    """Return why `text` cannot be checked (not a string, blank, too long), or None."""
    if not isinstance(text, str):
        return f"text must be a string, got {type(text).__name__}"
    if not text.strip():
        return "the text is empty"
    if len(text) > max_chars:
        return (
            f"the text is {len(text):,} characters; the limit is {max_chars:,} "
            "(split it, or raise max_text_chars)"
        )
    return None


def checked_text(text: object, max_chars: int) -> str:
    """`text` ready to check (see `valid_unicode`); raises `InputError` with `input_problem`'s reason."""
    problem = input_problem(text, max_chars)
    if problem is not None or not isinstance(text, str):  # input_problem refuses anything not a string
        raise InputError(problem)
    return valid_unicode(text)


def source_text_problem(text: str) -> str | None:
    """Return why a source text read from a file cannot be the evidence (empty, too long), or None."""
    if not text.strip():
        return "empty (no text)"
    if len(text) > MAX_SOURCE_CHARS:
        return f"{len(text):,} characters of text; the limit is {MAX_SOURCE_CHARS:,}"
    return None
