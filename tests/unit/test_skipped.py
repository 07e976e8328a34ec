"""Opinions and predictions are not judged as facts: they are listed on the report as skipped, with why."""

from __future__ import annotations

import pytest

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.offline.extract import extract_claims_offline

FACT = "Sydney is the capital of Australia."


@pytest.mark.parametrize(("statement", "reason"), [
    ("The Eiffel Tower is overrated.", "opinion"),
    ("Shakespeare is the greatest writer ever.", "opinion"),
    ("We predict that the Nile will dry up.", "prediction"),
    ("Experts expect the prices to fall.", "prediction"),
    ("Prices will fall next year.", "prediction"),
    ("The Sun will become a red giant in about 5 billion years.", "prediction"),
])
def test_the_offline_splitter_skips_with_a_reason(statement: str, reason: str) -> None:
    payload = extract_claims_offline(f"{FACT} {statement}")
    assert [claim["claim"] for claim in payload["claims"]] == [FACT]
    assert payload["skipped"] == [{"source": statement.rstrip("."), "reason": reason}]


def test_a_promise_in_source_mode_is_a_claim_not_a_prediction() -> None:
    payload = extract_claims_offline("You will get a refund next week.", source_mode=True)
    assert payload["claims"] and not payload["skipped"]


def test_skipped_statements_are_on_the_report_with_their_span_and_do_not_change_pass() -> None:
    text = "Canberra is the capital of Australia. The Sydney Opera House is overrated."
    report = veracity.check(text, model="offline", search="kb")
    assert [claim.text for claim in report.claims] == ["Canberra is the capital of Australia."]
    [skipped] = report.skipped
    assert skipped.reason == "opinion" and "opinion" in skipped.message
    assert text[skipped.span[0]:skipped.span[1]] == skipped.source == "The Sydney Opera House is overrated"
    assert report.passed


def test_only_opinions_gives_no_claims_and_lists_them() -> None:
    report = veracity.check("The Eiffel Tower is overrated.", model="offline", search="kb")
    assert report.claims == [] and [s.reason for s in report.skipped] == ["opinion"]


def test_the_chat_model_lists_what_it_skipped(world: FakeWorld) -> None:
    text = "The Sydney Opera House opened in 1973. It will host the 2040 Olympics."
    claim = "The Sydney Opera House opened in 1973."
    note = "Queen Elizabeth II opened the Sydney Opera House in 1973."
    payload = claims_reply((claim, "The Sydney Opera House opened in 1973."))
    payload["skipped"] = [{"source": "It will host the 2040 Olympics.", "reason": "prediction"},
                          {"source": "a sentence the text does not have", "reason": "opinion"}]
    world.extract(payload)
    world.evidence(claim, [hit(note)])
    world.judge(claim, verdict_reply("supported", "c1-e1", note))
    report = veracity.check(text, model=world.model(), backend=world.backend())
    assert [(s.source, s.reason) for s in report.skipped] == [("It will host the 2040 Olympics.", "prediction")]
    assert "skipped" in world.extraction_prompts[0]
    assert report.passed


def test_an_unknown_skip_reason_is_a_gate_error_that_is_retried(world: FakeWorld) -> None:
    claim = "The Sydney Opera House opened in 1973."
    bad = claims_reply((claim, claim))
    bad["skipped"] = [{"source": claim, "reason": "boring"}]
    world.extract(bad, claims_reply((claim, claim)))
    world.evidence(claim, [hit(claim)])
    world.judge(claim, verdict_reply("supported", "c1-e1", claim))
    report = veracity.check(claim, model=world.model(), backend=world.backend())
    assert report.ok and "skipped.0.reason" in world.extraction_prompts[1]
