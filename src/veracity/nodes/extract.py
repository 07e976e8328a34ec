"""extract_claims: get atomic claims from the chat model or the offline splitter (the gate validates them)."""

from __future__ import annotations

import re

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from veracity.context import Context
from veracity.contracts import ExtractionOutput, GateFailure, TraceRecord
from veracity.nodes.model_answer import answer_record
from veracity.nodes.names import EXTRACT_CLAIMS
from veracity.nodes.timing import Stopwatch
from veracity.progress import ProgressEvent, emit
from veracity.prompts.feedback import gate_feedback
from veracity.prompts.source_mode import SOURCE_EXTRACT_ADDENDUM
from veracity.runtime.models import ModelReply, answer_within, ask_structured
from veracity.runtime.output_caps import extraction_cap
from veracity.runtime.request_schemas import extraction_schema
from veracity.runtime.resources import Resources
from veracity.state import FactCheckState

_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(text: str) -> str:
    """`text` with every unpaired surrogate replaced by U+FFFD, so the report can always be written as JSON.

    Python strings can hold them (from ``surrogateescape`` decoding, or built by hand); UTF-8 cannot.
    """
    return _SURROGATE.sub("\ufffd", text)


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


def extraction_messages(
    text: str, context: Context, errors: list[str], *, source_mode: bool = False
) -> list[BaseMessage]:
    """The extraction prompt (`context.extraction_prompt`), with the last gate error stitched in on a retry."""
    system = context.extraction_prompt + (SOURCE_EXTRACT_ADDENDUM if source_mode else "")
    return [
        SystemMessage(system),
        HumanMessage(f"Text to split into claims:\n\n{text}"),
        *gate_feedback(errors, context.max_extraction_attempts),
    ]


async def _extract(text: str, context: Context, resources: Resources, errors: list[str], *, offline: bool,
                   source_mode: bool, cap: int) -> ModelReply:
    if offline:
        from veracity.offline.extract import extract_claims_offline

        return ModelReply(payload=extract_claims_offline(text, source_mode=source_mode), tokens_in=0, tokens_out=0)
    messages = extraction_messages(text, context, errors, source_mode=source_mode)
    async with answer_within(context.model_timeout):
        return await ask_structured(resources.chat_model(context, max_tokens=cap), messages, ExtractionOutput,
                                    run_name="extract_claims.model", structured_output=context.structured_output,
                                    request_schema=extraction_schema(text))


def extraction_tokens(text: str, context: Context) -> int:
    """The extraction answer's token cap: `extraction_max_tokens`, else sized from the text."""
    return context.extraction_max_tokens or extraction_cap(text)


async def extract_claims(state: FactCheckState, runtime: Runtime[Context], *, resources: Resources) -> FactCheckState:
    """Run the extractor once; its raw payload goes to `extraction_gate`."""
    context = runtime.context
    attempt = state.get("extraction_attempt", 0) + 1
    watch = Stopwatch()
    mode = resources.mode(context)
    base: FactCheckState = {"extraction_attempt": attempt, "mode": mode.label, "model": mode.model,
                            "source_mode": mode.source}
    problem = input_problem(state.get("text"), context.max_text_chars)
    if problem:
        failure = GateFailure(step="input", attempts=1, errors=[problem], message=f"input rejected: {problem}")
        record = TraceRecord(step=EXTRACT_CLAIMS, outcome="skipped", reason=problem, seconds=watch.seconds)
        return {**base, "input_failure": failure, "trace": [record]}

    emit(ProgressEvent(kind="extracting", attempt=attempt))
    cap = extraction_tokens(state["text"], context)
    try:
        reply = await _extract(state["text"], context, resources, state.get("extraction_errors", []),
                               offline=mode.offline, source_mode=mode.source, cap=cap)
    except Exception as exc:  # a failed call is one failed attempt, judged by the gate
        record = TraceRecord(
            step=EXTRACT_CLAIMS, attempt=attempt, outcome="failed", reason=f"model call failed: {exc}",
            seconds=watch.seconds,
        )
        return {**base, "extraction_payload": None, "extraction_call_error": f"the model call failed: {exc}",
                "trace": [record]}
    record, error = answer_record(EXTRACT_CLAIMS, reply, step="extract", cap=cap, attempt=attempt,
                                  seconds=watch.seconds)
    payload = None if error else reply.payload
    return {**base, "extraction_payload": payload, "extraction_call_error": error, "trace": [record]}
