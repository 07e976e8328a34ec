"""From a judgement to a verdict: calibrated confidence, then the risk-controlled label.

A supported or refuted judgement keeps its label only when its confidence clears the threshold
certified for the target precision (`risk`); otherwise the verdict is unverifiable, leans to the
label it would have had, and says why. An unverifiable judgement stays unverifiable, with the
probability that it is right. Source mode (an answer checked against a given text) has its own
calibrator and thresholds. Verdicts decided by a rule rather than by the model have theirs, from
hand-labelled cases (`CaseRule`): the calculator's, the permission rule's refutations, and the
difference rule's refutations (a difference the claim makes to the passage it lines up with).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from veracity.contracts import JudgeOutput, rounded_down
from veracity.offline.calibration.confidence import Calibrator, default_calibrator, shipped_calibration
from veracity.offline.calibration.features import judgement_features
from veracity.offline.calibration.risk import DecisiveLabel, RiskControl, default_risk_control
from veracity.offline.judge.judgement import Judgement


@dataclass(frozen=True)
class Ruling:
    """The verdict the offline judge gives: its answer, its confidence, and its lean when held back."""

    answer: dict[str, Any]
    """A `JudgeOutput`-shaped dict: label, reason, evidence_id, quote."""
    confidence: float | None
    """P(the label is right); for an unverifiable verdict that leans, P(the lean is right)."""
    leaning: DecisiveLabel | None = None
    """The label a held-back verdict would have had."""
    calibrated: bool = True
    """False for a chat model's answer with no calibration measured for that judge."""
    alignment: dict[str, Any] | None = None
    """The claim aligned with the passage the offline judge relied on (`contracts.Alignment` as data)."""


def held_back_reason(label: DecisiveLabel, confidence: float, threshold: float | None, min_precision: float,
                     reason: str) -> str:
    """Why a verdict that leans to `label` is unverifiable, followed by the judge's own reason.

    The confidence and the threshold are shown with as many decimals as it takes for the shown
    confidence to be below the shown threshold ("0.943 ... needs 0.945", never "0.94 ... needs 0.94").
    """
    target = f"{min_precision:.0%}"
    if threshold is None:
        return (f"Leans {label} (confidence {rounded_down(confidence)}), but no {label} verdict of this judge is "
                f"certified to be right {target} of the time. {reason}")
    shown, needed = distinct_below(confidence, threshold)
    return (f"Leans {label} (confidence {shown}), but a {label} verdict needs {needed} to be right {target} "
            f"of the time. {reason}")


def distinct_below(value: float, threshold: float, decimals: int = 2) -> tuple[str, str]:
    """`value` and `threshold` (value < threshold) written so that the shown value is below the shown threshold.

    The value is rounded down and the threshold to the nearest, with more decimals until the shown
    value is below the shown threshold (at most six).
    """
    for places in range(decimals, 7):
        low, high = rounded_down(value, places), f"{threshold:.{places}f}"
        if float(low) < float(high):
            return low, high
    return f"{value:.6f}", f"{threshold:.6f}"


def risk_controlled(answer: dict[str, Any], confidence: float | None, risk: RiskControl,
                    min_precision: float) -> Ruling:
    """`answer` as said: its label when its confidence clears the certified threshold, else unverifiable and leaning."""
    label = answer["label"]
    if label == "unverifiable" or confidence is None:
        return Ruling(answer, confidence)
    threshold = risk.threshold(label, min_precision)
    if threshold is not None and confidence >= threshold:
        return Ruling(answer, confidence)
    held = JudgeOutput(
        label="unverifiable", evidence_id=answer["evidence_id"], quote=answer["quote"],
        reason=held_back_reason(label, confidence, threshold, min_precision, answer["reason"]),
    )
    return Ruling(held.model_dump(), confidence, leaning=label)


class MeasuredCalibration(Protocol):
    """A calibration measured for the offline judge on a user's data: the file `veracity calibrate` wrote, as read."""

    @property
    def calibrator(self) -> Calibrator:
        """The confidence of each label, fitted on the user's rows."""
        ...

    @property
    def risk(self) -> RiskControl:
        """The thresholds certified on the user's rows."""
        ...


@dataclass(frozen=True)
class RiskRule:
    """Applies a calibrator and risk-control thresholds at one target precision."""

    min_precision: float
    calibrator: Calibrator
    risk: RiskControl

    @classmethod
    def shipped(cls, min_precision: float, *, source: bool = False) -> RiskRule:
        """The rule with the shipped calibrator and thresholds; `source`: those of source mode."""
        if source:
            return cls(min_precision, *_source_calibration())
        return cls(min_precision, default_calibrator(), default_risk_control())

    @classmethod
    def measured(cls, min_precision: float, calibration: MeasuredCalibration) -> RiskRule:
        """The rule with the calibrator and thresholds of a calibration measured on the user's data."""
        return cls(min_precision, calibration.calibrator, calibration.risk)

    def rule(self, judgement: Judgement) -> Ruling:
        """The verdict for one judgement (see the module docstring).

        A refutation by the permission rule or the difference rule (basis "permission", "difference") is
        calibrated on that rule's cases.
        """
        answer = judgement.output()
        basis = judgement.decision.basis
        if (basis == "permission" and answer["label"] != "unverifiable") or \
                (basis == "difference" and answer["label"] == "refuted"):
            ruling = CaseRule.shipped(basis, self.min_precision).rule(answer)
        else:
            confidence = self.calibrator.confidence(answer["label"], judgement_features(judgement))
            ruling = risk_controlled(answer, confidence, self.risk, self.min_precision)
        return replace(ruling, alignment=judgement.alignment())


CaseSection = Literal["calculator", "permission", "difference"]
"""The shipped sections calibrated on hand-labelled cases."""


@dataclass(frozen=True)
class CaseRule:
    """The same rule for verdicts decided by a rule (the calculator, the permission rule), calibrated on cases.

    Such a verdict has no entailment signals: its confidence is the share of that rule's verdicts
    with the label found right on its hand-labelled cases (smoothed), and its thresholds are
    certified on those cases as the judge's are on its own.
    """

    min_precision: float
    confidence: dict[str, float]
    risk: RiskControl

    @classmethod
    def shipped(cls, section: CaseSection, min_precision: float) -> CaseRule:
        """The rule with the shipped calibration of `section`."""
        return cls(min_precision, *_case_calibration(section))

    def rule(self, answer: dict[str, Any]) -> Ruling:
        """The verdict for a `JudgeOutput`-shaped answer decided by this rule."""
        return risk_controlled(answer, self.confidence.get(answer["label"]), self.risk, self.min_precision)


@functools.cache
def _source_calibration() -> tuple[Calibrator, RiskControl]:
    section = shipped_calibration()["source"]
    return Calibrator.from_dict(section["models"]), RiskControl.from_dict(section["risk"])


@functools.cache
def _case_calibration(name: CaseSection) -> tuple[dict[str, float], RiskControl]:
    section = shipped_calibration()[name]
    return {k: float(v) for k, v in section["confidence"].items()}, RiskControl.from_dict(section["risk"])
