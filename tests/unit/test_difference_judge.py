"""The entailment judge reads the differences: a changed slot refutes or holds support back; the report shows them."""

from __future__ import annotations

import dataclasses

import pytest

import veracity
from veracity.contracts import Evidence
from veracity.offline.calibration.ruling import CaseRule, RiskRule
from veracity.offline.judge.decision import Candidate, Decision
from veracity.offline.judge.entailment_judge import EntailmentJudge, JudgeSettings
from veracity.offline.judge.judgement import Judgement
from veracity.offline.judge.signals import compute_signals
from veracity.offline.model.entailment import Probabilities, load_config


class CredulousModel:
    """Reads every passage as entailing the claim, as a model that reads overlap does."""

    config = load_config()

    def probabilities(self, premises, hypothesis):
        return [Probabilities(0.95, 0.03, 0.02) for _ in premises]


SETTINGS = JudgeSettings.from_config()


@pytest.fixture(scope="module")
def judge() -> EntailmentJudge:
    return EntailmentJudge(model=CredulousModel())


def evidence(text: str) -> list[Evidence]:
    return [Evidence(id="e1", claim_id="c1", text=text, title="Notes", backend="source")]


def test_a_city_for_another_is_refuted_and_the_reason_names_both(judge: EntailmentJudge) -> None:
    found = judge.assess("The capital of Provence is Lyon.", evidence("The capital of Provence is Marseille."))
    assert found.decision.label == "refuted"
    assert found.decision.basis == "difference"
    assert "'Marseille'" in found.decision.reason and "'Lyon'" in found.decision.reason
    alignment = found.alignment()
    assert alignment is not None
    assert alignment["corrected_claim"] == "The capital of Provence is Marseille."


def test_the_faithful_claim_stays_supported(judge: EntailmentJudge) -> None:
    found = judge.assess("The capital of Provence is Marseille.", evidence("The capital of Provence is Marseille."))
    assert found.decision.label == "supported"
    assert found.alignment() is not None and not found.alignment()["differences"]


def test_without_the_rule_the_model_alone_passes_the_negated_claim() -> None:
    settings = dataclasses.replace(SETTINGS, rules=SETTINGS.rules - {"differences"})
    alone = EntailmentJudge(model=CredulousModel(), settings=settings)
    found = alone.assess("Sale items are refundable.", evidence("Sale items are non-refundable."))
    assert found.decision.label == "supported"
    assert found.decision.alignment is None


@pytest.mark.parametrize(("claim", "passage", "named"), [
    ("Sale items are refundable.", "Sale items are non-refundable.", "'non'"),
    ("The offer lasts 28 months.", "The offer lasts 28 days.", "'28 days'"),
])
def test_a_supported_reading_with_a_meaning_changing_difference_is_held_back(
        judge: EntailmentJudge, claim: str, passage: str, named: str) -> None:
    found = judge.assess(claim, evidence(passage))
    assert found.decision.label != "supported", found.decision.reason
    assert found.decision.basis == "difference"
    assert named in found.decision.reason


def test_a_source_check_reports_the_alignment_and_proposes_the_correction() -> None:
    report = veracity.check("The capital of Provence is Lyon.", source_text="The capital of Provence is Marseille.",
                            model="offline", cache=False)
    verdict = report.verdicts[0]
    assert "refuted" in (verdict.label, verdict.leaning)
    assert "'Marseille' where the claim says 'Lyon'" in verdict.reason
    assert verdict.alignment is not None
    assert verdict.alignment.corrected_claim == "The capital of Provence is Marseille."
    changed = [d for d in verdict.alignment.differences if (d.changing or 0) >= verdict.alignment.changing_threshold]
    assert [(d.claim.text, d.passage.text) for d in changed if d.claim and d.passage] == [("Lyon", "Marseille")]
    dumped = report.model_dump(mode="json")
    assert dumped["verdicts"][0]["alignment"]["corrected_claim"] == "The capital of Provence is Marseille."
    issue = next(i for i in report.evaluation.issues if i.code == "unsupported_by_source")
    assert 'would read "The capital of Provence is Marseille."' in issue.message


def test_a_refutation_by_a_difference_is_calibrated_on_the_rules_own_cases() -> None:
    claim, text = "The capital of Provence is Lyon.", "The capital of Provence is Marseille."
    candidate = Candidate(evidence_id="c1-e1", text=text, start=0, end=len(text), similarity=0.9,
                          signals=compute_signals(claim, text))
    judgement = Judgement(claim=claim, decision=Decision("refuted", "The source says 'Marseille'.", candidate,
                                                         basis="difference"),
                          candidates=(candidate,), evidence=(), relevant=())
    section = CaseRule.shipped("difference", 0.9)
    for source in (True, False):
        ruling = RiskRule.shipped(0.9, source=source).rule(judgement)
        assert ruling.confidence == section.confidence["refuted"]
    held = Judgement(claim=claim, decision=Decision("unverifiable", "It differs.", candidate, basis="difference"),
                     candidates=(candidate,), evidence=(), relevant=())
    assert RiskRule.shipped(0.9).rule(held).confidence != section.confidence["refuted"]
