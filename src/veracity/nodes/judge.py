"""judge_claim: ask the model to rule on one claim from its evidence (validation happens in the gate)."""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from veracity.context import Context
from veracity.contracts import Claim, Evidence, JudgeOutput, TraceRecord
from veracity.models import ask_structured
from veracity.nodes.timing import Stopwatch
from veracity.prompts.feedback import GATE_FEEDBACK
from veracity.resources import Resources
from veracity.state import ClaimState, evidence_for


def format_evidence(evidence: list[Evidence]) -> str:
    """Render evidence items as a numbered list the judge can cite by id."""
    blocks = []
    for item in evidence:
        header = f"[{item.id}] {item.title}".rstrip()
        if item.url:
            header += f" ({item.url})"
        blocks.append(f"{header}\n{item.text.strip()}")
    return "\n\n".join(blocks)


def judge_messages(
    claim: Claim, evidence: list[Evidence], context: Context, *, feedback: str | None, errors: list[str]
) -> list:
    """Build the judge prompt: claim, evidence, revise feedback, and the last gate error."""
    messages = [
        SystemMessage(context.judge_prompt),
        HumanMessage(f"Claim: {claim.text}\n\nEvidence:\n\n{format_evidence(evidence)}"),
    ]
    if feedback:
        messages.append(HumanMessage(feedback))
    if errors:
        messages.append(HumanMessage(GATE_FEEDBACK.format(
            attempt=len(errors), max_attempts=context.max_judge_attempts, error=errors[-1]
        )))
    return messages


async def judge_claim(state: ClaimState, runtime: Runtime[Context], *, resources: Resources) -> dict:
    """Call the judge model once for this claim; its raw payload goes to `verdict_gate`."""
    context = runtime.context
    claim = state["claim"]
    attempt = state.get("judge_attempt", 0) + 1
    watch = Stopwatch()
    evidence = evidence_for(state)
    messages = judge_messages(
        claim, evidence, context, feedback=state.get("feedback"), errors=state.get("judge_errors", [])
    )
    try:
        reply = await ask_structured(resources.chat_model(context), messages, JudgeOutput, run_name="judge_claim.model")
    except Exception as exc:  # a model call failure is one failed attempt, judged by the gate
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
