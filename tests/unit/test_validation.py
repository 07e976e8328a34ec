"""The input rules every surface applies, and the messages people see when one is broken."""

from __future__ import annotations

import pytest

from veracity.errors import InputError
from veracity.validation import (
    MAX_SOURCE_CHARS,
    checked_text,
    input_problem,
    missing_source,
    source_conflict,
    source_conflict_message,
    source_text_problem,
)


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


class Named:
    name = "notes"


@pytest.mark.parametrize(("search", "backend", "forced"), [
    ("web", None, "search 'web'"),
    ("kb", None, "search 'kb'"),
    ("auto", Named(), "the bound backend 'notes'"),
    (None, object(), "the bound backend 'custom'"),
])
def test_a_source_text_refuses_other_evidence(search: str | None, backend: object, forced: str) -> None:
    assert source_conflict(search, "A policy.", bound_backend=backend) == (
        f"a source text was given, so the evidence is that source; {forced} cannot be combined with "
        "source_text (drop one)")


@pytest.mark.parametrize("search", [None, "auto", "source"])
def test_a_source_text_agrees_with_auto_and_source(search: str | None) -> None:
    assert source_conflict(search, "A policy.") is None
    assert source_conflict("web", None) is None


def test_the_cli_spells_the_conflict_with_its_own_flags() -> None:
    assert source_conflict_message("--search web", "--source") == (
        "a source text was given, so the evidence is that source; --search web cannot be combined with "
        "--source (drop one)")


def test_search_source_needs_a_source_text_unless_a_backend_is_bound() -> None:
    assert missing_source("source", "  ") == (
        "search 'source' needs a non-empty source text (--source FILE, or source_text=...)")
    assert missing_source("source", None, bound_backend=Named()) is None
    assert missing_source("source", "A policy.") is None
    assert missing_source("kb", None) is None
