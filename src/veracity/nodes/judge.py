"""judge_claim: get a ruling on one claim from its evidence (validation happens in the gate)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from veracity.context import Context
from veracity.contracts import TraceRecord
from veracity.nodes.timing import Stopwatch
from veracity.runtime.resources import Resources
from veracity.state import ClaimState, evidence_for


async def judge_claim(state: ClaimState, runtime: Runtime[Context], *, resources: Resources) -> dict:
    """Run the judge once for this claim; its raw payload goes to `verdict_gate`."""
    context = runtime.context
    claim = state["claim"]
    attempt = state.get("judge_attempt", 0) + 1
    watch = Stopwatch()
    evidence = evidence_for(state)
    try:
        judge = resources.judge(context)
        reply = await judge.judge(
            claim, evidence, context, feedback=state.get("feedback"), errors=state.get("judge_errors", [])
        )
    except Exception as exc:  # a failed call is one failed attempt, judged by the gate
        record = TraceRecord(
            step="judge_claim", claim_id=claim.id, attempt=attempt, outcome="failed",
            reason=f"model call failed: {exc}", seconds=watch.seconds,
        )
        return {
            "claim_evidence": evidence, "judge_payload": None, "judge_call_error": f"the model call failed: {exc}",
            "judge_attempt": attempt, "trace": [record],
        }
    record = TraceRecord(
        step="judge_claim", claim_id=claim.id, attempt=attempt, outcome="ok",
        tokens_in=reply.tokens_in, tokens_out=reply.tokens_out, seconds=watch.seconds,
    )
    return {
        "claim_evidence": evidence, "judge_payload": reply.payload, "judge_call_error": None,
        "judge_attempt": attempt, "trace": [record],
    }
