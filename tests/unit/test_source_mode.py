"""Checking an answer against a source text, with a scripted chat model."""

from __future__ import annotations

import pytest

import veracity
from tests.fakes import FakeWorld, claims_reply, verdict_reply

POLICY = ("The customer may return a package within 14 days of the delivery date. "
          "After that period, returns are not accepted.")
WINDOW = "The customer may return a package within 14 days of the delivery date."
PROMISE_TEXT = "I'm so sorry! Although the 14 days have passed, we'll find some solution for you."


def run(world: FakeWorld, text: str):
    return veracity.check(text, model=world.model(), source_text=POLICY, source_title="policy.txt")


def test_faithful_answer_passes_with_only_the_policy_as_evidence(world: FakeWorld) -> None:
    text = "You can return the package within 14 days of delivery."
    world.extract(claims_reply((text, text)))
    world.judge(text, verdict_reply("supported", "c1-e1", WINDOW))
    report = run(world, text)
    assert report.ok and report.mode == "llm+source"
    [evidence] = report.evidence
    assert evidence.text == POLICY and evidence.backend == "source" and evidence.title == "policy.txt"
    assert "must stay within" in world.extraction_prompts[0]
    assert "source document" in world.judge_prompts[text][0]


def test_invented_commitment_fails_and_the_reason_quotes_the_answer(world: FakeWorld) -> None:
    claim = "The company will find some solution for the customer."
    world.extract(claims_reply((claim, "we'll find some solution for you")))
    world.judge(claim, verdict_reply("unverifiable", reason="The policy makes no such promise."))
    report = run(world, PROMISE_TEXT)

    assert not report.ok and report.failures == []
    [issue] = report.evaluation.issues
    assert issue.code == "unsupported_by_source" and not issue.revisable
    assert '"we\'ll find some solution for you"' in issue.message
    verdict = report.verdicts[0]
    expected = 'The answer says "we\'ll find some solution for you", which the source does not support'
    assert verdict.reason.startswith(expected)
    assert report.unsupported_claims == [claim] and report.revisions == 0


def test_contradiction_is_refuted(world: FakeWorld) -> None:
    text = "You have 30 days to return it."
    world.extract(claims_reply((text, text)))
    world.judge(text, verdict_reply("refuted", "c1-e1", WINDOW))
    report = run(world, text)
    assert not report.ok and report.verdicts[0].label == "refuted"
    assert "which the source contradicts" in report.verdicts[0].reason


def test_source_mode_needs_text() -> None:
    with pytest.raises(veracity.ConfigurationError, match="source text"):
        veracity.check("Anything.", model="offline", search="source")
