"""Evidence backends: one small interface, several sources.

A backend turns a claim into `SearchHit`s. It raises `veracity.errors.ToolError` for
failures, with `transient=True` when a retry could help (timeouts, rate limits,
malformed payloads) and `False` when it cannot (a missing key). It declares what it is
(`Capabilities`: web pages to fetch, a counter search, the user's source text) as data.

The names below are imported on first use (PEP 562): a run that reads only
`veracity.evidence.capabilities` loads no HTTP client and no LangChain retriever.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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


def _public_name(name: str) -> Any:
    """Import a public name's module on first use and keep the name here."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def _names() -> list[str]:
    """List the public names with the module's own."""
    return sorted(set(globals()) | set(__all__))


if not TYPE_CHECKING:  # type checkers read the imports above
    __getattr__ = _public_name
    __dir__ = _names
