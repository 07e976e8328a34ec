"""The interface every evidence backend implements.

Besides `name` and `search`, a backend declares what it is as its `capabilities`
(`veracity.evidence.capabilities.Capabilities`): whether its hits are web pages to fetch, whether a
counter search helps, whether it is the user's source text. The attribute is optional, so that
backends written before it keep working; one without it is read by its name (`declared`).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from veracity.contracts import SearchHit


@runtime_checkable
class EvidenceBackend(Protocol):
    """Something that finds evidence for a claim."""

    name: str
    """Short name recorded on each evidence item, e.g. 'web' or 'kb'. It names the backend; what the backend
    is, the steps after the search read from its `capabilities`."""

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """Return up to `limit` hits for `query`, best first. Raise `ToolError` on failure."""
        ...
