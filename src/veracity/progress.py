"""Progress of a check as it happens: one typed event, emitted by the graph's nodes.

Nodes emit a `ProgressEvent` on LangGraph's ``custom`` stream (`get_stream_writer`) whenever
something a person would want to see happens: extraction starts, claims are found, a claim gets a
verdict (from the verdict gate, or from the evidence step when there was nothing to judge), or a
revise round starts. The command line, the HTTP stream, the web page and `Guard` all read these
events instead of recognising graph nodes by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from langgraph.config import get_stream_writer
from pydantic import BaseModel, Field

from veracity.contracts import Claim, Evidence, Verdict

if TYPE_CHECKING:
    from veracity.state import ClaimState

ProgressKind = Literal["extracting", "claims", "verdict", "revising"]
"""What happened: extraction started, claims were found, a claim got a verdict, a revise round started."""


class ProgressEvent(BaseModel):
    """One step of a check, as it happens."""

    kind: ProgressKind
    attempt: int = Field(default=1, description="'extracting': the extraction attempt, from 1.")
    claims: list[Claim] = Field(
        default_factory=list,
        description="'claims': every claim found; 'revising': the claims sent back to the judge.",
    )
    claim: Claim | None = Field(default=None, description="'verdict': the claim judged.")
    verdict: Verdict | None = Field(default=None, description="'verdict': its verdict (a revise round may replace it).")
    evidence: Evidence | None = Field(default=None, description="'verdict': the evidence item the verdict cites.")
    revision: int = Field(default=0, description="The revise round: 0 for the first pass.")


def emit(event: ProgressEvent) -> None:
    """Send `event` on the custom stream of the graph run this node belongs to (a no-op when nobody listens)."""
    get_stream_writer()(event)


def emit_verdict(state: ClaimState, verdict: Verdict, evidence: Sequence[Evidence] = ()) -> None:
    """Tell listeners that this claim branch reached `verdict` (with the evidence item it cites, if any)."""
    cited = next((item for item in evidence if item.id == verdict.evidence_id), None)
    emit(ProgressEvent(kind="verdict", claim=state["claim"], verdict=verdict, evidence=cited,
                       revision=state.get("revision", 0)))
