"""Evidence backends: one small interface, several sources.

A backend turns a claim into `SearchHit`s. It raises `veracity.errors.ToolError` for
failures, with `transient=True` when a retry could help (timeouts, rate limits,
malformed payloads) and `False` when it cannot (a missing key). It declares what it is
(`Capabilities`: web pages to fetch, a counter search, the user's source text) as data.

The names below are imported on first use (PEP 562): a run that reads only
`veracity.evidence.capabilities` loads no HTTP client and no LangChain retriever.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from veracity.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from veracity.evidence.base import EvidenceBackend
    from veracity.evidence.capabilities import Capabilities
    from veracity.evidence.retriever import RetrieverBackend
    from veracity.evidence.web import TavilyBackend

__all__ = ["Capabilities", "EvidenceBackend", "RetrieverBackend", "TavilyBackend"]

_MODULES = {
    "Capabilities": "veracity.evidence.capabilities",
    "EvidenceBackend": "veracity.evidence.base",
    "RetrieverBackend": "veracity.evidence.retriever",
    "TavilyBackend": "veracity.evidence.web",
}


if not TYPE_CHECKING:  # type checkers read the imports above
    __getattr__, __dir__ = lazy_exports(globals(), _MODULES)
