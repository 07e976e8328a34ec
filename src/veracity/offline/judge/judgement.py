"""What the offline judge found for one claim: its decision, and everything the decision rests on.

A `Judgement` is the judge's raw finding before risk control: the decider's label and reason,
the passages it scored, and which evidence items were about the claim's subject at all. The
calibrator (`veracity.offline.calibration`) reads its signals to say how likely the label is to
be right; `output` turns it into a `JudgeOutput`-shaped answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from veracity.contracts import Evidence, JudgeOutput
from veracity.offline.judge.decision import Candidate, Decision


@dataclass(frozen=True)
class Judgement:
    """The decider's ruling on one claim, with the scored passages and evidence behind it.

    `candidates` are the scored passages of the `relevant` items only (those about the claim's
    subject); with no relevant item, there are none and the decision says why.
    """

    claim: str
    decision: Decision
    candidates: tuple[Candidate, ...]
    evidence: tuple[Evidence, ...]
    relevant: tuple[Evidence, ...]

    @property
    def closest(self) -> Candidate | None:
        """The passage most similar to the claim, or None when nothing was scored."""
        return max(self.candidates, key=lambda c: c.similarity, default=None)

    @property
    def off_topic(self) -> bool:
        """True when evidence was found but none of it is about the claim's subject."""
        return bool(self.evidence) and not self.relevant

    def alignment(self) -> dict[str, Any] | None:
        """The claim aligned with the passage the decision was read against (`contracts.Alignment` as data)."""
        alignment = self.decision.alignment
        return dict(alignment.as_dict()) if alignment is not None else None

    def output(self) -> dict[str, Any]:
        """The decision as a validated `JudgeOutput` dict; an unverifiable one cites the closest passage."""
        return to_judge_output(self.decision, closest=self.closest)


def to_judge_output(decision: Decision, *, closest: Candidate | None = None) -> dict[str, Any]:
    """Turn a decision into a validated `JudgeOutput` dict; unverifiable ones cite `closest` if given."""
    if decision.label == "unverifiable":
        cited = decision.candidate or closest
        output = JudgeOutput(
            label="unverifiable", reason=decision.reason,
            evidence_id=cited.evidence_id if cited else None, quote=cited.text if cited else None,
        )
    elif decision.candidate is None:
        output = JudgeOutput(
            label="unverifiable",
            reason=f"The decider said {decision.label} without citing a passage: {decision.reason}",
        )
    else:
        output = JudgeOutput(
            label=decision.label, reason=decision.reason,
            evidence_id=decision.candidate.evidence_id, quote=decision.candidate.text,
        )
    return output.model_dump()
