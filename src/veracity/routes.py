"""The routers: at each fork of the graph, which way a run goes.

A router reads the state the step before it just wrote (a gate's `GateDecision`, kept in its
step's `GateAttempts`; the calculator's `computation`; the evaluation) and returns the next node's
name, a `Literal` from `veracity.step_support.names`, or one `Send` per claim to fan out. `graph.py`
registers each one with its destinations spelled out, so the wiring, the Mermaid drawing and Studio
show every edge.
"""

from __future__ import annotations

from langgraph.runtime import Runtime
from langgraph.types import Send

from veracity.context import Context
from veracity.nodes.page import page_to_check
from veracity.nodes.revise import revisable_claims
from veracity.protocols import StepResources
from veracity.state import ClaimInput, ClaimState, FactCheckState, GateAttempts, evidence_for
from veracity.step_support.names import (
    CALCULATE_CLAIM,
    CHECK_CLAIM,
    END,
    EVALUATE_REPORT,
    EXTRACT_CLAIMS,
    FINALIZE_REPORT,
    GATHER_EVIDENCE,
    JUDGE_CLAIM,
    REVISE,
    VERDICT_GATE,
    VERIFY_PAGE,
    AfterCalculation,
    AfterEvaluation,
    AfterEvidence,
    AfterExtraction,
    AfterVerdict,
    ClaimStart,
)


def route_after_extraction(state: FactCheckState) -> AfterExtraction | list[Send]:
    """Extract again when the gate asks for a retry; else one `check_claim` per claim, or evaluate (none)."""
    if state.get("extraction_attempts", GateAttempts()).get("decision") == "retry":
        return EXTRACT_CLAIMS
    claims = state.get("claims") or []
    if not claims:
        return EVALUATE_REPORT
    source_mode = state.get("source_mode", False)
    branches: list[ClaimInput] = [{"claim": claim, "revision": 0, "source_mode": source_mode} for claim in claims]
    return [Send(CHECK_CLAIM, branch) for branch in branches]


def route_claim_start(state: ClaimState, *, resources: StepResources) -> ClaimStart:
    """Plain arithmetic needs no evidence, and a revise round brings its own: both skip the search.

    `resources.calculator` says what is plain arithmetic.
    """
    if state.get("prior_evidence") or resources.calculator.is_arithmetic(state["claim"].text):
        return CALCULATE_CLAIM
    return GATHER_EVIDENCE


def route_after_evidence(state: ClaimState) -> AfterEvidence:
    """Go on (calculator, then judge) only when there is evidence to judge against."""
    return CALCULATE_CLAIM if state.get("claim_evidence") else END


def route_after_calculation(state: ClaimState) -> AfterCalculation:
    """A computed claim's answer goes straight to the verdict gate; any other claim to the judge."""
    return VERDICT_GATE if state.get("computation") is not None else JUDGE_CLAIM


def route_after_verdict(state: ClaimState, runtime: Runtime[Context], *, resources: StepResources) -> AfterVerdict:
    """Judge again when the gate asks for a retry; check an accepted web verdict's cited page; else end.

    `resources.capabilities_of` says which evidence is web pages.
    """
    decision = state.get("judge_attempts", GateAttempts()).get("decision")
    if decision == "retry":
        return JUDGE_CLAIM
    verdict = state["verdicts"][state["claim"].id]
    if decision == "accept" and page_to_check(verdict, evidence_for(state), runtime.context,
                                              resources.capabilities_of) is not None:
        return VERIFY_PAGE
    return END


def route_after_evaluation(state: FactCheckState, runtime: Runtime[Context]) -> AfterEvaluation:
    """Revise while evaluation fails on fixable claims and the revision cap allows it."""
    if state["evaluation"].sound or not revisable_claims(state):
        return FINALIZE_REPORT
    if state.get("revision", 0) >= runtime.context.max_revisions:
        return FINALIZE_REPORT
    return REVISE


def send_revisions(state: FactCheckState) -> list[Send]:
    """Send only the failing claims back through `check_claim`, with their evidence and feedback."""
    claims = {claim.id: claim for claim in state.get("claims", [])}
    evidence = state.get("evidence", {})
    branches: list[ClaimInput] = [
        {
            "claim": claims[claim_id],
            "revision": state["revision"],
            "prior_evidence": evidence.get(claim_id) or None,
            "feedback": feedback,
            "source_mode": state.get("source_mode", False),
        }
        for claim_id, feedback in state.get("revise_feedback", {}).items()
        if claim_id in claims
    ]
    return [Send(CHECK_CLAIM, branch) for branch in branches]
