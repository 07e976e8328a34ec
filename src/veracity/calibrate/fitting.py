"""Fitting a judge's calibrator and certifying its risk-control thresholds, on judged rows with gold labels.

The method, for any judge whose verdicts come with named numeric signals:

1. **Halves.** Rows are split by claim (`half_of`, seeded) into a *fit* half, on which the
   calibrator is fitted, and a *certify* half, on which its thresholds are certified; a claim sits
   in one half only, so the certificate rests on rows the calibrator never saw.
2. **Calibrator**: per label the judge gave, a weighted L2 logistic regression (scikit-learn)
   of "this label is right" on the standardised signals, its strength chosen by cross-validation
   grouped by claim, rows weighted so that every group (a dataset, a domain) counts the same.
3. **Risk control**: for supported and refuted, at each target precision of `LEVELS`,
   Learn-then-Test on the certify half (MAPIE's Hoeffding-Bentkus p-values for a binary loss and
   fixed-sequence testing, from the strictest threshold the fit half can speak for down) gives the
   lowest confidence threshold whose precision is at least the target with probability
   ``1 - delta / 2`` per label. A `Guard` then asks that no group fall below the target above it.

scikit-learn and MAPIE are imported only when fitting (the ``calibrate`` extra).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from veracity.contracts import Label
from veracity.offline.calibration.confidence import LogisticModel

HALF_SEED = "veracity-calibration-halves-v1"
FOLD_SEED = "veracity-cv-folds-v1"
FOLDS = 5
LEVELS: tuple[float, ...] = tuple(round(0.5 + 0.01 * i, 2) for i in range(50))
"""Target precisions certified: 0.50 to 0.99."""
CANDIDATE_THRESHOLDS: tuple[float, ...] = tuple(round(0.30 + 0.01 * i, 2) for i in range(70))
"""Confidence thresholds Learn-then-Test chooses among: 0.30 to 0.99."""
GUARD_ROWS = 10
"""A group with at least this many verdicts above a threshold must be right at the target there..."""
GUARD_MARGIN = 0.03
"""... plus this much: a group's few dozen verdicts above a threshold vary by several points from sample to sample."""
MIN_LEARN_ROWS = 30
"""A candidate threshold is tested only when at least this many learning rows clear it: a threshold
nothing clears would open the fixed sequence with a test that cannot pass."""
DELTA = 0.10
"""Allowed probability that the certified precision of the two decisive labels together is missed."""
STRENGTHS = (0.03, 0.1, 0.3, 1.0)
"""Inverse L2 strengths (scikit-learn's C) tried for each label's model."""
LABELS: tuple[Label, ...] = ("supported", "refuted", "unverifiable")
DECISIVE: tuple[Label, ...] = ("supported", "refuted")
BINS = 10


def stable_fraction(seed: str, text: str) -> float:
    """A number in [0, 1) that depends only on `seed` and the stripped `text`."""
    digest = hashlib.sha256(f"{seed}\x00{text.strip()}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def fold_of(claim: str, folds: int = FOLDS, seed: str = FOLD_SEED) -> int:
    """The cross-validation fold of a claim: every row of one claim lands in the same fold."""
    return min(int(stable_fraction(seed, claim) * folds), folds - 1)


def half_of(claim: str) -> str:
    """``fit`` or ``certify``: the calibration half of a claim (every row of one claim in one half)."""
    return "fit" if stable_fraction(HALF_SEED, claim) < 0.5 else "certify"


@dataclass
class Table:
    """Judged rows as arrays: claim, gold label, the judge's label, and its signals (one column per name)."""

    name: str
    claims: list[str]
    gold: np.ndarray
    raw: np.ndarray
    """The judge's label before risk control."""
    features: np.ndarray
    names: tuple[str, ...] = ()
    """The signal of each column."""

    def right(self, label: str) -> np.ndarray:
        """Whether `label` would be right on each row."""
        return np.asarray(self.gold == label)

    def subset(self, keep: np.ndarray) -> Table:
        """The rows where `keep` is true."""
        return Table(self.name, [c for c, k in zip(self.claims, keep, strict=True) if k], self.gold[keep],
                     self.raw[keep], self.features[keep], self.names)


def dataset_weights(datasets: np.ndarray) -> np.ndarray:
    """Row weights with the same total for every group, averaging 1."""
    weights = np.zeros(len(datasets))
    names = np.unique(datasets)
    for name in names:
        mask = datasets == name
        weights[mask] = len(datasets) / (len(names) * mask.sum())
    return weights


def fit_model(features: np.ndarray, right: np.ndarray, weights: np.ndarray, strength: float,
              names: Sequence[str]) -> LogisticModel:
    """A weighted L2 logistic regression of `right` on standardised `features` (columns `names`)."""
    from sklearn.linear_model import LogisticRegression

    mean = features.mean(0) if len(features) else np.zeros(len(names))
    scale = features.std(0) if len(features) else np.ones(len(names))
    scale[scale < 1e-9] = 1.0
    if len(set(right.tolist())) < 2:  # one class only: a constant model at its (smoothed) rate
        rate = (right.sum() + 1) / (len(right) + 2)
        return LogisticModel(tuple(names), tuple(float(v) for v in mean), tuple(float(v) for v in scale),
                             (0.0,) * len(names), math.log(rate / (1 - rate)))
    model = LogisticRegression(C=strength, max_iter=5000)
    model.fit((features - mean) / scale, right.astype(int), sample_weight=weights)
    return LogisticModel(tuple(names), tuple(float(v) for v in mean), tuple(float(v) for v in scale),
                         tuple(float(v) for v in model.coef_[0]), float(model.intercept_[0]))


def predict(model: LogisticModel, features: np.ndarray) -> np.ndarray:
    """P(right) of every row, computed exactly as a check computes it."""
    return np.array([model.probability(dict(zip(model.features, row, strict=True))) for row in features])


def expected_calibration_error(probability: np.ndarray, right: np.ndarray, bins: int = BINS) -> float:
    """Mean |confidence - accuracy| over equal-width confidence bins, weighted by their rows."""
    if not len(probability):
        return float("nan")
    edges = np.linspace(0, 1, bins + 1)
    index = np.clip(np.digitize(probability, edges[1:-1]), 0, bins - 1)
    error = 0.0
    for b in range(bins):
        mask = index == b
        if mask.any():
            error += mask.mean() * abs(probability[mask].mean() - right[mask].mean())
    return float(error)


def scores(probability: np.ndarray, right: np.ndarray) -> dict[str, Any]:
    """AUC (when both outcomes occur), ECE, Brier score and the rows behind them."""
    from sklearn.metrics import roc_auc_score

    both = len(set(right.tolist())) == 2
    return {"rows": int(len(right)), "base_rate": float(right.mean()) if len(right) else float("nan"),
            "auc": float(roc_auc_score(right, probability)) if both else None,
            "ece": expected_calibration_error(probability, right),
            "brier": float(np.mean((probability - right) ** 2)) if len(right) else float("nan")}


def precision_p_values(confidence: np.ndarray, right: np.ndarray, thresholds: Sequence[float],
                       target: float) -> np.ndarray:
    """Per threshold, the p-value of "precision above it is below `target`" (Hoeffding-Bentkus, binary loss)."""
    from mapie.risk_control.methods import compute_hoeffding_bentkus_p_value

    risks, counts = [], []
    for threshold in thresholds:
        kept = confidence >= threshold
        risks.append(1.0 - right[kept].mean() if kept.any() else 1.0)
        counts.append(max(int(kept.sum()), 1))
    values = compute_hoeffding_bentkus_p_value(np.array(risks), np.array(counts, dtype=float), 1.0 - target,
                                               binary=True)
    return np.asarray(values)[:, 0]


def certified(confidence: np.ndarray, right: np.ndarray, target: float, delta: float,
              candidates: Sequence[float] = CANDIDATE_THRESHOLDS,
              learn: tuple[np.ndarray, np.ndarray] | None = None) -> list[float]:
    """Every candidate threshold whose precision Learn-then-Test certifies at `target`, lowest first.

    Precision of the verdicts with confidence at or above the threshold, certified with
    probability ``1 - delta`` (MAPIE's Hoeffding-Bentkus p-values for a binary loss and its
    family-wise error control). With `learn` (confidences and outcomes of other, independent
    rows), fixed-sequence testing: from the strictest threshold that at least `MIN_LEARN_ROWS`
    learning rows clear (chosen on them alone) down to the loosest, stopping at the first that
    fails, so there is no multiplicity cost. Without it, Bonferroni-Holm over all candidates.
    """
    from mapie.risk_control import control_fwer

    if len(confidence) == 0:
        return []
    candidates = list(candidates)
    if learn is None:
        valid = control_fwer(precision_p_values(confidence, right, candidates, target), delta, "bonferroni_holm")
        return sorted(candidates[i] for i in valid)
    ordered = sorted((t for t in candidates if (learn[0] >= t).sum() >= MIN_LEARN_ROWS), reverse=True)
    if not ordered:
        return []
    valid = control_fwer(precision_p_values(confidence, right, ordered, target), delta, "fixed_sequence")
    return sorted(ordered[i] for i in valid)


@dataclass(frozen=True)
class Guard:
    """Rows a certified threshold is also held against, one group at a time.

    Their confidences should come from models that did not see them (out of fold), and may cover
    more rows than the certificate's: the guard is a check of each kind of data, not a test.
    """

    confidence: np.ndarray
    right: np.ndarray
    groups: np.ndarray

    def holds(self, threshold: float, target: float) -> bool:
        """No group with `GUARD_ROWS` rows or more at or above `threshold` is right less often than target + margin."""
        above = self.confidence >= threshold
        return all(self.right[above & (self.groups == group)].mean() >= min(target + GUARD_MARGIN, 1.0)
                   for group in np.unique(self.groups) if (above & (self.groups == group)).sum() >= GUARD_ROWS)


def certify(confidence: np.ndarray, right: np.ndarray, target: float, delta: float,
            candidates: Sequence[float] = CANDIDATE_THRESHOLDS,
            learn: tuple[np.ndarray, np.ndarray] | None = None, guard: Guard | None = None) -> float | None:
    """The lowest certified threshold (see `certified`) that also passes the `guard`, or None.

    A pooled certificate holds for the mixture of the calibration data; the guard keeps one kind
    of data from paying for another's easy verdicts.
    """
    for threshold in certified(confidence, right, target, delta, candidates, learn):
        if guard is None or guard.holds(threshold, target):
            return threshold
    return None


def certify_levels(confidence: np.ndarray, right: np.ndarray, delta: float, levels: Sequence[float] = LEVELS,
                   candidates: Sequence[float] = CANDIDATE_THRESHOLDS,
                   learn: tuple[np.ndarray, np.ndarray] | None = None,
                   guard: Guard | None = None) -> list[float | None]:
    """`certify` at every target level (a level no threshold reaches gives None)."""
    return [certify(confidence, right, level, delta, candidates, learn, guard) for level in levels]


def choose_strength(features: np.ndarray, right: np.ndarray, datasets: np.ndarray, folds: np.ndarray,
                    names: Sequence[str]) -> float:
    """The L2 strength with the lowest grouped cross-validated weighted log loss."""
    best, best_loss = STRENGTHS[0], math.inf
    for strength in STRENGTHS:
        loss, total = 0.0, 0.0
        for fold in range(FOLDS):
            train, held = folds != fold, folds == fold
            if not held.any() or not train.any():
                continue
            model = fit_model(features[train], right[train], dataset_weights(datasets[train]), strength, names)
            p = np.clip(predict(model, features[held]), 1e-6, 1 - 1e-6)
            w = dataset_weights(datasets[held])
            loss += float(-(w * (right[held] * np.log(p) + (1 - right[held]) * np.log(1 - p))).sum())
            total += float(w.sum())
        if total and loss / total < best_loss:
            best, best_loss = strength, loss / total
    return best


def reliability(probability: np.ndarray, right: np.ndarray, bins: int = BINS) -> list[dict[str, Any]]:
    """Per confidence bin: rows, mean confidence and share right (for the diagram)."""
    edges = np.linspace(0, 1, bins + 1)
    index = np.clip(np.digitize(probability, edges[1:-1]), 0, bins - 1)
    return [{"low": float(edges[b]), "high": float(edges[b + 1]), "rows": int((index == b).sum()),
             "confidence": float(probability[index == b].mean()) if (index == b).any() else None,
             "right": float(right[index == b].mean()) if (index == b).any() else None} for b in range(bins)]


def cross_validation(table: Table, datasets: np.ndarray, label: Label, strength: float) -> dict[str, Any]:
    """Out-of-fold scores per group (5 folds grouped by claim) and leave-one-group-out scores."""
    mask = table.raw == label
    features, right, names = table.features[mask], table.right(label)[mask], datasets[mask]
    folds = np.array([fold_of(c) for c, k in zip(table.claims, mask, strict=True) if k], dtype=int)
    out_of_fold = np.zeros(len(right))
    per_fold: dict[str, list[dict[str, Any]]] = {str(n): [] for n in np.unique(names)}
    for fold in range(FOLDS):
        train, held = folds != fold, folds == fold
        if not held.any():
            continue
        model = fit_model(features[train], right[train], dataset_weights(names[train]), strength, table.names)
        out_of_fold[held] = predict(model, features[held])
        for name in per_fold:
            rows = held & (names == name)
            if rows.sum() >= 5:
                per_fold[name].append(scores(out_of_fold[rows], right[rows]))
    left_out = {}
    for name in np.unique(names) if len(np.unique(names)) > 1 else ():
        held = names == name
        model = fit_model(features[~held], right[~held], dataset_weights(names[~held]), strength, table.names)
        left_out[str(name)] = scores(predict(model, features[held]), right[held])

    def spread(values: list[float]) -> dict[str, float]:
        return {"mean": float(np.mean(values)), "std": float(np.std(values)), "folds": len(values)} if values else {}

    return {
        "confidence_out_of_fold": out_of_fold,
        "out_of_fold": {str(n): scores(out_of_fold[names == n], right[names == n]) for n in np.unique(names)},
        "pooled_out_of_fold": scores(out_of_fold, right),
        "fold_spread": {n: {k: spread([f[k] for f in folds_ if f[k] is not None]) for k in ("auc", "ece")}
                        for n, folds_ in per_fold.items()},
        "leave_one_dataset_out": left_out,
        "reliability": reliability(out_of_fold, right),
    }


@dataclass
class Fitted:
    """What `fit_and_certify` found: a model per label, thresholds per decisive label, and the figures behind them."""

    models: dict[Label, LogisticModel]
    thresholds: dict[Label, list[float | None]]
    report: dict[str, Any] = field(default_factory=dict)
    """``calibrator`` (per label: strength, cross-validation, fit rows) and ``risk`` (delta, levels, thresholds)."""
    out_of_fold: dict[Label, np.ndarray] = field(default_factory=dict)
    """Each label's out-of-fold confidences on the rows the judge gave that label (for a reliability diagram)."""


def fit_and_certify(everything: Table, datasets: np.ndarray, halves: np.ndarray, *, delta: float = DELTA,
                    default_target: float = 0.90, say: Callable[[str], None] | None = None) -> Fitted:
    """Fit a model per label on the fit half, cross-validate it, and certify thresholds on the certify half."""
    fit_rows, certify_rows = halves == "fit", halves == "certify"
    report: dict[str, Any] = {"calibrator": {}}
    models: dict[Label, LogisticModel] = {}
    folds = np.array([fold_of(c) for c in everything.claims], dtype=int)
    for label in LABELS:
        mask = everything.raw == label
        right = everything.right(label)
        strength = choose_strength(everything.features[mask], right[mask], datasets[mask], folds[mask],
                                   everything.names)
        cv = cross_validation(everything, datasets, label, strength)
        fit = mask & fit_rows
        models[label] = fit_model(everything.features[fit], right[fit], dataset_weights(datasets[fit]), strength,
                                  everything.names)
        report["calibrator"][label] = {"strength": strength, "cross_validation": cv, "fit_rows": int(fit.sum())}
        if say is not None:
            auc = cv["pooled_out_of_fold"]["auc"]
            say(f"{label}: C={strength}, out-of-fold AUC {auc if auc is None else round(auc, 3)}, "
                f"ECE {cv['pooled_out_of_fold']['ece']:.3f}")

    thresholds: dict[Label, list[float | None]] = {}
    certify_report: dict[str, dict[str, Any]] = {}
    for label in DECISIVE:
        mask = (everything.raw == label) & certify_rows
        confidence = predict(models[label], everything.features[mask])
        right = everything.right(label)[mask]
        learn_rows = (everything.raw == label) & fit_rows
        learn = (predict(models[label], everything.features[learn_rows]), everything.right(label)[learn_rows])
        every = everything.raw == label
        guard = Guard(report["calibrator"][label]["cross_validation"]["confidence_out_of_fold"],
                      everything.right(label)[every], datasets[every])
        thresholds[label] = certify_levels(confidence, right, delta / 2, learn=learn, guard=guard)
        at_default = thresholds[label][LEVELS.index(default_target)]
        names = datasets[mask]
        above = confidence >= (at_default if at_default is not None else 2.0)
        certify_report[label] = {
            "rows": int(mask.sum()), "share_right": float(right.mean()) if mask.any() else None,
            "at_default_target": {
                str(n): {"rows": int(((names == n) & above).sum()),
                         "share_right": float(right[(names == n) & above].mean()) if ((names == n) & above).any()
                         else None}
                for n in np.unique(names)
            },
        }
    report["risk"] = {"delta": delta, "levels": list(LEVELS), "thresholds": thresholds,
                      "certify_rows": certify_report}
    out_of_fold = {label: report["calibrator"][label]["cross_validation"].pop("confidence_out_of_fold")
                   for label in LABELS}
    return Fitted(models, thresholds, report, out_of_fold)


def coverage_at(fitted: Fitted, table: Table, halves: np.ndarray, target: float) -> dict[str, Any]:
    """On the certify half: the share of rows left decisive at `target`, and how often those are right."""
    index = LEVELS.index(target)
    certify = halves == "certify"
    kept = np.zeros(len(table.raw), bool)
    for label in DECISIVE:
        threshold = fitted.thresholds[label][index]
        mask = (table.raw == label) & certify
        if threshold is not None and mask.any():
            kept[mask] = predict(fitted.models[label], table.features[mask]) >= threshold
    right = table.gold == table.raw
    rows = int(certify.sum())
    return {"rows": rows, "decisive": int(kept.sum()), "coverage": float(kept.sum() / rows) if rows else 0.0,
            "precision": float(right[kept].mean()) if kept.any() else None}
