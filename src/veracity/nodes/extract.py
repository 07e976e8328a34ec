"""extract_claims: get atomic claims from the extractor (validation happens in the gate)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from veracity.context import Context
from veracity.contracts import GateFailure, TraceRecord
from veracity.nodes.timing import Stopwatch
from veracity.runtime.resources import Resources
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


async def extract_claims(
    state: FactCheckState, runtime: Runtime[Context], *, resources: Resources
) -> dict:
    """Run the extractor once; its raw payload goes to `extraction_gate`."""
    context = runtime.context
    attempt = state.get("extraction_attempt", 0) + 1
    watch = Stopwatch()
    mode = resources.mode(context)
    base = {"extraction_attempt": attempt, "mode": mode.label}
    problem = input_problem(state.get("text"), context.max_text_chars)
    if problem:
        failure = GateFailure(step="input", attempts=1, errors=[problem], message=f"input rejected: {problem}")
        record = TraceRecord(step="extract_claims", outcome="skipped", reason=problem, seconds=watch.seconds)
        return {**base, "input_failure": failure, "trace": [record]}

    try:
        extractor = resources.extractor(context)
        reply = await extractor.extract(state["text"], context, state.get("extraction_errors", []))
    except Exception as exc:  # a failed call is one failed attempt, judged by the gate
        record = TraceRecord(
            step="extract_claims", attempt=attempt, outcome="failed", reason=f"model call failed: {exc}",
            seconds=watch.seconds,
        )
        return {**base, "extraction_payload": None, "extraction_call_error": f"the model call failed: {exc}",
                "trace": [record]}
    record = TraceRecord(
        step="extract_claims", attempt=attempt, outcome="ok", tokens_in=reply.tokens_in,
        tokens_out=reply.tokens_out, seconds=watch.seconds,
    )
    return {**base, "extraction_payload": reply.payload, "extraction_call_error": None, "trace": [record]}
