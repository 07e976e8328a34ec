"""The extraction gate holds an answer to the request schema's bound on claims before any fan-out."""

from __future__ import annotations

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.contracts import GateFailure
from veracity.nodes.extract import extraction_schema, statement_limit

TEXT = "The Sydney Opera House opened in 1973."
CLAIM = "The Sydney Opera House opened in 1973."
NOTE = "Queen Elizabeth II opened the Sydney Opera House in 1973."


def flood(count: int) -> dict:
    """An extraction answer with `count` distinct claims, each quoting the text verbatim (valid one by one)."""
    return claims_reply(*((f"The Sydney Opera House opened in 1973 (number {index}).", TEXT)
                          for index in range(count)))


def test_the_gate_bound_is_the_one_the_request_schema_sends() -> None:
    schema = extraction_schema(TEXT)
    assert statement_limit(TEXT) == schema["properties"]["claims"]["maxItems"] == 3
    assert schema["properties"]["skipped"]["maxItems"] == statement_limit(TEXT)


def test_two_thousand_claims_are_rejected_before_any_search_or_judge_call(world: FakeWorld) -> None:
    world.extract(flood(2_000))

    report = veracity.check(TEXT, model=world.model(), backend=world.backend(), max_extraction_attempts=2)

    assert sum(world.search_calls.values()) == 0
    assert sum(world.judge_calls.values()) == 0
    assert report.claims == [] and report.verdicts == []
    assert not report.ok
    [failure] = report.failures
    assert isinstance(failure, GateFailure) and failure.step == "extract" and failure.attempts == 2
    assert all("2,000 claims" in error and "at most 3" in error for error in failure.errors)
    gate = [record.outcome for record in report.trace if record.step == "extraction_gate"]
    assert gate == ["retry", "failed"]


def test_the_rejection_is_sent_back_as_feedback_and_a_bounded_answer_then_passes(world: FakeWorld) -> None:
    world.extract(flood(4), claims_reply((CLAIM, TEXT)))
    world.evidence(CLAIM, [hit(NOTE)])
    world.judge(CLAIM, verdict_reply("supported", "c1-e1", NOTE))

    report = veracity.check(TEXT, model=world.model(), backend=world.backend())

    assert report.ok
    assert "4 claims" in world.extraction_prompts[1] and "at most 3" in world.extraction_prompts[1]
    assert world.judge_calls == {CLAIM: 1}


def test_the_offline_splitter_is_not_held_to_the_model_schema_bound() -> None:
    text = "Iron rusts. Gold shines. Tin melts. Lead sinks."  # four claims, eight words: over the bound of 3

    report = veracity.check(text, model="offline", source_text=text)

    assert statement_limit(text) == 3
    assert len(report.claims) == 4 and not report.failures
