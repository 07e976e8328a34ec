"""Input validation, written once: the rules a check's input meets, whatever surface it comes through.

Each rule returns why the input cannot be used (a message for people), or None; the surface
raises its own kind of error with that message. The text is checked by `Checker.acheck`, which
the Python API, the CLI and the server all go through (`InputError`), and again by the graph's
`extract_claims` node for a direct `graph.invoke` (an ``input_failure`` on the report). A source
text agrees with the search only as 'auto' or 'source' (`SourceConflictError` from the checker,
a 422 from the server, a usage error from the CLI); a ``--source`` file's text is bounded here too.
"""

from __future__ import annotations

import re
from typing import get_args

from veracity.errors import InputError
from veracity.evidence.capabilities import SourceSearch

MAX_SOURCE_BYTES = 50_000_000
"""Largest --source file read (a PDF of a few hundred pages); larger is refused before reading."""
MAX_SOURCE_CHARS = 2_000_000
"""Most characters of source text kept for a check."""
SOURCE_SEARCHES: tuple[SourceSearch, ...] = get_args(SourceSearch)
"""The `search` settings that agree with a source text: with either, the evidence is that source."""

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


def overrides_source(search: str | None) -> bool:
    """Whether `search` names evidence other than a source text ('web', 'kb'); None names none."""
    return search is not None and search not in SOURCE_SEARCHES


def source_conflict_message(forced: str, source: str = "source_text") -> str:
    """The message for a source text given with evidence that contradicts it (`forced`, e.g. "search 'web'")."""
    return (f"a source text was given, so the evidence is that source; {forced} cannot be combined with "
            f"{source} (drop one)")


def source_conflict(search: str | None, source_text: str | None, *, bound_backend: object = None) -> str | None:
    """Why these evidence settings contradict the source text, or None when they agree.

    A source text is always the evidence of the check that carries it: naming another search
    ('web', 'kb') or binding a backend alongside it is a usage error, never a silent switch.
    """
    if source_text is None:
        return None
    if bound_backend is not None:
        forced = f"the bound backend {getattr(bound_backend, 'name', 'custom')!r}"
    elif overrides_source(search):
        forced = f"search {search!r}"
    else:
        return None
    return source_conflict_message(forced)


def missing_source(search: str, source_text: str | None, *, bound_backend: object = None) -> str | None:
    """Why search 'source' cannot run: it needs a non-empty source text (unless a backend is bound), or None."""
    if search == "source" and bound_backend is None and not (source_text or "").strip():
        return "search 'source' needs a non-empty source text (--source FILE, or source_text=...)"
    return None
