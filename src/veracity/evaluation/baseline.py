"""The similarity-threshold baseline, computed on a judge dataset's rows in the same run.

It labels a claim supported when its best cosine similarity against any single evidence
sentence reaches the threshold, and unverifiable otherwise; it never answers refuted. It is
the reference a judge has to beat, since it uses nothing but local embeddings.
"""

from __future__ import annotations

from collections.abc import Callable

from veracity.contracts import LABELS
from veracity.evaluation.dataset import JudgeRow
from veracity.evaluation.metrics import ClassificationResult, classify

BASELINE_THRESHOLDS = (0.5, 0.6)


def similarity_baselines(
    rows: tuple[JudgeRow, ...], thresholds: tuple[float, ...] = BASELINE_THRESHOLDS,
    on_row: Callable[[], None] | None = None,
) -> dict[str, ClassificationResult]:
    """Score each threshold's baseline on the rows; `on_row()` is called after each row (progress)."""
    from veracity.offline.judge.decision import SimilarityBaselineDecider
    from veracity.offline.judge.reference_judge import OfflineJudge

    judge = OfflineJudge()
    deciders = {f"similarity@{t:g}": SimilarityBaselineDecider(t) for t in thresholds}
    predicted: dict[str, list[str]] = {name: [] for name in deciders}
    for row in rows:
        candidates = judge.candidates(row.claim, row.evidence_items())
        for name, decider in deciders.items():
            predicted[name].append(decider.decide(row.claim, candidates).label)
        if on_row is not None:
            on_row()
    gold = [row.label for row in rows]
    return {name: classify(gold, labels, LABELS) for name, labels in predicted.items()}
