"""Verdicts a person can trust, end to end through `veracity.check` (offline, demo knowledge base)."""

from __future__ import annotations

import pytest

import veracity

BARE = "Sydney is the capital of Australia."  # the demo knowledge base says Canberra


def labels(text: str) -> list[tuple[str, str]]:
    report = veracity.check(text, model="offline", search="kb")
    return [(claim.text, report.verdict_for(claim.id).label) for claim in report.claims]  # type: ignore[union-attr]


@pytest.mark.parametrize("framed", [
    "As everyone knows, Sydney is the capital of Australia.",
    "It is well known that Sydney is the capital of Australia.",
    "Sydney is the capital of Australia, right?",
])
def test_framing_does_not_change_the_verdict(framed: str) -> None:
    assert labels(framed) == labels(BARE) == [(BARE, "refuted")]


def test_evidence_about_something_else_gives_unverifiable_with_a_reason() -> None:
    report = veracity.check("Berlin is the capital of Germany.", model="offline", search="kb")
    [verdict] = report.verdicts
    assert verdict.label == "unverifiable" and verdict.quote is None and verdict.evidence_id is None
    assert verdict.reason.startswith("The knowledge base has nothing about Berlin")
    assert report.ok and not report.passed
