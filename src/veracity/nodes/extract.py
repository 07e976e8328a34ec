"""extract_claims: get atomic claims from the chat model or the offline splitter (the gate validates them).

The request is bounded by the text: its schema (`extraction_schema`: passages no longer than the
text, at most `statement_limit` claims) and its answer's output cap (`extraction_cap`).
"""

from __future__ import annotations

import math
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from veracity.context import Context
from veracity.contracts import ExtractionOutput, GateFailure
from veracity.llm.calls import ModelReply, ask_structured
from veracity.llm.request_schema import bound_string, contract_schema, property_schema
from veracity.mode import models_used
from veracity.progress import ProgressEvent, emit
from veracity.prompts.extract import EXTRACT_USER_TEMPLATE, SOURCE_EXTRACT_ADDENDUM
from veracity.prompts.retry import retry_feedback
from veracity.protocols import StepResources
from veracity.run_scope import RunScope
from veracity.state import FactCheckState
from veracity.step_support.attempts import answered, gate_errors, next_attempt
from veracity.step_support.model_answer import answer_record
from veracity.step_support.names import EXTRACT_CLAIMS
from veracity.step_support.tracing import TracedStep
from veracity.validation import input_problem

CLAIM_MARGIN_CHARS = 200
"""A claim may restate its source with names put in for pronouns."""

QUERY_CHARS = 200
"""A counter-query is a short search query."""

WORDS_PER_CLAIM = 3
"""The fewest words of text one claim can come from ("Paris is French" is three)."""

RUN_CHARS_PER_WORD = 4
"""In a run of text longer than `LONG_RUN` characters without a space (scripts written without spaces,
"巴黎是法国的首都。"), every this many characters count as one word."""

LONG_RUN = 12

EXTRACTION_BASE_TOKENS = 256
"""JSON punctuation and a few skipped statements, whatever the text's length."""

EXTRACTION_TOKENS_PER_CHAR = 0.75
"""Every claim restates its sentence twice (`claim` and a verbatim `source`) and adds a short
counter-query: about three times the text's own tokens, at about four characters a token."""


def word_count(text: str) -> int:
    """The words of `text`: whitespace-separated, a long run without spaces counting one per 4 characters.

    The bound on claims must stay tight (a small model given room repeats its list until its
    token cap) but must not hold a text in a script without spaces to a single claim.
    """
    runs = text.split()
    return sum(len(run) // RUN_CHARS_PER_WORD if len(run) > LONG_RUN else 1 for run in runs)


def statement_limit(text: str) -> int:
    """The most claims (and the most skipped statements) an extraction of `text` may list: one per three words.

    The request schema sends it as `maxItems`; the extraction gate rejects a model's answer with more
    claims than that, so a server that ignores the schema cannot fan a check out into thousands.
    """
    return word_count(text) // WORDS_PER_CLAIM + 1


def extraction_schema(text: str) -> dict[str, Any]:
    """`ExtractionOutput`'s schema for extracting claims from `text`.

    Passages are no longer than the text, and there are no more claims (or skipped statements)
    than `statement_limit` allows.
    """
    schema = contract_schema(ExtractionOutput)
    length = len(text)
    bound_string(property_schema(schema, "ExtractedClaim", "claim"), length + CLAIM_MARGIN_CHARS)
    bound_string(property_schema(schema, "ExtractedClaim", "source"), length)
    bound_string(property_schema(schema, "ExtractedClaim", "counter_query"), QUERY_CHARS)
    bound_string(property_schema(schema, "SkippedStatement", "source"), length)
    statements = statement_limit(text)
    schema["properties"]["claims"]["maxItems"] = statements
    schema["properties"]["skipped"]["maxItems"] = statements
    return schema


def extraction_cap(text: str) -> int:
    """The default output cap for extracting the claims of `text`."""
    return EXTRACTION_BASE_TOKENS + math.ceil(EXTRACTION_TOKENS_PER_CHAR * len(text))


def extraction_tokens(text: str, context: Context) -> int:
    """The extraction answer's token cap: `extraction_max_tokens`, else sized from the text."""
    return context.extraction_max_tokens or extraction_cap(text)


def extraction_messages(
    text: str, context: Context, errors: list[str], *, source_mode: bool = False
) -> list[BaseMessage]:
    """The extraction prompt (`veracity.prompts.extract`, system text from `context.extraction_prompt`) for `text`.

    The last gate error follows on a retry.
    """
    system = context.extraction_prompt + (SOURCE_EXTRACT_ADDENDUM if source_mode else "")
    return [
        SystemMessage(system),
        HumanMessage(EXTRACT_USER_TEMPLATE.format(text=text)),
        *retry_feedback(errors, context.max_extraction_attempts),
    ]


async def _extract(text: str, context: Context, resources: StepResources, run: RunScope, errors: list[str], *,
                   source_mode: bool, cap: int) -> ModelReply:
    if resources.offline(context, "extract", run):
        return ModelReply(payload=resources.splitter.split(text, source_mode=source_mode), tokens_in=0, tokens_out=0)
    messages = extraction_messages(text, context, errors, source_mode=source_mode)
    async with resources.model_call(context, "extract", run):
        model = resources.chat_model(context, max_tokens=cap, step="extract", run=run)
        return await ask_structured(model, messages, ExtractionOutput,
                                    run_name="extract_claims.model", structured_output=context.structured_output,
                                    request_schema=extraction_schema(text))


async def extract_claims(state: FactCheckState, runtime: Runtime[Context], config: RunnableConfig, *,
                         resources: StepResources) -> FactCheckState:
    """Run the extractor once; its raw payload goes to `extraction_gate`.

    It also records what the report says of the run: its mode, its model and the calibration that rules its verdicts.
    """
    context = runtime.context
    run = RunScope.of(config)
    attempt = next_attempt(state.get("extraction_attempts"))
    traced = TracedStep(EXTRACT_CLAIMS, attempt=attempt)
    mode = resources.mode(context, run)
    label, model = models_used(context, mode)
    base: FactCheckState = {"extraction_attempts": {"attempt": attempt}, "mode": label, "model": model,
                            "source_mode": mode.source, "calibration": resources.calibration_origin(context, run)}
    problem = input_problem(state.get("text"), context.max_text_chars)
    if problem:
        failure = GateFailure(step="input", attempts=1, errors=[problem], message=f"input rejected: {problem}")
        record = traced.record("skipped", problem)
        return {**base, "input_failure": failure, "trace": [record]}

    emit(ProgressEvent(kind="extracting", attempt=attempt))
    cap = extraction_tokens(state["text"], context)
    try:
        reply = await _extract(state["text"], context, resources, run, gate_errors(state.get("extraction_attempts")),
                               source_mode=mode.source, cap=cap)
    except Exception as exc:  # a failed call is one failed attempt, judged by the gate
        record = traced.record("failed", f"model call failed: {exc}")
        return {**base, "extraction_attempts": answered(attempt, None, f"the model call failed: {exc}"),
                "trace": [record]}
    record, error = answer_record(traced, reply, step="extract", cap=cap)
    payload = None if error else reply.payload
    return {**base, "extraction_attempts": answered(attempt, payload, error), "trace": [record]}
