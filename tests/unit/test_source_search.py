"""Source mode is one concept: `source_search` decides what a source text means, and is the one place that
refuses a setting contradicting it; every surface asks it and words the refusal in its own terms."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import veracity
from veracity.context import Context
from veracity.errors import ConfigurationError, SourceConflictError
from veracity.source_mode import missing_source, own_source_settings, source_search, with_own_source

SOURCE = Path(veracity.__file__).parent


class Named:
    name = "notes"


@pytest.mark.parametrize(("search", "backend", "forced"), [
    ("web", None, "search 'web'"),
    ("kb", None, "search 'kb'"),
    ("auto", Named(), "the bound backend 'notes'"),
    (None, object(), "the bound backend 'custom'"),
])
def test_a_source_text_refuses_other_evidence(search: str | None, backend: object, forced: str) -> None:
    with pytest.raises(SourceConflictError) as refused:
        source_search(search, "A policy.", bound_backend=backend)
    assert str(refused.value) == (
        f"a source text was given, so the evidence is that source; {forced} cannot be combined with "
        "source_text (drop one)")
    assert isinstance(refused.value, ConfigurationError)


@pytest.mark.parametrize("search", [None, "auto", "source"])
def test_a_source_text_agrees_with_auto_and_source(search: str | None) -> None:
    assert source_search(search, "A policy.") == "source"
    assert source_search("web", None) is None  # no source text: the search is what it names


def test_a_surface_words_the_conflict_with_its_own_option_names() -> None:
    with pytest.raises(SourceConflictError) as refused:
        source_search("web", "A policy.")
    assert refused.value.worded("--search", "--source") == (
        "a source text was given, so the evidence is that source; --search web cannot be combined with "
        "--source (drop one)")


def test_search_source_needs_a_source_text_unless_a_backend_is_bound() -> None:
    assert missing_source("source", "  ") == (
        "search 'source' needs a non-empty source text (--source FILE, or source_text=...)")
    assert missing_source("source", None, bound_backend=Named()) is None
    assert missing_source("source", "A policy.") is None
    assert missing_source("kb", None) is None


def test_a_default_search_gives_way_to_a_checks_own_source_text() -> None:
    defaults = {"search": "kb", "max_revisions": 1}
    assert own_source_settings(defaults, {"source_text": "A policy."}) == {"max_revisions": 1,
                                                                           "source_text": "A policy."}
    assert own_source_settings(defaults, {"source_text": "A policy.", "search": "web"})["search"] == "web"
    assert own_source_settings(defaults, {"text_field": "x"})["search"] == "kb"
    context = with_own_source(Context(search="kb"), "A policy.", "policy")
    assert (context.search, context.source_text, context.source_title) == ("auto", "A policy.", "policy")


def raises_source_conflict(path: Path) -> list[int]:
    """The lines of `path` that raise `SourceConflictError` themselves."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Raise) and node.exc is not None
            and "SourceConflictError(" in ast.unparse(node.exc)]


def test_only_source_search_refuses_a_conflict() -> None:
    raising = {path.relative_to(SOURCE).as_posix(): lines for path in sorted(SOURCE.rglob("*.py"))
               if (lines := raises_source_conflict(path))}
    assert list(raising) == ["source_mode.py"], raising


def test_only_source_search_decides_that_a_source_text_means_search_source() -> None:
    setting = {path.relative_to(SOURCE).as_posix() for path in SOURCE.rglob("*.py")
               if 'search="source"' in path.read_text(encoding="utf-8")
               or '["search"] = "source"' in path.read_text(encoding="utf-8")}
    assert setting == set(), setting
