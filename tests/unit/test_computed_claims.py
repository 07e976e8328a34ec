"""Computed claims end to end through `veracity.check` (offline, demo knowledge base, a fixed today)."""

from __future__ import annotations

import pytest

import veracity
from veracity.contracts import Report

TODAY = "2026-11-24"


def check(text: str) -> Report:
    return veracity.check(text, model="offline", search="kb", today=TODAY)


@pytest.mark.parametrize(("text", "label", "value"), [
    ("The Statue of Liberty is over 100 years old.", "supported", "28 October 1886"),
    ("The Sydney Opera House is over 50 years old.", "supported", "20 October 1973"),
    ("The Sydney Opera House is less than 40 years old.", "refuted", "20 October 1973"),
    ("Mount Everest is over 29,000 feet high.", "supported", "8,848.86 metres"),
    ("The Sydney Opera House has over 2,000 rooms.", "refuted", "about 1,000"),
])
def test_computed_verdicts_cite_the_sentence_their_value_came_from(text: str, label: str, value: str) -> None:
    report = check(text)
    [verdict] = report.verdicts
    assert verdict.label == label
    assert verdict.computation is not None and verdict.computation.today is not None
    assert verdict.computation.today.isoformat() == TODAY
    [used] = verdict.computation.inputs
    assert used.value == value and used.value in used.quote
    cited = report.evidence_by_id(used.evidence_id)
    assert cited is not None and used.quote in cited.text
    assert verdict.citation_verified and verdict.quote == used.quote
    assert report.ok and not report.evaluation.issues


def test_arithmetic_is_decided_without_a_search() -> None:
    report = check("2 + 2 = 5.")
    [verdict] = report.verdicts
    assert verdict.label == "refuted" and verdict.computation is not None and verdict.computation.inputs == []
    assert report.evidence == [] and not any(record.step == "gather_evidence" for record in report.trace)
    assert report.ok and not report.passed


def test_true_arithmetic_passes() -> None:
    report = check("2 + 2 = 4.")
    assert report.passed and report.verdicts[0].label == "supported"


def test_division_by_zero_is_unverifiable_not_a_crash() -> None:
    report = check("10 divided by 0 is 3.")
    [verdict] = report.verdicts
    assert verdict.label == "unverifiable" and "division by zero" in verdict.reason


def test_a_computed_claim_without_its_input_is_unverifiable_with_a_reason() -> None:
    report = check("The Colosseum is over 1,900 years old.")
    [verdict] = report.verdicts
    assert verdict.label == "unverifiable" and verdict.quote is None


def test_a_tampered_computation_is_caught_by_the_evaluation() -> None:
    from veracity.calculator.plugin import ShippedCalculator
    from veracity.nodes.evaluate import decisive_problem

    report = check("The Statue of Liberty is over 100 years old.")
    [claim], [verdict] = report.claims, report.verdicts
    assert verdict.computation is not None
    forged = verdict.computation.model_copy(update={"inputs": [
        verdict.computation.inputs[0].model_copy(update={"quote": "It was dedicated on 28 October 1986."}),
    ]})
    problem = decisive_problem(claim, verdict.model_copy(update={"computation": forged}), report.evidence,
                               ShippedCalculator())
    assert problem is not None and "computation input" in problem
    arithmetic = check("2 + 2 = 5.")
    flipped = arithmetic.verdicts[0].model_copy(update={"label": "supported"})
    assert decisive_problem(arithmetic.claims[0], flipped, [], ShippedCalculator()) == (
        "the computation does not reproduce from the claim")


def test_the_clock_is_the_default_today() -> None:
    import datetime

    report = veracity.check("The Statue of Liberty is over 100 years old.", model="offline", search="kb")
    computation = report.verdicts[0].computation
    assert computation is not None and computation.today == datetime.date.today()


def test_a_calculator_fault_is_an_unverifiable_verdict_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    import veracity.calculator.plugin as plugin

    def broken(*_: object) -> None:
        raise ArithmeticError("unit table damaged")

    monkeypatch.setattr(plugin, "calculate", broken)
    report = check("The Statue of Liberty is over 100 years old.")
    [verdict] = report.verdicts
    assert verdict.label == "unverifiable" and "unit table damaged" in verdict.reason
    assert verdict.quote is None
