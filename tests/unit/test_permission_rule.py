"""The permission rule: a statement that permits what the source forbids outright, or forbids what it permits."""

from __future__ import annotations

import pytest

import veracity
from veracity.offline.calibration.ruling import CaseRule, RiskRule
from veracity.offline.judge.decision import Candidate, Decision
from veracity.offline.judge.judgement import Judgement
from veracity.offline.judge.permission import permission_conflict, stances
from veracity.offline.judge.signals import compute_signals

RULES = ("Refunds are issued to the original card. Gift vouchers cannot be refunded. "
         "Customers may cancel an order before it ships.")


@pytest.mark.parametrize(("claim", "sentence", "forbidden_in"), [
    ("Gift vouchers can be refunded in full.", "Gift vouchers cannot be refunded.", "evidence"),
    ("Interns are allowed to sign contracts.", "Interns are not permitted to sign contracts.", "evidence"),
    ("Camping is permitted on the beach.", "Camping is banned on the beach.", "evidence"),
    ("Customers cannot cancel an order.", "Customers may cancel an order before it ships.", "claim"),
    ("Guests can use the pool at night.", "Guests must not use the pool at night.", "evidence"),
    ("If it rains, guests can use the pool.", "Guests cannot use the pool.", "evidence"),
    ("When it rains, guests cannot use the pool.", "When it rains, guests can use the pool.", "claim"),
])
def test_a_permission_against_an_outright_prohibition_conflicts(claim: str, sentence: str, forbidden_in: str) -> None:
    conflict = permission_conflict(claim, sentence)
    assert conflict is not None and conflict.forbidden_in == forbidden_in
    assert "forbids" in conflict.describe() and "outright" in conflict.describe()


@pytest.mark.parametrize(("claim", "sentence"), [
    ("Gift vouchers can be exchanged.", "Gift vouchers cannot be refunded."),              # another action
    ("Store vouchers can be refunded.", "Gift vouchers cannot be refunded."),              # another subject
    ("Guests can park in zone B.", "Guests cannot park in zone A."),                      # another place
    ("Items can be returned within 14 days.", "Items cannot be returned after 14 days."),  # a limited prohibition
    ("Guests can use the pool by day.", "Guests must not use the pool at night."),         # its limit not repeated
    ("Gift vouchers cannot be refunded.", "Gift vouchers cannot be refunded after a year."),  # the same stance
    ("Guests can use the pool.", "If it rains, guests cannot use the pool."),             # a conditional prohibition
    ("The vouchers were refunded.", "Gift vouchers cannot be refunded."),                 # no modal: not a stance
])
def test_statements_that_only_look_like_a_conflict_are_none(claim: str, sentence: str) -> None:
    assert permission_conflict(claim, sentence) is None


def test_a_stance_reads_subject_action_and_limit() -> None:
    (stance,) = stances("Sale items are final and cannot be returned.")
    assert "item" in stance.subject and len(stance.subject) == 2
    assert not stance.permits and stance.action_word == "returned" and not stance.limited
    (limited,) = stances("Members may not bring guests after 9 pm.")
    assert limited.limited and not limited.permits


def test_the_decider_refutes_by_the_rule_and_the_ruling_uses_its_own_calibration() -> None:
    claim, text = "Gift vouchers can be refunded.", "Gift vouchers cannot be refunded."
    candidate = Candidate(evidence_id="c1-e1", text=text, start=0, end=len(text), similarity=0.9,
                          signals=compute_signals(claim, text))
    decision = Decision("refuted", "permission conflict.", candidate, basis="permission")
    judgement = Judgement(claim=claim, decision=decision, candidates=(candidate,),
                          evidence=(), relevant=())
    ruling = RiskRule.shipped(0.9, source=True).rule(judgement)
    section = CaseRule.shipped("permission", 0.9)
    assert ruling.answer["label"] == "refuted" and ruling.confidence == section.confidence["refuted"]
    assert section.risk.threshold("supported", 0.9) is None  # the rule never supports


def test_source_mode_refutes_a_permission_the_source_forbids() -> None:
    report = veracity.check("Gift vouchers can be refunded within 30 days.", model="offline", source_text=RULES)
    (verdict,) = report.verdicts
    assert verdict.label == "refuted" and not report.passed
    assert verdict.quote == "Gift vouchers cannot be refunded."
    assert verdict.confidence is not None and verdict.confidence >= 0.9


def test_source_mode_refutes_a_prohibition_the_source_does_not_make() -> None:
    report = veracity.check("Customers cannot cancel an order.", model="offline", source_text=RULES)
    (verdict,) = report.verdicts
    assert verdict.label == "refuted" and not report.passed
    assert "cancel an order before it ships" in (verdict.quote or "")
