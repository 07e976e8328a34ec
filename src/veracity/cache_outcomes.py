"""Hits and misses of the calls made inside a block, so the trace can say which answers came from the cache.

The cache's side of its protocol with the core: a cached call (`veracity.cache` is one cache) notes
what it did with `note`; a step that makes calls observes them with `observe_cache`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Literal

CacheOutcome = Literal["hit", "miss"]
"""What the cache did for one call: answered it, or let it through (and kept the answer)."""

_seen: ContextVar[list[CacheOutcome] | None] = ContextVar("veracity_cache_outcomes", default=None)


def note(outcome: CacheOutcome) -> None:
    """Record `outcome` for the innermost `observe_cache` block, if any.

    Tasks and threads started inside the block copy its context, so calls made there are seen too.
    """
    seen = _seen.get()
    if seen is not None:
        seen.append(outcome)


@contextmanager
def observe_cache() -> Iterator[list[CacheOutcome]]:
    """Collect the cache outcomes of the calls made inside the block (empty when nothing was cached)."""
    seen: list[CacheOutcome] = []
    token = _seen.set(seen)
    try:
        yield seen
    finally:
        _seen.reset(token)


def overall(seen: list[CacheOutcome]) -> CacheOutcome | None:
    """One outcome for a step: a hit only when every call in it was answered from the cache."""
    if not seen:
        return None
    return "hit" if all(outcome == "hit" for outcome in seen) else "miss"
