"""veracity: catch factual errors in text.

Split a text into atomic claims, gather evidence for each, judge every claim supported,
refuted or unverifiable with a mechanically checked quote, and evaluate the report.

    >>> import veracity
    >>> report = veracity.check("The Sydney Opera House opened in 1973.")  # doctest: +SKIP

The public names are imported on first use (PEP 562), so `import veracity` loads neither
LangChain, LangGraph nor a model. `veracity.graph` is the compiled graph; once the module of that
name has been imported (`from veracity.graph import build_graph`), Python binds the module there
instead, and the module reads as the compiled graph (`veracity.graph.invoke(...)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from veracity.lazy_exports import lazy_exports

if TYPE_CHECKING:
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
    from veracity.errors import ConfigurationError, InputError, SettingError, ToolError, VeracityError
    from veracity.evidence import EvidenceBackend, RetrieverBackend, TavilyBackend
    from veracity.graph import build_graph, graph
    from veracity.progress import ProgressEvent
    from veracity.run.checker import Checker

__all__ = [
    "Checker", "Claim", "ConfigurationError", "Context", "DeadlineFailure", "Evaluation", "EvaluationIssue",
    "Evidence", "EvidenceBackend", "GateFailure", "Guard", "GuardedAnswer", "InputError", "ProgressEvent", "Report",
    "RetrieverBackend", "SearchHit", "SettingError", "TavilyBackend", "ToolError", "ToolFailure", "TraceRecord",
    "VeracityError",
    "Verdict", "abatch", "acheck", "as_tool", "batch_on_ray", "build_graph", "check", "graph",
]

PUBLIC_MODULES: dict[str, str] = {
    "Guard": "veracity.agents", "GuardedAnswer": "veracity.agents", "as_tool": "veracity.agents",
    "acheck": "veracity.api", "check": "veracity.api",
    "abatch": "veracity.batch", "batch_on_ray": "veracity.batch",
    "Context": "veracity.context",
    "Claim": "veracity.contracts", "DeadlineFailure": "veracity.contracts", "Evaluation": "veracity.contracts",
    "EvaluationIssue": "veracity.contracts", "Evidence": "veracity.contracts", "GateFailure": "veracity.contracts",
    "Report": "veracity.contracts", "SearchHit": "veracity.contracts", "ToolFailure": "veracity.contracts",
    "TraceRecord": "veracity.contracts", "Verdict": "veracity.contracts",
    "ConfigurationError": "veracity.errors", "InputError": "veracity.errors", "ToolError": "veracity.errors",
    "SettingError": "veracity.errors", "VeracityError": "veracity.errors",
    "EvidenceBackend": "veracity.evidence", "RetrieverBackend": "veracity.evidence",
    "TavilyBackend": "veracity.evidence",
    "build_graph": "veracity.graph", "graph": "veracity.graph",
    "ProgressEvent": "veracity.progress",
    "Checker": "veracity.run.checker",
}
"""Each public name and the module that defines it, imported the first time the name is read."""


if not TYPE_CHECKING:  # type checkers read the imports above, so a misspelled name stays an error for them
    __getattr__, __dir__ = lazy_exports(globals(), PUBLIC_MODULES)
