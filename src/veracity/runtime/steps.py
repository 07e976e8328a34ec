"""The two model-driven steps, extraction and judging, each with an LLM and an offline version.

Every version returns a `ModelReply` whose payload the gates validate, so offline output
passes through exactly the same checks as a chat model's.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from veracity.context import Context
from veracity.contracts import Claim, Evidence, ExtractionOutput, JudgeOutput
from veracity.runtime.models import ModelReply, ask_structured
from veracity.prompts.feedback import GATE_FEEDBACK
from veracity.prompts.source import SOURCE_EXTRACT_ADDENDUM, SOURCE_JUDGE_ADDENDUM


class ClaimExtractor(Protocol):
    """Turns a text into an extraction payload."""

    async def extract(self, text: str, context: Context, errors: list[str]) -> ModelReply:
        """Return the raw payload; `errors` are the gate's earlier rejections, newest last."""
        ...


class ClaimJudge(Protocol):
    """Rules on one claim from its evidence."""

    async def judge(
        self, claim: Claim, evidence: list[Evidence], context: Context, *, feedback: str | None, errors: list[str]
    ) -> ModelReply:
        """Return the raw payload; `feedback` comes from a revise round, `errors` from the gate."""
        ...


def _gate_feedback(errors: list[str], max_attempts: int) -> list[HumanMessage]:
    if not errors:
        return []
    return [HumanMessage(GATE_FEEDBACK.format(attempt=len(errors), max_attempts=max_attempts, error=errors[-1]))]


def extraction_messages(text: str, context: Context, errors: list[str], *, source_mode: bool = False) -> list:
    """The extraction prompt, with the last gate error stitched in on a retry."""
    system = context.extraction_prompt + (SOURCE_EXTRACT_ADDENDUM if source_mode else "")
    return [
        SystemMessage(system),
        HumanMessage(f"Text to split into claims:\n\n{text}"),
        *_gate_feedback(errors, context.max_extraction_attempts),
    ]


def format_evidence(evidence: list[Evidence]) -> str:
    """Render evidence items as a list the judge can cite by id."""
    blocks = []
    for item in evidence:
        header = f"[{item.id}] {item.title}".rstrip()
        if item.url:
            header += f" ({item.url})"
        blocks.append(f"{header}\n{item.text.strip()}")
    return "\n\n".join(blocks)


def judge_messages(
    claim: Claim, evidence: list[Evidence], context: Context, *, feedback: str | None, errors: list[str],
    source_mode: bool = False,
) -> list:
    """The judge prompt: claim, evidence, revise feedback, and the last gate error."""
    system = context.judge_prompt + (SOURCE_JUDGE_ADDENDUM if source_mode else "")
    messages = [SystemMessage(system), HumanMessage(f"Claim: {claim.text}\n\nEvidence:\n\n{format_evidence(evidence)}")]
    if feedback:
        messages.append(HumanMessage(feedback))
    return messages + _gate_feedback(errors, context.max_judge_attempts)


class LLMExtractor:
    """Extraction by a chat model."""

    def __init__(self, model: BaseChatModel, *, source_mode: bool = False) -> None:
        self.model = model
        self.source_mode = source_mode

    async def extract(self, text: str, context: Context, errors: list[str]) -> ModelReply:
        """Ask the model for claims."""
        messages = extraction_messages(text, context, errors, source_mode=self.source_mode)
        return await ask_structured(self.model, messages, ExtractionOutput, run_name="extract_claims.model")


class LLMJudge:
    """Judging by a chat model."""

    def __init__(self, model: BaseChatModel, *, source_mode: bool = False) -> None:
        self.model = model
        self.source_mode = source_mode

    async def judge(
        self, claim: Claim, evidence: list[Evidence], context: Context, *, feedback: str | None, errors: list[str]
    ) -> ModelReply:
        """Ask the model for a verdict."""
        messages = judge_messages(
            claim, evidence, context, feedback=feedback, errors=errors, source_mode=self.source_mode
        )
        return await ask_structured(self.model, messages, JudgeOutput, run_name="judge_claim.model")


class OfflineExtractor:
    """The deterministic local claim splitter."""

    def __init__(self, *, source_mode: bool = False) -> None:
        self.source_mode = source_mode

    async def extract(self, text: str, context: Context, errors: list[str]) -> ModelReply:
        """Split the text into claims locally."""
        from veracity.offline.extractor import extract_claims_offline

        return ModelReply(payload=extract_claims_offline(text, source_mode=self.source_mode), tokens_in=0, tokens_out=0)


class OfflineJudgeStep:
    """The local judge (the bundled entailment model over the closest passages), run in a worker thread."""

    def __init__(self) -> None:
        from veracity.offline.entailment_judge import EntailmentJudge

        self._judge = EntailmentJudge()

    async def judge(
        self, claim: Claim, evidence: list[Evidence], context: Context, *, feedback: str | None, errors: list[str]
    ) -> ModelReply:
        """Judge the claim locally; the payload goes through the same verdict gate."""
        payload = await asyncio.to_thread(self._judge.judge, claim.text, evidence, feedback=feedback)
        return ModelReply(payload=payload, tokens_in=0, tokens_out=0)
