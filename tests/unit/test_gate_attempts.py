"""The retry protocol both gates share, and the one `GateAttempts` sub-state that carries it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.api import check
from veracity.progress import ProgressEvent
from veracity.state import ClaimState, FactCheckState, GateAttempts, reducers
from veracity.step_support.attempts import Gate, answered, gate_errors, next_attempt

TEXT = "The Sydney Opera House opened in 1973."
NOTE = "Queen Elizabeth II opened the Sydney Opera House in 1973."


def test_the_gate_accepts_retries_with_the_error_then_gives_up() -> None:
    first = Gate("verdict_gate", answered(1, {"label": "?"}), limit=2, claim_id="c1")
    retry = first.reject("bad label", give_up="downgraded")
    assert retry.decision == "retry" and retry.errors == ["bad label"]
    assert retry.record.model_dump(include={"step", "claim_id", "attempt", "outcome", "reason"}) == {
        "step": "verdict_gate", "claim_id": "c1", "attempt": 1, "outcome": "retry", "reason": "bad label"}

    second = Gate("verdict_gate", {**answered(2, None, "the model call failed: boom"), **retry.attempts}, limit=2)
    assert second.call_error == "the model call failed: boom" and second.last_attempt
    gave_up = second.reject("the model call failed: boom", give_up="downgraded")
    assert gave_up.decision == "give_up" and gave_up.errors == ["bad label", "the model call failed: boom"]
    assert (gave_up.record.attempt, gave_up.record.outcome) == (2, "downgraded")

    accepted = Gate("extraction_gate", answered(1, {"claims": []}), limit=3).accept("0 claim(s)")
    assert accepted.attempts == {"decision": "accept"}
    assert (accepted.record.outcome, accepted.record.reason, accepted.record.claim_id) == ("ok", "0 claim(s)", None)


def test_a_limit_of_one_gives_up_at_once() -> None:
    ruling = Gate("extraction_gate", answered(1, "garbage"), limit=1).reject("not JSON", give_up="failed")
    assert (ruling.decision, ruling.record.outcome) == ("give_up", "failed")


def test_attempts_are_counted_from_one_and_errors_feed_the_retry() -> None:
    assert next_attempt(None) == 1 and next_attempt({"attempt": 2}) == 3
    assert gate_errors(None) == [] and gate_errors({"errors": ["e1"]}) == ["e1"]
    assert Gate("extraction_gate", None, limit=3).attempt == 1


@pytest.mark.parametrize(("schema", "key"), [(FactCheckState, "extraction_attempts"), (ClaimState, "judge_attempts")])
def test_both_steps_keep_one_attempts_sub_state_merged_field_by_field(schema: type, key: str) -> None:
    merge = reducers(schema)[key]
    state: GateAttempts = merge(None, answered(1, {"bad": True}))
    state = merge(state, {"errors": ["e1"], "decision": "retry"})
    state = merge(state, answered(2, None, "the model call failed: boom"))
    assert state == {"attempt": 2, "payload": None, "call_error": "the model call failed: boom", "errors": ["e1"],
                     "decision": "retry"}


class Interrupted(Exception):
    """Stands for a crash or Ctrl-C in the middle of a check."""


def test_a_check_interrupted_between_retries_resumes_with_its_attempts(tmp_path: Path) -> None:
    world = FakeWorld().extract({"claims": [{"claim": TEXT}]}, claims_reply((TEXT, TEXT)))
    world.evidence(TEXT, [hit(NOTE)]).judge(TEXT, verdict_reply("supported", "c1-e1", NOTE))
    model, backend, store = world.model(), world.backend(), tmp_path / "checks.sqlite"

    def stop_at_the_retry(event: ProgressEvent) -> None:
        if event.kind == "extracting" and event.attempt == 2:
            raise Interrupted

    with pytest.raises(Interrupted):
        check(TEXT, model=model, backend=backend, checkpoint=store, thread_id="t", on_progress=stop_at_the_retry)
    asked = len(world.extraction_prompts)  # the retry's call may have started before the interruption landed

    report = check(TEXT, model=model, backend=backend, checkpoint=store, thread_id="t")
    assert report.ok and len(world.extraction_prompts) == asked + 1
    assert "claims.0.source" in world.extraction_prompts[-1]  # the saved error came back as the feedback
    gate = [(r.attempt, r.outcome) for r in report.trace if r.step == "extraction_gate"]
    assert gate == [(1, "retry"), (2, "ok")]
