"""Scores of an evaluation: per run, across runs (mean ± standard deviation), and the gate."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from veracity.evaluation.dataset import Dataset
from veracity.evaluation.metrics import ClassificationResult, classify
from veracity.evaluation.rows import FAILED, KIND_LABELS, UNMATCHED, RowOutcome

DEFAULT_METRIC = "balanced_accuracy"

SCORE_METRICS = ("balanced_accuracy", "pass_score", "macro_f1", "accuracy")
"""Whole-run scores between 0 and 1, usable with `--min-score` (per-label ones are too: 'f1:refuted')."""

COUNT_METRICS = ("judge_failures", "tokens_in", "tokens_out", "wall_seconds")
"""Costs and failure counts, reported with the scores but not gateable."""

PER_LABEL_KINDS = ("precision", "recall", "f1")


@dataclass
class RunResult:
    """One pass over the dataset: every row's outcome and the wall time."""

    kind: str
    outcomes: list[RowOutcome]
    wall_seconds: float

    @property
    def labels(self) -> tuple[str, ...]:
        """The confusion matrix's labels for this dataset kind."""
        return KIND_LABELS[self.kind]

    @cached_property
    def classification(self) -> ClassificationResult | None:
        """Confusion matrix and per-label scores over every judged item (None when there is none)."""
        gold = [label for outcome in self.outcomes for label in outcome.gold]
        predicted = [label for outcome in self.outcomes for label in outcome.predicted]
        return classify(gold, predicted, self.labels) if gold else None

    @property
    def judge_failures(self) -> int:
        """Items whose check failed (a gate, tool or input failure); each one scored 0."""
        return sum(label == FAILED for outcome in self.outcomes for label in outcome.predicted)

    def metrics(self) -> dict[str, float]:
        """Every number of this run by name: scores, per-label scores ('f1:refuted'), failures and costs."""
        values: dict[str, float] = {
            "pass_score": statistics.fmean(outcome.score for outcome in self.outcomes),
            "judge_failures": float(self.judge_failures),
            "tokens_in": float(sum(outcome.tokens_in for outcome in self.outcomes)),
            "tokens_out": float(sum(outcome.tokens_out for outcome in self.outcomes)),
            "wall_seconds": self.wall_seconds,
        }
        result = self.classification
        if result is None:
            return values
        values["balanced_accuracy"] = result.balanced_accuracy
        values["accuracy"] = result.accuracy
        gold_labels = [label for label in self.labels if result.per_label[label].support and label != UNMATCHED]
        f1_scores = [result.per_label[label].f1 for label in gold_labels]
        values["macro_f1"] = statistics.fmean(f1_scores) if f1_scores else 0.0
        for label in self.labels:
            if label == FAILED:
                continue
            scores = result.per_label[label]
            for name in PER_LABEL_KINDS:
                values[f"{name}:{label}"] = getattr(scores, name)
        return values


@dataclass(frozen=True)
class MetricSpread:
    """One metric over several runs."""

    mean: float
    std: float
    min: float
    max: float
    values: tuple[float, ...]

    @classmethod
    def of(cls, values: list[float]) -> MetricSpread:
        """Mean, sample standard deviation (0 for one run), min and max."""
        return cls(
            mean=statistics.fmean(values),
            std=statistics.stdev(values) if len(values) > 1 else 0.0,
            min=min(values),
            max=max(values),
            values=tuple(values),
        )


def aggregate(runs: list[RunResult]) -> dict[str, MetricSpread]:
    """Mean ± standard deviation of every metric across runs (a metric missing from a run is skipped there)."""
    per_run = [run.metrics() for run in runs]
    names = list(dict.fromkeys(name for metrics in per_run for name in metrics))
    return {name: MetricSpread.of([m[name] for m in per_run if name in m]) for name in names}


def gateable(name: str, labels: tuple[str, ...]) -> bool:
    """True for a metric `--min-score` can apply to."""
    if name in SCORE_METRICS:
        return True
    kind, _, label = name.partition(":")
    return kind in PER_LABEL_KINDS and label in labels and label != FAILED


def metric_names(labels: tuple[str, ...]) -> list[str]:
    """The gateable metric names for a dataset kind's labels."""
    per_label = [f"{kind}:{label}" for label in labels if label != FAILED for kind in PER_LABEL_KINDS]
    return [*SCORE_METRICS, *per_label]


@dataclass(frozen=True)
class Gate:
    """The outcome of `--min-score`: the metric's mean over runs against the threshold."""

    metric: str
    min_score: float
    value: float
    std: float
    passed: bool

    def describe(self) -> str:
        """One line for people."""
        verdict = "passed" if self.passed else "FAILED"
        relation = ">=" if self.passed else "<"
        digits = 3
        while digits < 8 and f"{self.value:.{digits}f}" == f"{self.min_score:.{digits}f}" and not self.passed:
            digits += 1  # never print "0.900 < 0.900"
        spread = f" ± {self.std:.3f}" if self.std else ""
        value, threshold = f"{self.value:.{digits}f}", f"{self.min_score:.{digits}f}"
        return f"gate {verdict}: {self.metric} {value}{spread} {relation} {threshold}"


@dataclass
class EvalResult:
    """Everything an evaluation produced: the dataset, how it ran, each run, and the baselines."""

    dataset: Dataset
    settings: dict[str, Any]
    runs: list[RunResult]
    baselines: dict[str, ClassificationResult] = field(default_factory=dict)

    @property
    def labels(self) -> tuple[str, ...]:
        """The confusion matrix's labels."""
        return KIND_LABELS[self.dataset.kind]

    @cached_property
    def aggregate(self) -> dict[str, MetricSpread]:
        """Every metric as mean ± standard deviation over the runs."""
        return aggregate(self.runs)

    def metric(self, name: str) -> MetricSpread:
        """One metric across runs; raise ValueError naming the choices for an unknown or non-gateable name."""
        if not gateable(name, self.labels):
            raise ValueError(f"unknown metric {name!r}; choose one of: {', '.join(metric_names(self.labels))}")
        spread = self.aggregate.get(name)
        if spread is None:
            raise ValueError(f"metric {name!r} could not be computed: the dataset produced no judged items")
        return spread

    def gate(self, metric: str, min_score: float) -> Gate:
        """Compare the metric's mean over runs with `min_score`."""
        spread = self.metric(metric)
        passed = not math.isnan(spread.mean) and spread.mean >= min_score
        return Gate(metric=metric, min_score=min_score, value=spread.mean, std=spread.std, passed=passed)

    def summed_matrix(self) -> list[list[int]] | None:
        """The confusion matrix summed over runs (rows gold, columns predicted)."""
        matrices = [run.classification for run in self.runs if run.classification is not None]
        if not matrices:
            return None
        size = len(self.labels)
        return [[sum(m.matrix[i][j] for m in matrices) for j in range(size)] for i in range(size)]
