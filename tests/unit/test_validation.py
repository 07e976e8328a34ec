"""The input rules every surface applies, and the messages people see when one is broken."""

from __future__ import annotations

import pytest

from veracity.errors import InputError
from veracity.validation import MAX_SOURCE_CHARS, checked_text, input_problem, source_text_problem


@pytest.mark.parametrize(("text", "problem"), [
    (None, "text must be a string, got NoneType"),
    (" \n\t", "the text is empty"),
    ("x" * 11, "the text is 11 characters; the limit is 10 (split it, or raise max_text_chars)"),
    ("x" * 10, None),
])
def test_the_text_must_be_a_non_blank_string_within_the_limit(text: object, problem: str | None) -> None:
    assert input_problem(text, 10) == problem


def test_a_checked_text_has_no_unpaired_surrogates_and_a_bad_one_raises_the_reason() -> None:
    assert checked_text("caf\udce9 ok", 100) == "caf\ufffd ok"
    with pytest.raises(InputError, match="^the text is empty$"):
        checked_text("  ", 100)


def test_a_source_file_text_must_be_non_blank_and_within_the_limit() -> None:
    assert source_text_problem(" \n") == "empty (no text)"
    assert source_text_problem("x" * (MAX_SOURCE_CHARS + 1)) == (
        f"{MAX_SOURCE_CHARS + 1:,} characters of text; the limit is {MAX_SOURCE_CHARS:,}")
    assert source_text_problem("A policy.") is None
