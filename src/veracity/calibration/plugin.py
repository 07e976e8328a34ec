"""The calibration of a chat-model judge as the core's plug-in (`veracity.protocols.VerdictCalibration`).

A chat model's answer is described by `verdict_signals` (the offline judge's reading of the same
quote and evidence, the quote check, relevance, agreeing sources), given the probability that its
label is right by the calibrator `veracity calibrate` fitted for that model, and held to the
thresholds certified there: exactly what the offline judge's own verdicts go through.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from veracity.calibration.file import CalibrationFile
from veracity.calibration.signals import verdict_signals
from veracity.contracts import Evidence, JudgeOutput
from veracity.offline.calibration.ruling import Ruling, risk_controlled
from veracity.offline.plugin import shipped_judge
from veracity.step_support.payload import validate_payload

__all__ = ["ChatCalibration"]


@dataclass(frozen=True)
class ChatCalibration:
    """Rules a chat model's answers by the calibration measured for that model."""

    calibration: CalibrationFile

    @classmethod
    def read(cls, path: str) -> ChatCalibration:
        """The calibration in the file at `path` (read once per file version)."""
        return cls(CalibrationFile.read(path))

    def rule(self, claim: str, evidence: list[Evidence], answer: Any, *, min_precision: float,
             logprob: float | None = None) -> Ruling:
        """`answer` with its calibrated confidence, kept or held back as unverifiable at `min_precision`.

        `logprob`: the answer's mean token log-probability, where the endpoint returned them.
        """
        output, _ = validate_payload(answer, JudgeOutput)
        if output is None:
            return Ruling(answer, None)
        signals = verdict_signals(claim, evidence, output.label, output.evidence_id, output.quote, shipped_judge(),
                                  logprob)
        confidence = self.calibration.calibrator.confidence(output.label, signals)
        return risk_controlled(output.model_dump(), confidence, self.calibration.risk, min_precision)

