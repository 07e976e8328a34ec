"""Verdicts a person can trust, end to end through `veracity.check` (offline, demo knowledge base)."""

from __future__ import annotations

import pytest

import veracity

BARE = "Sydney is the capital of Australia."  # the demo knowledge base says Canberra


DECIDED = [(BARE, "unverifiable, leans refuted")]
"""The demo note on Canberra decides against the bare claim; at the default target the refutation leans."""


def labels(text: str) -> list[tuple[str, str]]:
    """(claim, verdict as shown, without its confidence) for every claim of `text`."""
    report = veracity.check(text, model="offline", search="kb")
    return [(claim.text, report.verdict_for(claim.id).shown_label.rsplit(", 0.", 1)[0])  # type: ignore[union-attr]
            for claim in report.claims]


@pytest.mark.parametrize("framed", [
    "As everyone knows, Sydney is the capital of Australia.",
    "It is well known that Sydney is the capital of Australia.",
    "Sydney is the capital of Australia, right?",
])
def test_framing_does_not_change_the_verdict(framed: str) -> None:
    assert labels(framed) == labels(BARE) == DECIDED


def test_evidence_about_something_else_gives_unverifiable_with_a_reason() -> None:
    report = veracity.check("Berlin is the capital of Germany.", model="offline", search="kb")
    [verdict] = report.verdicts
    assert verdict.label == "unverifiable" and verdict.quote is None and verdict.evidence_id is None
    assert verdict.reason.startswith("The knowledge base has nothing about Berlin")
    assert report.ok and not report.passed


@pytest.mark.parametrize("framed", [
    "Any expert will confirm that Sydney is the capital of Australia.",
    "Did you know that Sydney is the capital of Australia?",
    "Sydney is the capital of Australia, and that's a fact.",
    "Sydney is the capital of Australia, wouldn't you agree?",
])
def test_framings_built_from_other_parts_do_not_change_the_verdict(framed: str) -> None:
    assert labels(framed) == DECIDED


def test_a_claim_naming_its_subject_late_is_not_decided_by_shared_words() -> None:
    report = veracity.check("The largest desert in the world is the Sahara.", model="offline", search="kb")
    [verdict] = report.verdicts
    assert verdict.label == "unverifiable" and verdict.quote is None and "Sahara" in verdict.reason


def test_time_order_is_computed_not_guessed() -> None:
    report = veracity.check("Marie Curie was born before Albert Einstein.", model="offline", search="kb")
    [verdict] = report.verdicts
    assert verdict.label == "supported" and verdict.computation is not None
    assert {used.value for used in verdict.computation.inputs} == {"7 November 1867", "14 March 1879"}
