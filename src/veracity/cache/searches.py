"""Search results kept on disk for a while: a wrapper around an evidence backend."""

from __future__ import annotations

import asyncio

from veracity.cache.entries import SEARCH_ANSWER
from veracity.cache.store import SEARCH_NAMESPACE_PREFIX, CacheStore, digest
from veracity.cache_outcomes import note
from veracity.contracts import SearchHit
from veracity.evidence.base import EvidenceBackend


class CachedSearch:
    """Answers a search from the cache when the same backend was asked the same query for as many results.

    `identity` names what else decides the answer (e.g. the endpoint and search depth). Only
    answers are kept; a failed search is not, so it is tried again next time.
    """

    def __init__(self, backend: EvidenceBackend, store: CacheStore, *, identity: str, ttl: int) -> None:
        self.backend = backend
        self.name = backend.name
        self.store = store
        self.identity = identity
        self.ttl = ttl
        self._namespace = (SEARCH_NAMESPACE_PREFIX, backend.name)

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """The kept answer for (identity, query, limit), else the backend's answer, which is then kept."""
        key = digest(self.identity, query, limit)
        stored = await asyncio.to_thread(self.store.get, self._namespace, key, SEARCH_ANSWER)
        if stored is not None:  # an entry of another shape was a (logged) miss
            note("hit")
            return stored
        note("miss")
        hits = await self.backend.search(query, limit=limit)
        if isinstance(hits, list) and all(isinstance(hit, SearchHit) for hit in hits):
            await asyncio.to_thread(self.store.set, self._namespace, key, hits, SEARCH_ANSWER, self.ttl)
        return hits
