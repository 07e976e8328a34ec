"""The knowledge base as the tools and resources see it: its passages for a query, its documents, one document's text.

The knowledge base is the one a `kb` check searches: a folder the call names (stdio only), else the
server's (`--kb`), else the default location. Each is opened once and kept, as the checks keep theirs.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from pathlib import Path
from urllib.parse import quote, unquote

from veracity.contracts import SearchHit
from veracity.kb import DocumentInfo
from veracity.kb.backend import KnowledgeBaseBackend
from veracity.kb.paths import default_kb_path

DOCUMENTS_URI = "veracity://kb/documents"
"""The resource that lists the knowledge base's documents."""
DOCUMENT_URI = DOCUMENTS_URI + "/{document}"
"""The resource of one document; `document` is its indexed path, percent-encoded."""


def document_uri(path: str) -> str:
    """The resource URI of the document indexed under `path`."""
    return DOCUMENT_URI.format(document=quote(path, safe=""))


def document_path(key: str) -> str:
    """The indexed path a `document_uri` names."""
    return unquote(key)


_opening = threading.Lock()


def _open(path: str | None) -> KnowledgeBaseBackend:
    """The knowledge base at `path`, else at the default location as it is now (e.g. $VERACITY_KB), opened once."""
    with _opening:
        if path is None:
            return _open_once(str(default_kb_path()), default=True)
        return _open_once(str(Path(path).expanduser().resolve()), default=False)


@functools.lru_cache(maxsize=4)
def _open_once(path: str, *, default: bool) -> KnowledgeBaseBackend:
    # The default location is seeded with the demo notes on first use, as a check seeds it; a named folder is not.
    return KnowledgeBaseBackend(None if default else Path(path))


class KnowledgeBaseReader:
    """Reads the knowledge base at `path` (None: the default location, seeded with the demo notes on first use)."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path

    async def backend(self, path: str | None = None) -> KnowledgeBaseBackend:
        """The opened knowledge base at `path`, else this reader's (`KnowledgeBaseError` when it is unusable)."""
        return await asyncio.to_thread(_open, path if path is not None else self.path)

    async def search(self, query: str, *, limit: int, path: str | None = None) -> list[SearchHit]:
        """The best `limit` passages for `query`, as a `kb` check's evidence search finds them."""
        return await (await self.backend(path)).search(query, limit=limit)

    async def documents(self) -> list[DocumentInfo]:
        """Every indexed document, by path."""
        backend = await self.backend()
        return await asyncio.to_thread(backend.knowledge_base.documents)

    async def document_text(self, path: str) -> str | None:
        """The text of the document indexed under `path` as its chunks hold it, or None when there is none."""
        backend = await self.backend()
        return await asyncio.to_thread(backend.knowledge_base.document_text, path)
