"""The trace record of one model answer, and the rejection of an answer cut off at its token cap."""

from __future__ import annotations

from veracity.contracts import TraceRecord
from veracity.llm.calls import ModelReply
from veracity.llm.caps import Step, truncation_error
from veracity.step_support.tracing import TracedStep


def answer_record(traced: TracedStep, reply: ModelReply, *, step: Step, cap: int) -> tuple[TraceRecord, str | None]:
    """Record `reply` as the outcome of `traced`; return the record and the error that rejects it, or None.

    An answer that stopped at its cap is rejected here rather than left to the JSON parser, so the
    gate's retry learns why ("cut off at the 512-token limit"), not only that the JSON ends early.
    A structured request the server refused is noted as the record's reason.
    """
    error = truncation_error(step, cap) if reply.truncated else None
    record = traced.record("failed" if error else "ok", error or reply.note, tokens_in=reply.tokens_in,
                           tokens_out=reply.tokens_out, cache=reply.cache, structured=reply.structured,
                           logprob=reply.logprob)
    return record, error
