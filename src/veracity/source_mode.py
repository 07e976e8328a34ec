"""Source mode: a source text is the only evidence of the check that carries it, decided once per run.

A check brings a source text as `Context.source_text` (`--source FILE` on the command line, a
request's ``source_text``), or binds a backend that declares it is one (`Capabilities.source_text`).
`source_search` decides what a source text means for the run's evidence, and it is the one place
that refuses a setting contradicting it: another search ('web', 'kb') or a bound backend alongside a
source text (`SourceConflictError`, which each surface words in its own terms). `resolve_mode`
asks it once per run and keeps the answer in `Mode.source`; the steps read that as the state's
``source_mode``. A checker's (or an evaluation's) default search gives way to a check's own source
text (`own_source_settings`, `with_own_source`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, get_args

from veracity.context import Context
from veracity.errors import SourceConflictError
from veracity.evidence.capabilities import SourceSearch

SOURCE = "source"
"""The search of a check whose evidence is its source text (and the name that evidence carries)."""
SOURCE_SEARCHES: tuple[SourceSearch, ...] = get_args(SourceSearch)
"""The `search` settings that agree with a source text: with either, the evidence is that source."""


def source_search(search: str | None, source_text: str | None, *, bound_backend: object = None) -> str | None:
    """'source' for a check with a source text, None for one without (its search is then what it names).

    Raises `SourceConflictError` when the settings contradict the source text: a search other than
    'auto' or 'source', or a bound backend, given with it. Never a silent switch to other evidence.
    """
    if source_text is None:
        return None
    if bound_backend is not None:
        raise SourceConflictError(f"the bound backend {getattr(bound_backend, 'name', 'custom')!r}")
    if search is not None and search not in SOURCE_SEARCHES:
        raise SourceConflictError(f"search {search!r}", search=search)
    return SOURCE


def missing_source(search: str, source_text: str | None, *, bound_backend: object = None) -> str | None:
    """Why search 'source' cannot run: it needs a non-empty source text (unless a backend is bound), or None."""
    if search == SOURCE and bound_backend is None and not (source_text or "").strip():
        return "search 'source' needs a non-empty source text (--source FILE, or source_text=...)"
    return None


def own_source_settings(defaults: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
    """A check's `settings` over its checker's `defaults`.

    A check that brings its own source text and names no search of its own leaves the default search
    out, so that its source is its evidence.
    """
    merged = {**defaults, **settings}
    if settings.get("source_text") is not None and settings.get("search") is None:
        merged.pop("search", None)
    return merged


def with_own_source(context: Context, source_text: str, title: str) -> Context:
    """`context` for a check against its own `source_text` (named `title`), whatever search `context` names."""
    return dataclasses.replace(context, source_text=source_text, source_title=title, search="auto")
