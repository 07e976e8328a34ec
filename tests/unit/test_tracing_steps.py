"""The traced-step helper: one place builds every node's trace record."""

from __future__ import annotations

import re
import time
from pathlib import Path

import veracity
from veracity.step_support.tracing import TracedStep

SOURCE = Path(veracity.__file__).parent


def test_a_traced_step_records_its_step_claim_attempt_outcome_and_time() -> None:
    traced = TracedStep("verdict_gate", claim_id="c1", attempt=2)
    time.sleep(0.002)
    record = traced.record("retry", "bad quote", tokens_in=3, tokens_out=4, cache="hit", structured="tools",
                           logprob=-0.25)
    assert record.model_dump(exclude={"seconds"}) == {
        "step": "verdict_gate", "claim_id": "c1", "attempt": 2, "outcome": "retry", "reason": "bad quote",
        "tokens_in": 3, "tokens_out": 4, "cache": "hit", "structured": "tools", "logprob": -0.25}
    assert record.seconds >= 0.002
    assert traced.record("ok").seconds >= record.seconds  # timed from the step's start, not the record's


def test_defaults_match_a_first_attempt_of_a_step_without_a_claim() -> None:
    record = TracedStep("finalize_report").record("ok", "reliability scored")
    assert (record.claim_id, record.attempt, record.tokens_in, record.cache, record.structured, record.logprob) == (
        None, 1, 0, None, None, None)


def test_no_node_builds_a_trace_record_by_hand() -> None:
    built = [path.relative_to(SOURCE).as_posix() for path in SOURCE.rglob("*.py")
             if re.search(r"\bTraceRecord\((?!BaseModel)", path.read_text(encoding="utf-8"))]
    assert built == ["step_support/tracing.py"]
