"""Adapter that lets any LangChain `BaseRetriever` serve as an evidence backend."""

from __future__ import annotations

from langchain_core.retrievers import BaseRetriever
from pydantic import ValidationError

from veracity.contracts import SearchHit
from veracity.errors import ToolError
from veracity.evidence.capabilities import Capabilities


class RetrieverBackend:
    """Evidence from a LangChain retriever; document metadata supplies title and url.

    It declares nothing by default (plain passages); a retriever over web pages can say so with
    `capabilities=Capabilities(pages_to_fetch=True)`.
    """

    def __init__(
        self, retriever: BaseRetriever, *, name: str = "retriever", capabilities: Capabilities | None = None,
    ) -> None:
        self.retriever = retriever
        self.name = name
        self.capabilities = capabilities or Capabilities()

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """Run the retriever and convert its documents into hits."""
        documents = await self.retriever.ainvoke(query)
        hits: list[SearchHit] = []
        for document in documents[:limit]:
            meta = document.metadata or {}
            try:
                hits.append(
                    SearchHit(
                        title=str(meta.get("title") or meta.get("source") or ""),
                        url=meta.get("url") or meta.get("source"),
                        text=document.page_content,
                        score=meta.get("score"),
                    )
                )
            except ValidationError as exc:
                raise ToolError("malformed", f"retriever returned an unusable document: {exc}") from exc
        return hits
