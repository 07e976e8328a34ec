"""Calibrated confidence and risk-controlled verdicts: the shipped data, the lookups and the rule."""

from __future__ import annotations

import math
import re

import pytest

from veracity.contracts import Evidence, Verdict
from veracity.offline.calibration.confidence import Calibrator, LogisticModel, default_calibrator, shipped_calibration
from veracity.offline.calibration.features import FEATURES, judgement_features
from veracity.offline.calibration.risk import RiskControl, check_min_precision, default_risk_control
from veracity.offline.calibration.ruling import CaseRule, RiskRule, held_back_reason
from veracity.offline.judge.decision import Candidate, Decision
from veracity.offline.judge.judgement import Judgement
from veracity.offline.judge.signals import compute_signals
from veracity.offline.model.entailment import Probabilities

CLAIM = "The museum opened in 1990."
ITEM = Evidence(id="c1-e1", claim_id="c1", title="City Museum", text="The museum opened in 1990 to the public.",
                backend="kb")


def judgement(label: str, supported: float = 0.9, refuted: float = 0.05) -> Judgement:
    passage = ITEM.text
    candidate = Candidate(evidence_id=ITEM.id, text=passage, start=0, end=len(passage), similarity=0.8,
                          signals=compute_signals(CLAIM, passage, about=ITEM.title), about=ITEM.title,
                          entailment=Probabilities(supported, refuted, 1 - supported - refuted))
    decision = Decision(label, f"scripted {label}", candidate if label != "unverifiable" else None,  # type: ignore[arg-type]
                        basis="entailment")
    return Judgement(CLAIM, decision, (candidate,), (ITEM,), (ITEM,))


def constant(probability: float) -> LogisticModel:
    """A model that gives every judgement the same probability."""
    return LogisticModel(FEATURES, (0.0,) * len(FEATURES), (1.0,) * len(FEATURES), (0.0,) * len(FEATURES),
                         math.log(probability / (1 - probability)))


RISK = RiskControl(levels=(0.8, 0.9, 0.95), thresholds={"supported": (0.7, 0.85, None), "refuted": (0.9, None, None)},
                   delta=0.1)


def rule(probability: float, min_precision: float = 0.9) -> RiskRule:
    calibrator = Calibrator({label: constant(probability) for label in ("supported", "refuted", "unverifiable")})
    return RiskRule(min_precision, calibrator, RISK)


def test_a_logistic_model_reads_its_features_by_name() -> None:
    model = LogisticModel(("a", "b"), (1.0, 0.0), (2.0, 1.0), (1.0, -1.0), 0.5)
    assert model.probability({"a": 3.0, "b": 1.0}) == pytest.approx(1 / (1 + math.exp(-(0.5 + 1.0 - 1.0))))
    assert model.probability({}) == pytest.approx(1 / (1 + math.exp(-(0.5 - 0.5))))  # missing features are 0
    assert LogisticModel.from_dict(model.to_dict()) == model


def test_a_malformed_model_is_refused() -> None:
    with pytest.raises(ValueError, match="one mean, scale and weight"):
        LogisticModel.from_dict({"features": ["a"], "mean": [0, 1], "scale": [1], "weights": [1], "bias": 0})
    with pytest.raises(ValueError, match="positive"):
        LogisticModel.from_dict({"features": ["a"], "mean": [0], "scale": [0], "weights": [1], "bias": 0})
    with pytest.raises(ValueError, match="unknown labels"):
        Calibrator.from_dict({"maybe": constant(0.5).to_dict()})


def test_a_target_between_levels_takes_the_stricter_one_and_one_above_them_has_no_threshold() -> None:
    assert RISK.threshold("supported", 0.9) == 0.85
    assert RISK.threshold("supported", 0.86) == 0.85  # the next level up
    assert RISK.threshold("supported", 0.5) == 0.7
    assert RISK.threshold("supported", 0.95) is None  # not certified there
    assert RISK.threshold("supported", 0.97) is None  # above the grid
    assert RISK.threshold("refuted", 0.0) == 0.0  # 0: no risk control


@pytest.mark.parametrize("bad", [-0.1, 1.0, 1.5, "0.9", True])
def test_a_target_precision_must_be_from_0_to_below_1(bad: object) -> None:
    with pytest.raises(ValueError, match="min_precision"):
        check_min_precision(bad)  # type: ignore[arg-type]


def test_a_confident_verdict_keeps_its_label() -> None:
    ruling = rule(0.9).rule(judgement("supported"))
    assert ruling.answer["label"] == "supported" and ruling.leaning is None
    assert ruling.confidence == pytest.approx(0.9)


def test_a_verdict_below_its_threshold_is_unverifiable_and_leans() -> None:
    ruling = rule(0.8).rule(judgement("supported"))
    assert ruling.answer["label"] == "unverifiable"
    assert ruling.leaning == "supported" and ruling.confidence == pytest.approx(0.8)
    assert ruling.answer["reason"].startswith("Leans supported (confidence 0.80), but a supported verdict needs 0.85")
    assert ruling.answer["quote"] == ITEM.text  # the passage it leaned on is still shown


def test_a_label_with_no_certified_threshold_is_never_decisive() -> None:
    ruling = rule(0.99).rule(judgement("refuted", supported=0.01, refuted=0.95))
    assert ruling.answer["label"] == "unverifiable" and ruling.leaning == "refuted"
    assert "no refuted verdict of this judge is certified to be right 90% of the time" in ruling.answer["reason"]
    assert rule(0.99, min_precision=0.8).rule(judgement("refuted")).answer["label"] == "refuted"
    assert rule(0.01, min_precision=0).rule(judgement("refuted")).answer["label"] == "refuted"  # rule off


def test_an_unverifiable_judgement_stays_unverifiable_with_its_own_confidence() -> None:
    ruling = rule(0.6).rule(judgement("unverifiable"))
    assert ruling.answer["label"] == "unverifiable" and ruling.leaning is None
    assert ruling.confidence == pytest.approx(0.6)


def test_computed_verdicts_follow_the_same_rule_with_their_own_calibration() -> None:
    answer = {"label": "refuted", "reason": "Computed: 140 years; < 150", "evidence_id": "c1-e1", "quote": "q"}
    computed = CaseRule(0.9, {"supported": 0.95, "refuted": 0.8}, RISK)
    held = computed.rule(answer)
    assert held.answer["label"] == "unverifiable" and held.leaning == "refuted" and held.confidence == 0.8
    kept = CaseRule(0.8, {"supported": 0.95, "refuted": 0.95}, RISK).rule(answer)
    assert kept.answer["label"] == "refuted" and kept.leaning is None


def test_features_describe_the_deciding_passage() -> None:
    values = judgement_features(judgement("supported", supported=0.9, refuted=0.05))
    assert set(values) == set(FEATURES)
    assert values["p_for"] == pytest.approx(0.9) and values["p_against"] == pytest.approx(0.05)
    assert values["margin"] > 0 and values["coverage"] == 1.0 and values["missing_words"] == 0
    refuted = judgement_features(judgement("refuted", supported=0.05, refuted=0.9))
    assert refuted["p_for"] == pytest.approx(0.9)  # read for the refuted label
    off = Judgement(CLAIM, Decision("unverifiable", "nothing", basis="off_topic"), (), (ITEM,), ())
    assert judgement_features(off)["off_topic"] == 1.0


def test_the_shipped_calibration_covers_every_label_and_level() -> None:
    calibrator, risk = default_calibrator(), default_risk_control()
    assert set(calibrator.models) == {"supported", "refuted", "unverifiable"}
    for model in calibrator.models.values():
        assert model.features == FEATURES  # fitted on the features the package computes
    assert 0 < risk.delta < 1 and risk.levels[0] <= 0.5 and risk.levels[-1] >= 0.95
    for label in ("supported", "refuted"):
        certified = [t for t in risk.thresholds[label] if t is not None]
        assert all(0 <= t <= 1 for t in certified)
    for section in ("calculator", "permission", "difference"):  # the rules calibrated on their own cases
        computed = shipped_calibration()[section]
        assert set(computed["confidence"]) == {"supported", "refuted"}
        RiskControl.from_dict(computed["risk"])


@pytest.mark.parametrize(("confidence", "threshold"), [
    (0.9449, 0.945), (0.94, 0.9449), (0.80, 0.85), (0.9399, 0.94), (0.501, 0.5011), (0.12, 0.9),
])
def test_a_held_back_verdict_never_shows_a_confidence_that_reaches_the_threshold_it_shows(
        confidence: float, threshold: float) -> None:
    reason = held_back_reason("refuted", confidence, threshold, 0.9, "The evidence contradicts the claim.")
    shown, needed = re.match(r"Leans refuted \(confidence ([0-9.]+)\), but a refuted verdict needs ([0-9.]+) ",
                             reason).groups()
    assert float(shown) < float(needed) and float(shown) <= confidence and abs(float(needed) - threshold) < 0.006


@pytest.mark.parametrize(("confidence", "threshold"), [(0.9187, 0.94), (0.9187, None), (0.625, 0.9), (0.999, None)])
def test_a_held_back_verdict_shows_one_confidence_in_its_label_and_its_reason(
        confidence: float, threshold: float | None) -> None:
    reason = held_back_reason("refuted", confidence, threshold, 0.9, "The evidence contradicts the claim.")
    verdict = Verdict(claim_id="c1", label="unverifiable", leaning="refuted", confidence=confidence, reason=reason)
    in_reason = re.match(r"Leans refuted \(confidence ([0-9.]+)\)", reason).group(1)
    assert verdict.shown_label == f"unverifiable, leans refuted, {in_reason[:4]}"
    assert float(in_reason) <= confidence
