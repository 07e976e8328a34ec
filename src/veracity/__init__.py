"""veracity: catch factual errors in text.

Split a text into atomic claims, gather evidence for each, judge every claim supported,
refuted or unverifiable with a mechanically checked quote, and evaluate the report.

    >>> import veracity
    >>> report = veracity.check("The Sydney Opera House opened in 1973.")  # doctest: +SKIP
"""

from __future__ import annotations

from veracity.agents import Guard, GuardedAnswer, as_tool
from veracity.api import acheck, check
from veracity.batch import abatch, batch_on_ray
from veracity.context import Context
from veracity.contracts import (
    Claim,
    DeadlineFailure,
    Evaluation,
    EvaluationIssue,
    Evidence,
    GateFailure,
    Report,
    SearchHit,
    ToolFailure,
    TraceRecord,
    Verdict,
)
from veracity.errors import ConfigurationError, InputError, ToolError, VeracityError
from veracity.evidence import EvidenceBackend, RetrieverBackend, TavilyBackend
from veracity.graph import build_graph, graph
from veracity.progress import ProgressEvent
from veracity.run.checker import Checker

__all__ = [
    "Checker", "Claim", "ConfigurationError", "Context", "DeadlineFailure", "Evaluation", "EvaluationIssue",
    "Evidence", "EvidenceBackend", "GateFailure", "Guard", "GuardedAnswer", "InputError", "ProgressEvent", "Report",
    "RetrieverBackend", "SearchHit", "TavilyBackend", "ToolError", "ToolFailure", "TraceRecord", "VeracityError",
    "Verdict", "abatch", "acheck", "as_tool", "batch_on_ray", "build_graph", "check", "graph",
]
