"""The trace record of one model answer, and the rejection of an answer cut off at its token cap."""

from __future__ import annotations

from veracity.contracts import TraceRecord
from veracity.llm.calls import ModelReply
from veracity.llm.caps import Step, truncation_error


def answer_record(
    node: str, reply: ModelReply, *, step: Step, cap: int, attempt: int, seconds: float, claim_id: str | None = None,
) -> tuple[TraceRecord, str | None]:
    """Record `reply` for `node`; return the record and the error that rejects it, or None.

    An answer that stopped at its cap is rejected here rather than left to the JSON parser, so the
    gate's retry learns why ("cut off at the 512-token limit"), not only that the JSON ends early.
    A structured request the server refused is noted as the record's reason.
    """
    error = truncation_error(step, cap) if reply.truncated else None
    record = TraceRecord(
        step=node, claim_id=claim_id, attempt=attempt, outcome="failed" if error else "ok",
        reason=error or reply.note, tokens_in=reply.tokens_in, tokens_out=reply.tokens_out, seconds=seconds,
        cache=reply.cache, structured=reply.structured,
    )
    return record, error
