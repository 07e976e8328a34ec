"""The interface every evidence backend implements."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from veracity.contracts import SearchHit


@runtime_checkable
class EvidenceBackend(Protocol):
    """Something that finds evidence for a claim."""

    name: str
    """Short name recorded on each evidence item, e.g. 'web' or 'kb'."""

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """Return up to `limit` hits for `query`, best first. Raise `ToolError` on failure."""
        ...
