"""The difference reader: align a claim with the passage it relies on and name every difference.

`DifferenceReader.read` aligns (`aligner.Aligner`), computes each difference's features and lets the
classifier say how likely it is to change the meaning. `best_alignment` picks, among the passages a
judge scored, the one the claim lines up with best: the sentence it relies on.
"""

from __future__ import annotations

from collections.abc import Sequence

from veracity.offline.difference.aligner import Aligner
from veracity.offline.difference.alignment import Alignment, Difference
from veracity.offline.difference.classifier import DifferenceClassifier, shipped_classifier
from veracity.offline.difference.features import difference_features


class DifferenceReader:
    """Aligns and classifies (see the module docstring)."""

    def __init__(self, *, aligner: Aligner | None = None, classifier: DifferenceClassifier | None = None) -> None:
        """`aligner` and `classifier` default to the shipped ones (loaded on first use)."""
        self.aligner = aligner or Aligner()
        self._classifier = classifier

    @property
    def classifier(self) -> DifferenceClassifier:
        """The classifier in use."""
        if self._classifier is None:
            self._classifier = shipped_classifier()
        return self._classifier

    def align(self, claim: str, passage: str, context: str = "") -> Alignment:
        """The alignment with no difference classified yet (`context`: the text the passage comes from)."""
        return self.aligner.align(claim, passage, context)

    def features(self, alignment: Alignment, entailment: tuple[float, float] | None = None) -> list[dict[str, float]]:
        """Each difference's features (`difference_features`), in order."""
        return [difference_features(d, alignment, self.cosine(d), entailment) for d in alignment.differences]

    def read(self, claim: str, passage: str, entailment: tuple[float, float] | None = None,
             context: str = "") -> Alignment:
        """The alignment with every difference's `changing` probability set."""
        return self.classify(self.align(claim, passage, context), entailment)

    def classify(self, alignment: Alignment, entailment: tuple[float, float] | None = None) -> Alignment:
        """`alignment` with every difference's `changing` probability set."""
        values = self.features(alignment, entailment)
        return alignment.read([self.classifier.probability(v) for v in values], self.classifier.thresholds.refute)

    def cosine(self, difference: Difference) -> float:
        """The static-vector cosine of a difference's two spans (0.0 when one side is empty)."""
        if difference.claim is None or difference.passage is None:
            return 0.0
        return self.aligner.similarity([difference.claim.text.lower()], [difference.passage.text.lower()])[0][0]


def best_alignment(alignments: Sequence[Alignment]) -> Alignment | None:
    """The alignment reaching furthest over the claim (`Alignment.reach`), then with the fewest differences.

    None when there is none.
    """
    return max(alignments, key=lambda a: (round(a.reach, 6), -len(a.differences)), default=None)
