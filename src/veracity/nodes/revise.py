"""The revise step: a new round for the claims whose issues a re-judgement could fix, with their feedback."""

from __future__ import annotations

from langgraph.runtime import Runtime

from veracity.context import Context
from veracity.progress import ProgressEvent, emit
from veracity.prompts.revise import revise_feedback
from veracity.state import FactCheckState
from veracity.step_support.names import REVISE
from veracity.step_support.tracing import TracedStep


def revisable_claims(state: FactCheckState) -> dict[str, list[str]]:
    """Map each claim a revise round could fix to the messages of its issues."""
    found: dict[str, list[str]] = {}
    for issue in state["evaluation"].issues:
        if issue.revisable and issue.claim_id is not None:
            found.setdefault(issue.claim_id, []).append(issue.message)
    return found


def revise(state: FactCheckState, runtime: Runtime[Context]) -> FactCheckState:
    """Start a revise round: count it and write the feedback each failing claim gets."""
    revision = state.get("revision", 0) + 1
    traced = TracedStep(REVISE, attempt=revision)
    feedback = {
        claim_id: revise_feedback(messages, runtime.context.revise_feedback)
        for claim_id, messages in revisable_claims(state).items()
    }
    record = traced.record("ok", f"re-judging {', '.join(feedback)}")
    claims = [claim for claim in state.get("claims", []) if claim.id in feedback]
    emit(ProgressEvent(kind="revising", claims=claims, revision=revision))
    return {"revision": revision, "revise_feedback": feedback, "trace": [record]}
