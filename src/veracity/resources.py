"""The chat model and evidence backend a graph uses, resolved from settings or bound objects."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever

from veracity.context import Context
from veracity.errors import ConfigurationError
from veracity.evidence.base import EvidenceBackend
from veracity.evidence.retriever import RetrieverBackend
from veracity.models import init_model


class Resources:
    """Holds objects bound at build time and creates the rest from the run's `Context`."""

    def __init__(
        self,
        *,
        model: BaseChatModel | str | None = None,
        backend: EvidenceBackend | BaseRetriever | None = None,
    ) -> None:
        if isinstance(backend, BaseRetriever):
            backend = RetrieverBackend(backend)
        if backend is not None and not isinstance(backend, EvidenceBackend):
            raise TypeError(
                "backend must implement veracity.evidence.EvidenceBackend or be a LangChain BaseRetriever"
            )
        self._bound_model = model
        self._bound_backend = backend
        self._models: dict[tuple[str, float], BaseChatModel] = {}

    def chat_model(self, context: Context) -> BaseChatModel:
        """The model to use: the bound object, else one created from `context.model` (cached)."""
        if isinstance(self._bound_model, BaseChatModel):
            return self._bound_model
        spec = self._bound_model if isinstance(self._bound_model, str) else context.model
        key = (spec, context.temperature)
        if key not in self._models:
            self._models[key] = init_model(spec, temperature=context.temperature)
        return self._models[key]

    @asynccontextmanager
    async def evidence_backend(self, context: Context) -> AsyncIterator[EvidenceBackend]:
        """Yield the backend to search with; backends created here are closed afterwards."""
        if self._bound_backend is not None:
            yield self._bound_backend
            return
        if context.search != "web":
            raise ConfigurationError(f"unknown evidence backend {context.search!r}; available: web")
        from veracity.evidence.web import TavilyBackend

        backend = TavilyBackend(base_url=context.tavily_base_url, timeout=context.search_timeout)
        try:
            yield backend
        finally:
            await backend.aclose()

    def preflight(self, context: Context) -> None:
        """Raise `ConfigurationError` now if the model or backend cannot be set up."""
        self.chat_model(context)
        if self._bound_backend is None and context.search == "web":
            from veracity.evidence.web import TavilyBackend

            TavilyBackend.require_key()
