"""judge_claim: rule on one claim from its evidence, by the chat model or the offline judge (the gate checks it).

The request is bounded by the evidence (`judge_schema`: only a retrieved id may be cited, a quote
no longer than the evidence) and its answer by `judge_max_tokens` (`revise_max_tokens` in a revise round).
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from veracity.context import Context
from veracity.contracts import Claim, Evidence, JudgeOutput
from veracity.llm.calls import ModelReply, ask_structured
from veracity.llm.caps import Step
from veracity.llm.request_schema import bound_string, contract_schema, property_schema
from veracity.prompts.judge import JUDGE_USER_TEMPLATE, SOURCE_JUDGE_ADDENDUM, format_evidence
from veracity.prompts.retry import retry_feedback
from veracity.protocols import Ruled, StepResources, Uncalibrated
from veracity.run_scope import RunScope
from veracity.state import ClaimState, ClaimUpdate, evidence_for
from veracity.step_support.attempts import answered, gate_errors, next_attempt
from veracity.step_support.model_answer import answer_record
from veracity.step_support.names import JUDGE_CLAIM
from veracity.step_support.tracing import TracedStep

REASON_CHARS = 600
"""A judge's reason is one or two sentences."""


def judge_messages(
    claim: Claim, evidence: list[Evidence], context: Context, *, feedback: str | None, errors: list[str],
    source_mode: bool = False,
) -> list[BaseMessage]:
    """The judge prompt (`veracity.prompts.judge`, system text from `context.judge_prompt`) for `claim`.

    The fenced evidence follows the claim; then the revise feedback, and the last gate error on a retry.
    """
    system = context.judge_prompt + (SOURCE_JUDGE_ADDENDUM if source_mode else "")
    messages: list[BaseMessage] = [
        SystemMessage(system),
        HumanMessage(JUDGE_USER_TEMPLATE.format(claim=claim.text, evidence=format_evidence(evidence))),
    ]
    if feedback:
        messages.append(HumanMessage(feedback))
    return messages + retry_feedback(errors, context.max_judge_attempts)


async def _judge(
    state: ClaimState, evidence: list[Evidence], context: Context, resources: StepResources, run: RunScope, *,
    cap: int,
) -> tuple[ModelReply, Ruled]:
    """The judge's answer, ruled by the calibration of its judge (confidence, lean).

    The offline judge rules with its shipped calibration or the file measured for it; a chat model's
    answer is ruled by the calibration `veracity calibrate` measured for that model, else marked
    uncalibrated.
    """
    claim, feedback = state["claim"], state.get("feedback")
    source_mode = state.get("source_mode", False)
    if resources.offline(context, "judge", run):
        ruling = await asyncio.to_thread(resources.offline_judge(context, run).rule, claim.text, evidence,
                                         min_precision=context.min_precision, source_mode=source_mode)
        return ModelReply(payload=ruling.answer, tokens_in=0, tokens_out=0), ruling
    messages = judge_messages(claim, evidence, context, feedback=feedback, source_mode=source_mode,
                              errors=gate_errors(state.get("judge_attempts")))
    async with resources.model_call(context, "judge", run):
        reply = await ask_structured(resources.chat_model(context, max_tokens=cap, step="judge", run=run), messages,
                                     JudgeOutput, run_name="judge_claim.model",
                                     structured_output=context.structured_output, request_schema=judge_schema(evidence))
    measured = resources.chat_calibration(context, run)
    if measured is None:
        return reply, Uncalibrated(reply.payload)
    ruled = await asyncio.to_thread(measured.rule, claim.text, evidence, reply.payload,
                                    min_precision=context.min_precision, logprob=reply.logprob)
    return dataclasses.replace(reply, payload=ruled.answer), ruled


def judge_schema(evidence: list[Evidence]) -> dict[str, Any]:
    """`JudgeOutput`'s schema for judging a claim against `evidence`.

    The reason is short, the evidence id is one that was retrieved (or none), and the quote is no
    longer than the longest evidence text.
    """
    schema = contract_schema(JudgeOutput)
    bound_string(property_schema(schema, None, "reason"), REASON_CHARS)
    ids = [item.id for item in evidence]
    schema["properties"]["evidence_id"]["anyOf"] = [{"enum": ids}, {"type": "null"}] if ids else [{"type": "null"}]
    longest = max((len(item.text) for item in evidence), default=0)
    if longest:
        bound_string(property_schema(schema, None, "quote"), longest)
    else:
        schema["properties"]["quote"]["anyOf"] = [{"type": "null"}]
    return schema


def judge_step(state: ClaimState) -> Step:
    """'revise' for a claim judged again in a revise round, else 'judge'."""
    return "revise" if state.get("revision", 0) > 0 else "judge"


def judge_tokens(state: ClaimState, context: Context) -> int:
    """The judge answer's token cap: `revise_max_tokens` in a revise round, else `judge_max_tokens`."""
    return context.revise_max_tokens if judge_step(state) == "revise" else context.judge_max_tokens


async def judge_claim(state: ClaimState, runtime: Runtime[Context], config: RunnableConfig, *,
                      resources: StepResources) -> ClaimUpdate:
    """Run the judge once for this claim; its raw payload goes to `verdict_gate`."""
    claim = state["claim"]
    attempt = next_attempt(state.get("judge_attempts"))
    traced = TracedStep(JUDGE_CLAIM, claim_id=claim.id, attempt=attempt)
    evidence = evidence_for(state)
    cap = judge_tokens(state, runtime.context)
    try:
        reply, ruling = await _judge(state, evidence, runtime.context, resources, RunScope.of(config), cap=cap)
    except Exception as exc:  # a failed call is one failed attempt, judged by the gate
        record = traced.record("failed", f"model call failed: {exc}")
        return {
            "claim_evidence": evidence, "judge_attempts": answered(attempt, None, f"the model call failed: {exc}"),
            "computation": None, "judge_confidence": None, "judge_leaning": None, "judge_calibrated": True,
            "judge_alignment": None, "trace": [record],
        }
    record, error = answer_record(traced, reply, step=judge_step(state), cap=cap)
    return {
        "claim_evidence": evidence, "judge_attempts": answered(attempt, None if error else reply.payload, error),
        "computation": None, "trace": [record],
        "judge_confidence": ruling.confidence, "judge_leaning": ruling.leaning, "judge_calibrated": ruling.calibrated,
        "judge_alignment": ruling.alignment,
    }
