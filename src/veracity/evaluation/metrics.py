"""Classification metrics for judge benchmarks: confusion matrix, per-label scores, balanced accuracy.

Pure Python. Conventions: rows of a confusion matrix are gold labels, columns are predicted
labels, both in the order of `labels`. A ratio whose denominator is zero is 0.0 (a label never
predicted has precision 0.0; a label absent from gold has recall 0.0 and support 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any


def _check(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> None:
    if len(gold) != len(predicted):
        raise ValueError(f"gold has {len(gold)} labels but predicted has {len(predicted)}")
    if not gold:
        raise ValueError("cannot score an empty set of predictions")
    if not labels:
        raise ValueError("labels must not be empty")
    if len(set(labels)) != len(labels):
        raise ValueError(f"labels contain duplicates: {list(labels)}")
    unknown = sorted((set(gold) | set(predicted)) - set(labels))
    if unknown:
        raise ValueError(f"labels not in {list(labels)}: {unknown}")


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def confusion_matrix(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> list[list[int]]:
    """Counts: `matrix[i][j]` = items whose gold label is `labels[i]` and predicted label `labels[j]`.

    Raises ValueError on empty or mismatched inputs and on labels outside `labels`.
    """
    _check(gold, predicted, labels)
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, predicted, strict=True):
        matrix[index[g]][index[p]] += 1
    return matrix


@dataclass(frozen=True)
class LabelScores:
    """Precision, recall and F1 of one label, with its gold count (`support`) and predicted count."""

    precision: float
    recall: float
    f1: float
    support: int
    predicted: int


def _scores_from_matrix(matrix: list[list[int]], labels: Sequence[str]) -> dict[str, LabelScores]:
    scores: dict[str, LabelScores] = {}
    for i, label in enumerate(labels):
        true_positive = matrix[i][i]
        support = sum(matrix[i])
        predicted = sum(row[i] for row in matrix)
        precision = _ratio(true_positive, predicted)
        recall = _ratio(true_positive, support)
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        scores[label] = LabelScores(precision, recall, f1, support, predicted)
    return scores


def per_label_scores(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> dict[str, LabelScores]:
    """Precision, recall and F1 for each label (0.0 wherever a denominator is zero)."""
    return _scores_from_matrix(confusion_matrix(gold, predicted, labels), labels)


def balanced_accuracy(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> float:
    """Mean recall over the labels that occur in `gold` (labels absent from gold are skipped)."""
    scores = per_label_scores(gold, predicted, labels)
    present = [scores[label].recall for label in labels if scores[label].support > 0]
    return sum(present) / len(present)


@dataclass(frozen=True)
class ClassificationResult:
    """All metrics for one set of predictions."""

    labels: tuple[str, ...]
    matrix: tuple[tuple[int, ...], ...]
    per_label: dict[str, LabelScores]
    balanced_accuracy: float
    accuracy: float
    total: int

    def to_markdown(self) -> str:
        """The confusion matrix as a Markdown table (rows: gold, columns: predicted)."""
        header = "| gold \\ predicted | " + " | ".join(self.labels) + " | total |"
        rule = "|---|" + "---:|" * (len(self.labels) + 1)
        rows = [
            f"| {label} | " + " | ".join(str(n) for n in row) + f" | {sum(row)} |"
            for label, row in zip(self.labels, self.matrix, strict=True)
        ]
        totals = [sum(row[j] for row in self.matrix) for j in range(len(self.labels))]
        rows.append("| total | " + " | ".join(str(n) for n in totals) + f" | {self.total} |")
        return "\n".join([header, rule, *rows])

    def scores_markdown(self) -> str:
        """Per-label precision, recall and F1 as a Markdown table."""
        lines = ["| label | precision | recall | F1 | gold | predicted |", "|---|---:|---:|---:|---:|---:|"]
        for label in self.labels:
            s = self.per_label[label]
            lines.append(f"| {label} | {s.precision:.3f} | {s.recall:.3f} | {s.f1:.3f} | {s.support} | {s.predicted} |")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every number."""
        return {
            "labels": list(self.labels),
            "confusion_matrix": [list(row) for row in self.matrix],
            "per_label": {label: asdict(scores) for label, scores in self.per_label.items()},
            "balanced_accuracy": self.balanced_accuracy,
            "accuracy": self.accuracy,
            "total": self.total,
        }


def classify(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> ClassificationResult:
    """Compute the confusion matrix, per-label scores, balanced accuracy and accuracy in one go."""
    matrix = confusion_matrix(gold, predicted, labels)
    per_label = _scores_from_matrix(matrix, labels)
    present = [per_label[label].recall for label in labels if per_label[label].support > 0]
    correct = sum(matrix[i][i] for i in range(len(labels)))
    return ClassificationResult(
        labels=tuple(labels),
        matrix=tuple(tuple(row) for row in matrix),
        per_label=per_label,
        balanced_accuracy=sum(present) / len(present),
        accuracy=correct / len(gold),
        total=len(gold),
    )
