"""extract_claims: ask the model for atomic claims (validation happens in the gate)."""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from veracity.context import Context
from veracity.contracts import ExtractionOutput, GateFailure, TraceRecord
from veracity.models import ask_structured
from veracity.nodes.timing import Stopwatch
from veracity.prompts.feedback import GATE_FEEDBACK
from veracity.resources import Resources
from veracity.state import FactCheckState


def input_problem(text: object, max_chars: int) -> str | None:
    """Return why `text` cannot be checked (not a string, blank, too long), or None."""
    if not isinstance(text, str):
        return f"text must be a string, got {type(text).__name__}"
    if not text.strip():
        return "the text is empty"
    if len(text) > max_chars:
        return (
            f"the text is {len(text):,} characters; the limit is {max_chars:,} "
            "(split it, or raise max_text_chars)"
        )
    return None


def extraction_messages(text: str, context: Context, errors: list[str]) -> list:
    """Build the extraction prompt, with the last gate error stitched in on a retry."""
    messages = [SystemMessage(context.extraction_prompt), HumanMessage(f"Text to split into claims:\n\n{text}")]
    if errors:
        feedback = GATE_FEEDBACK.format(
            attempt=len(errors), max_attempts=context.max_extraction_attempts, error=errors[-1]
        )
        messages.append(HumanMessage(feedback))
    return messages


async def extract_claims(
    state: FactCheckState, runtime: Runtime[Context], *, resources: Resources
) -> dict:
    """Call the extraction model once; its raw payload goes to `extraction_gate`."""
    context = runtime.context
    attempt = state.get("extraction_attempt", 0) + 1
    watch = Stopwatch()
    problem = input_problem(state.get("text"), context.max_text_chars)
    if problem:
        failure = GateFailure(step="input", attempts=1, errors=[problem], message=f"input rejected: {problem}")
        record = TraceRecord(step="extract_claims", outcome="skipped", reason=problem, seconds=watch.seconds)
        return {"input_failure": failure, "extraction_attempt": attempt, "trace": [record]}

    messages = extraction_messages(state["text"], context, state.get("extraction_errors", []))
    try:
        reply = await ask_structured(resources.chat_model(context), messages, ExtractionOutput, run_name="extract_claims.model")
    except Exception as exc:  # a model call failure is one failed attempt, judged by the gate
        record = TraceRecord(
            step="extract_claims", attempt=attempt, outcome="failed", reason=f"model call failed: {exc}",
            seconds=watch.seconds,
        )
        return {
            "extraction_payload": None,
            "extraction_call_error": f"the model call failed: {exc}",
            "extraction_attempt": attempt,
            "trace": [record],
        }
    record = TraceRecord(
        step="extract_claims", attempt=attempt, outcome="ok", tokens_in=reply.tokens_in,
        tokens_out=reply.tokens_out, seconds=watch.seconds,
    )
    return {
        "extraction_payload": reply.payload,
        "extraction_call_error": None,
        "extraction_attempt": attempt,
        "trace": [record],
    }
