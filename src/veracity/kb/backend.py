"""The knowledge base as an evidence backend (`search='kb'`): the user's documents, searched in a worker thread."""

from __future__ import annotations

import asyncio
import functools
import os
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from veracity.contracts import SearchHit
from veracity.cores import usable_cores
from veracity.errors import KnowledgeBaseError, ToolError
from veracity.evidence.capabilities import Capabilities
from veracity.evidence.search_clock import not_counted
from veracity.kb.seeding import open_default_kb
from veracity.kb.store import KnowledgeBase


@functools.cache
def first_touch_threads() -> ThreadPoolExecutor:
    """The threads that compute first-touch sentence vectors, one per usable core, apart from asyncio's default ones.

    Searches side by side on a new knowledge base keep these busy for long; on the default
    threads, the counted parts of other searches would wait behind them and time out.
    """
    return ThreadPoolExecutor(max_workers=max(2, usable_cores()), thread_name_prefix="veracity-first-touch")


os.register_at_fork(after_in_child=first_touch_threads.cache_clear)  # a forked child has none of the threads


class KnowledgeBaseBackend:
    """Search the user's documents indexed on disk: hybrid dense + BM25 retrieval over chunks.

    With no `path`, the default knowledge base is used (`$VERACITY_KB` or the user data folder),
    seeded with the demo notes if it does not exist yet. A missing or damaged knowledge base
    raises `KnowledgeBaseError` here, with the fix; a failure during a search is a `ToolError`.
    """

    name = "kb"
    capabilities = Capabilities()

    def __init__(self, path: str | Path | None = None, *, knowledge_base: KnowledgeBase | None = None) -> None:
        if knowledge_base is not None:
            self.knowledge_base = knowledge_base
        elif path is None:
            self.knowledge_base = open_default_kb()
        else:
            self.knowledge_base = KnowledgeBase(path)
        self.knowledge_base.verify()

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """The best `limit` chunks for `query`; their sentence vectors are primed in the embedder cache.

        Computing the sentence vectors of chunks returned for the first time is not counted in the
        search timeout (`not_counted`): on a large new knowledge base a first check is slower, not
        failed. The retrieval and the rerank are counted; they never queue behind that work, which
        runs on threads of its own (`first_touch_threads`).
        """
        knowledge_base = self.knowledge_base
        try:
            shortlist = await asyncio.to_thread(knowledge_base.shortlist, query, limit)
            if shortlist.fresh:
                with not_counted():
                    await asyncio.get_running_loop().run_in_executor(
                        first_touch_threads(), knowledge_base.embed_first_touch, shortlist)
            return await asyncio.to_thread(knowledge_base.reranked, shortlist)
        except (KnowledgeBaseError, OSError, sqlite3.Error) as exc:
            raise ToolError("unavailable", f"knowledge base search failed: {self._without_paths(str(exc))}",
                            transient=False) from exc

    def _without_paths(self, message: str) -> str:
        """`message` with the knowledge base's folder shown by name only.

        Reports travel to the clients of a server, who have no business knowing its file system.
        """
        folder = self.knowledge_base.path
        for spelling in {str(folder.resolve()), str(folder)}:
            message = message.replace(spelling, f"<knowledge base {folder.name!r}>")
        return message
