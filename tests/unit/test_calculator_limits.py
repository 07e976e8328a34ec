"""Limits are bounds the calculator compares: "do not take more than 8 tablets in 24 hours" caps a claimed amount.

Before, "more than 8" was read as 8 to infinity whatever the negation before it, so "you can take up
to 10 tablets a day" was undecided (and "you can take more than 8 tablets a day" supported).
"""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

import veracity
from veracity.calculator import calculate
from veracity.calculator.bounds import compare_limits
from veracity.calculator.limits import rule_figures
from veracity.contracts import Evidence
from veracity.kb import KnowledgeBase

TODAY = datetime.date(2026, 11, 24)


def item(text: str, title: str = "Policy") -> Evidence:
    return Evidence(id="c1-e1", claim_id="c1", title=title, text=text, backend="source")


@pytest.mark.parametrize(("text", "side"), [
    ("Do not take more than 8 tablets in 24 hours.", "most"),
    ("You must not exceed 8 tablets.", "most"),
    ("Never take more than 8 tablets.", "most"),
    ("Take no more than 8 tablets.", "most"),
    ("Take not more than 8 tablets.", "most"),
    ("Take at most 8 tablets.", "most"),
    ("You can take up to 8 tablets.", "most"),
    ("Refunds are limited to a maximum of £500.", "most"),
    ("The express lane is for 5 or fewer items.", "most"),
    ("The express lane is for 5 items or fewer.", "most"),
    ("The maximum daily dose is 8 tablets.", "most"),
    ("Applicants must be at least 18 years old.", "least"),
    ("Groups need no fewer than 4 people.", "least"),
    ("Groups need not less than 4 people.", "least"),
    ("Stays require a minimum of 2 nights.", "least"),
    ("Orders of 3 items or more ship free.", "least"),
    ("You must be 16 or older.", "least"),
    ("Children aged 12 and over may enter.", "least"),
    ("The minimum age is 18.", "least"),
    ("You must not be under 18 years of age.", "least"),
])
def test_a_limit_is_read_as_a_bound_whatever_its_phrasing(text: str, side: str) -> None:
    [figure] = rule_figures(text)
    assert figure.side == side


@pytest.mark.parametrize(("text", "stance"), [
    ("You can take 6 tablets.", "permits"),
    ("Guests may bring 2 pets.", "permits"),
    ("You cannot take 10 tablets.", "forbids"),
    ("Do not bring 3 bags.", "forbids"),
    ("The bridge carries 8 lanes.", None),  # a plain amount: neither
])
def test_a_plain_amount_is_permitted_forbidden_or_neither(text: str, stance: str | None) -> None:
    [figure] = rule_figures(text)
    assert figure.side is None and figure.stance == stance


def test_the_period_a_figure_counts_in_is_read_and_is_no_figure_itself() -> None:
    for text, days in [("Do not take more than 8 tablets in 24 hours.", 1.0), ("Take up to 8 tablets a day.", 1.0),
                       ("Take up to 40 tablets per week.", 7.0), ("Take no more than 2 tablets daily.", 1.0),
                       ("Take up to 8 tablets in any 24-hour period.", 1.0), ("Take up to 8 tablets.", None)]:
        [figure] = rule_figures(text)
        assert figure.period == days, text


TABLETS = "Do not take more than 8 tablets in 24 hours."
MONEY = "Refunds are limited to a maximum of £500."
GUESTS = "Each booking can include no more than 30 guests."
DAYS = "You can keep a library book for at most 14 days."
ITEMS = "The express lane is for 5 or fewer items."
AGE = "Applicants must be at least 18 years old."
NIGHTS = "Stays require a minimum of 2 nights."


@pytest.mark.parametrize(("evidence", "claim", "label"), [
    # an upper limit: a higher claimed limit or amount is refuted, the same limit or an amount within it supported
    (TABLETS, "You can take up to 10 tablets a day.", "refuted"),
    (TABLETS, "You can take up to 8 tablets.", "supported"),
    (TABLETS, "You can take up to 8 tablets a day.", "supported"),
    (TABLETS, "You can take 6 tablets.", "supported"),
    (TABLETS, "You can take 12 tablets.", "refuted"),
    (TABLETS, "You may take up to 6 tablets.", "unverifiable"),  # the source allows 7 and 8 too
    (TABLETS, "You must not take more than 10 tablets a day.", "refuted"),  # a limit of 10, not a denial
    (TABLETS, "You cannot take 10 tablets a day.", "supported"),  # a negated claim: 10 is indeed over the limit
    (MONEY, "You can get a refund of up to £600.", "refuted"),
    (MONEY, "You can get a refund of up to £500.", "supported"),
    (MONEY, "Refunds of £400 are possible.", "supported"),
    (GUESTS, "A booking can include up to 40 guests.", "refuted"),
    (GUESTS, "A booking can include 25 guests.", "supported"),
    (GUESTS, "A booking can include 35 guests.", "refuted"),
    (GUESTS, "A booking cannot include 35 guests.", "supported"),
    (GUESTS, "A booking can include up to 20 guests.", "unverifiable"),
    (DAYS, "You can keep a library book for up to 3 weeks.", "refuted"),  # weeks against days
    (DAYS, "You can keep a library book for up to 2 weeks.", "supported"),
    (DAYS, "You can keep a library book for 10 days.", "supported"),
    (ITEMS, "The express lane is for up to 8 items.", "refuted"),
    (ITEMS, "The express lane is for 5 items or fewer.", "supported"),
    (ITEMS, "The express lane is for up to 3 items.", "unverifiable"),
    # a lower limit mirrors it
    (AGE, "Applicants must be 16 or older.", "refuted"),
    (AGE, "Applicants must be at least 18 years old.", "supported"),
    (AGE, "Applicants must be 21 or older.", "unverifiable"),
    (AGE, "Applicants can be 17 years old.", "refuted"),
    (AGE, "Applicants can be 20 years old.", "supported"),
    (NIGHTS, "Stays require a minimum of 1 night.", "refuted"),
    (NIGHTS, "Stays require at least 3 nights.", "unverifiable"),
    (NIGHTS, "Stays require a minimum of 2 nights.", "supported"),
])
def test_a_claimed_amount_or_limit_is_compared_with_the_evidences_limit(evidence: str, claim: str, label: str) -> None:
    answer = calculate(claim, [item(evidence)], TODAY)
    assert answer is not None and answer.label == label, answer
    [used] = answer.inputs
    assert used.quote == evidence and used.value in used.quote and answer.text.startswith("limit: ")


@pytest.mark.parametrize(("evidence", "claim"), [
    (TABLETS, "Adults can take up to 10 tablets a day."),  # the claim speaks of something the evidence does not
    (TABLETS, "You can take up to 10 ibuprofen tablets a day."),
    ("Children under 12 must not take more than 4 tablets in 24 hours.", "You can take up to 8 tablets a day."),
    (TABLETS, "You can take 10 tablets a week."),  # another period: 10 a week may keep under 8 a day
    (TABLETS, "You can take 6 tablets a week."),
    (TABLETS, "You cannot take 6 tablets."),  # within this limit, yet another rule may forbid it
    ("Children under 12 must not take more than 4 tablets in 24 hours.",
     "Children over 12 can take up to 8 tablets a day."),  # another figure differs: another group
    (MONEY, "You can get a refund of up to $600."),  # another currency
    ("The castle has at least 300 rooms.", "The castle has at least 200 rooms."),  # a description, not a rule
    ("Do not take more than 8 tablets a day or 40 tablets a week.", "You can take up to 10 tablets a day."),
    (TABLETS, "You can take 2 or 3 tablets a day."),  # several figures
])
def test_a_limit_that_may_not_bound_the_claim_decides_nothing(evidence: str, claim: str) -> None:
    assert compare_limits(claim, [item(evidence)], TODAY) is None


def test_two_limits_of_one_kind_that_disagree_are_left_to_the_judge() -> None:
    adults = item(TABLETS, "Paracetamol for adults")
    children = Evidence(id="c1-e2", claim_id="c1", title="Paracetamol for children", backend="kb",
                        text="Do not take more than 4 tablets in 24 hours.")
    assert compare_limits("You can take 6 tablets.", [adults], TODAY) is not None
    assert compare_limits("You can take 6 tablets.", [adults, children], TODAY) is None


def test_a_limit_for_a_group_decides_a_claim_about_that_group() -> None:
    source = item(f"{TABLETS} Children under 12 must not take more than 4 tablets in 24 hours.")
    for claim, label in [("Children under 12 can take up to 8 tablets a day.", "refuted"),
                         ("Children under 12 can take up to 4 tablets a day.", "supported"),
                         ("You can take up to 8 tablets a day.", "supported")]:  # the children's limit is not yours
        answer = calculate(claim, [source], TODAY)
        assert answer is not None and answer.label == label, (claim, answer)


def test_what_is_counted_is_the_last_noun_of_the_phrase_and_the_rest_is_what_the_claim_speaks_of() -> None:
    leaflet = item(TABLETS, "Paracetamol")
    answer = calculate("You can take up to 10 paracetamol tablets a day.", [leaflet], TODAY)
    assert answer is not None and answer.label == "refuted", answer
    assert compare_limits("You can take up to 10 ibuprofen tablets a day.", [leaflet], TODAY) is None


def test_a_lower_and_an_upper_limit_together_bound_an_amount_both_ways() -> None:
    both = item("An order must include at least 2 items and no more than 8 items.")
    for claim, label in [("An order can include 6 items.", "supported"), ("An order can include 1 item.", "refuted"),
                         ("An order can include 9 items.", "refuted")]:
        answer = calculate(claim, [both], TODAY)
        assert answer is not None and answer.label == label, (claim, answer)


def test_a_negated_comparison_in_the_evidence_is_a_bound_for_every_computation() -> None:
    # before: "do not take more than 8" was read as "over 8", which "more than 8" then matched
    answer = calculate("You can take more than 8 tablets a day.", [item(TABLETS)], TODAY)
    assert answer is not None and answer.label == "refuted", answer


def test_a_limit_decides_in_source_mode_end_to_end() -> None:
    policy = f"Paracetamol dosage. Adults can take 1 or 2 tablets every 4 to 6 hours. {TABLETS} {MONEY} {AGE}"
    for claim, label in [("You can take up to 10 tablets a day.", "refuted"), ("You can take up to 8 tablets.",
                                                                                "supported"),
                         ("You can get a refund of up to £600.", "refuted"), ("Applicants must be 16 or older.",
                                                                              "refuted")]:
        report = veracity.check(claim, model="offline", source_text=policy, today=TODAY.isoformat())
        [verdict] = report.verdicts
        assert verdict.label == label and verdict.computation is not None, (claim, verdict)
        assert verdict.citation_verified and verdict.quote in policy


def test_a_limit_decides_in_knowledge_base_mode_end_to_end(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "paracetamol.md").write_text(f"# Paracetamol\n\nAdults can take 1 or 2 tablets every 4 to 6 hours. "
                                         f"{TABLETS}\n", encoding="utf-8")
    (docs / "bookings.md").write_text(f"# Party bookings\n\n{GUESTS} {MONEY}\n", encoding="utf-8")
    KnowledgeBase(tmp_path / "kb").ingest([docs])
    for claim, label in [("You can take 12 tablets.", "refuted"), ("A booking can include 25 guests.", "supported"),
                         ("You can get a refund of up to £600.", "refuted")]:
        report = veracity.check(claim, model="offline", search="kb", kb_path=str(tmp_path / "kb"),
                                today=TODAY.isoformat())
        [verdict] = report.verdicts
        assert verdict.label == label and verdict.computation is not None, (claim, verdict)
        assert verdict.computation.text.startswith("limit: ")


def test_a_claims_other_figures_must_be_the_evidences_too() -> None:
    source = item("Children over 2 years old must not take more than 4 tablets in 24 hours.")
    answer = calculate("Children over 2 years old can take up to 6 tablets a day.", [source], TODAY)
    assert answer is not None and answer.label == "refuted", answer
    assert compare_limits("Children over 5 years old can take up to 6 tablets a day.", [source], TODAY) is None


def test_two_described_limits_that_differ_are_left_to_the_judge() -> None:
    # "at most 40" follows from "at most 30" as a measure and contradicts it as a rule: no rule word says which
    lake = item("The lake is at most 30 metres deep.", "Lake Tarn")
    assert calculate("The lake is at most 40 metres deep.", [lake], TODAY) is None
    same = calculate("The lake is at most 30 metres deep.", [lake], TODAY)
    assert same is not None and same.label == "supported"
