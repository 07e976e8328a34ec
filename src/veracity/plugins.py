"""The implementations the wiring (`veracity.resources`) plugs into the core, each imported on first use.

Importing a plug-in costs from a third of a second to most of a second on two cores (the knowledge
base and the offline judge bring numpy, the cache brings LangGraph's, page fetching brings httpx),
and `veracity check` decides what its run needs before it imports any of them, so that the models
load in the background meanwhile (`veracity.run.warmup`). So the wiring reads every plug-in, and
the LangChain classes it needs only to recognise bound objects, as an attribute of this module:
the attribute's module is imported the first time it is read (PEP 562, `veracity.lazy_exports`).
Each name is a class or a function, read once: state a plug-in keeps (say, the endpoint probes)
stays in its own module, where its functions find it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from veracity.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.retrievers import BaseRetriever

    from veracity.cache import CachedSearch, CacheStore, ModelCallCache, default_cache_path, open_store
    from veracity.calculator.plugin import ShippedCalculator
    from veracity.calibration.file import calibration_for
    from veracity.calibration.identity import calibration_folder, judge_identity
    from veracity.calibration.plugin import ChatCalibration
    from veracity.evidence.retriever import RetrieverBackend
    from veracity.kb.backend import KnowledgeBaseBackend
    from veracity.kb.paths import default_kb_path
    from veracity.kb.store import KnowledgeBase
    from veracity.llm.models import init_model
    from veracity.llm.probe import endpoint_problem, model_endpoint, unreachable
    from veracity.offline.calibration.confidence import shipped_origin
    from veracity.offline.model.embedder import default_embedder
    from veracity.offline.plugin import EmbeddingSupport, OfflineJudge, OfflineSplitter
    from veracity.pages.plugin import PageFetcher

__all__ = [
    "BaseChatModel", "BaseRetriever", "CacheStore", "CachedSearch", "ChatCalibration", "EmbeddingSupport",
    "KnowledgeBase", "KnowledgeBaseBackend", "ModelCallCache", "OfflineJudge", "OfflineSplitter", "PageFetcher",
    "RetrieverBackend", "ShippedCalculator", "default_cache_path", "default_embedder", "default_kb_path",
    "calibration_folder", "calibration_for", "endpoint_problem", "init_model", "judge_identity", "model_endpoint",
    "open_store", "shipped_origin", "unreachable",
]

MODULES: dict[str, str] = {
    "BaseChatModel": "langchain_core.language_models", "BaseRetriever": "langchain_core.retrievers",
    "CacheStore": "veracity.cache", "CachedSearch": "veracity.cache", "ModelCallCache": "veracity.cache",
    "default_cache_path": "veracity.cache", "open_store": "veracity.cache",
    "ShippedCalculator": "veracity.calculator.plugin",
    "ChatCalibration": "veracity.calibration.plugin", "calibration_for": "veracity.calibration.file",
    "calibration_folder": "veracity.calibration.identity", "judge_identity": "veracity.calibration.identity",
    "RetrieverBackend": "veracity.evidence.retriever",
    "KnowledgeBaseBackend": "veracity.kb.backend", "default_kb_path": "veracity.kb.paths",
    "KnowledgeBase": "veracity.kb.store",
    "init_model": "veracity.llm.models",
    "endpoint_problem": "veracity.llm.probe", "model_endpoint": "veracity.llm.probe",
    "unreachable": "veracity.llm.probe",
    "shipped_origin": "veracity.offline.calibration.confidence",
    "default_embedder": "veracity.offline.model.embedder",
    "EmbeddingSupport": "veracity.offline.plugin", "OfflineJudge": "veracity.offline.plugin",
    "OfflineSplitter": "veracity.offline.plugin",
    "PageFetcher": "veracity.pages.plugin",
}
"""Each name and the module that defines it."""

if not TYPE_CHECKING:  # type checkers read the imports above
    __getattr__, __dir__ = lazy_exports(globals(), MODULES)
