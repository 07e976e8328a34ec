"""Evidence backends: one small interface, several sources.

A backend turns a claim into `SearchHit`s. It raises `veracity.errors.ToolError` for
failures, with `transient=True` when a retry could help (timeouts, rate limits,
malformed payloads) and `False` when it cannot (a missing key).
"""

from veracity.evidence.base import EvidenceBackend
from veracity.evidence.retriever import RetrieverBackend
from veracity.evidence.web import TavilyBackend

__all__ = ["EvidenceBackend", "RetrieverBackend", "TavilyBackend"]
