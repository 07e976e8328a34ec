"""The entailment judge's decision read against the differences: what the claim changes decides.

The entailment model reads overlap: "Not refundable" against "can be refunded", one city for
another, a reversed direction all read as entailed. So after the model's decision the claim is
aligned with the sentences it was compared with (`veracity.offline.difference`), and:

1. a meaning-changing difference on a slot both sides fill (a substitution, a swap, a negation or a
   modality on one side only), in the sentence the claim lines up with best, refutes the claim,
   provided that sentence reaches at least `min_reach` of the claim (`Alignment.reach`: matched, or
   filled with something else; below it, it is about something else); the reason says what differs;
2. a supported decision stays supported only when the passage it rests on adds no meaning-changing
   difference: an addition (claim content with no counterpart) makes it unverifiable, and so does
   any other difference not read as meaning-preserving;
3. otherwise the model's decision stands.

The alignment the decision was read against travels with it (`Decision.alignment`), so a report can
show the differences and propose the corrected claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from veracity.offline.difference.alignment import Alignment, Difference
from veracity.offline.difference.reader import DifferenceReader, best_alignment
from veracity.offline.judge.decision import Candidate, Decision

MIN_REACH = 0.5
"""The share of the claim a sentence must reach (`Alignment.reach`) before a difference in it refutes the claim."""


@dataclass
class DifferenceRule:
    """Reads the decision against the differences (see the module docstring)."""

    reader: DifferenceReader
    min_reach: float = MIN_REACH

    def apply(self, claim: str, candidates: Sequence[Candidate], decision: Decision) -> Decision:
        """The decision after the differences are read."""
        thresholds = self.reader.classifier.thresholds
        sentences = [c for c in candidates if c.sentences == 1 and c.entailment is not None]
        alignments = [self.read(claim, c) for c in sentences]
        best = best_alignment(alignments)
        if best is not None and best.reach >= self.min_reach:
            changing = best.changing(thresholds.refute, on_slot=True)
            if changing:
                return Decision("refuted", _refuting_reason(changing), sentences[alignments.index(best)],
                                basis="difference", alignment=best)
        if decision.candidate is None:
            return replace(decision, alignment=best)
        relied_on = next((a for c, a in zip(sentences, alignments, strict=True) if c == decision.candidate), None) \
            or self.read(claim, decision.candidate)
        if decision.label != "supported":
            return replace(decision, alignment=relied_on)
        added = relied_on.changing(thresholds.addition, on_slot=False)
        if added:
            return Decision("unverifiable", _addition_reason(added), decision.candidate, basis="addition",
                            alignment=relied_on)
        unexplained = relied_on.changing(thresholds.support)
        if unexplained:
            return Decision("unverifiable", _unexplained_reason(unexplained), decision.candidate, basis="difference",
                            alignment=relied_on)
        return replace(decision, alignment=relied_on)

    def read(self, claim: str, candidate: Candidate) -> Alignment:
        """The claim aligned with a scored passage, its differences read with the model's reading of that passage."""
        p = candidate.entailment
        return self.reader.read(claim, candidate.text, (p.supported, p.refuted) if p is not None else None,
                                context=candidate.context)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _refuting_reason(changing: list[Difference]) -> str:
    said = "; ".join(d.describe() for d in changing[:2])
    return f"{_sentence(said)}."


def _addition_reason(added: list[Difference]) -> str:
    words = ", ".join(f"'{d.claim.text}'" for d in added[:3] if d.claim is not None)
    return f"The passage that agrees with the claim says nothing that matches {words}, so it does not show the claim."


def _unexplained_reason(differences: list[Difference]) -> str:
    said = "; ".join(d.describe() for d in differences[:2])
    return (f"The passage that agrees with the claim differs from it ({said}), and the difference may change "
            "the meaning.")
