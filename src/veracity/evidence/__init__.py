"""Evidence backends: one small interface, several sources.

A backend turns a claim into `SearchHit`s. It raises `veracity.errors.ToolError` for
failures, with `transient=True` when a retry could help (timeouts, rate limits,
malformed payloads) and `False` when it cannot (a missing key). It declares what it is
(`Capabilities`: web pages to fetch, a counter search, the user's source text) as data.
"""

from veracity.evidence.base import EvidenceBackend
from veracity.evidence.capabilities import Capabilities
from veracity.evidence.retriever import RetrieverBackend
from veracity.evidence.web import TavilyBackend

__all__ = ["Capabilities", "EvidenceBackend", "RetrieverBackend", "TavilyBackend"]
