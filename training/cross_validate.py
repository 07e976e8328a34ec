"""Cross-validate the entailment judge's thresholds over several calibration sets, and try a stacker.

`calibrate.py` picks the support / refute thresholds on one small calibration part, and they do
not transfer well to the test parts. This script measures how well a threshold choice
*transfers*, by choosing on some rows and scoring on others:

Data (read in place, never copied into the repository)
------------------------------------------------------
Calibration rows (the only rows any choice below is made on):

* ``climatefever_claims``, ``factcheckgpt`` and ``climatefever_pairs``: the *calibration* part
  of ``climatefever_claims.jsonl``, ``factcheckgpt_pairs.dev.jsonl`` and
  ``climatefever_pairs.jsonl`` (``training/claim_split.py``; the sentence-level pairs share
  their claims, and so their part, with the claim-level file);
* ``healthver``: ``../shared/nli/eval/healthver.jsonl``, split by the hash of its hypothesis
  (`healthver_part`, seed `HEALTHVER_SEED`) into a *calibration* half and a *test* half, so a
  claim never sits in both.

Each is capped at ``--cap`` rows (a seeded sample, `capped`). Held out until the end: the
*test* parts of ``climatefever_claims`` and ``factcheckgpt``, HealthVer's test half and a
seeded 2,000-row sample of ``fever_dev_binary.jsonl`` (the same rows as
``benchmarks/offline_judge.py --limit 2000``).

What runs
---------
1. Every row is scored once with the shipped model and passage settings
   (`EntailmentJudge.candidates`, as in `calibrate.py`); the scored passages are cached in
   ``--cache`` so a re-analysis does not score again.
2. **Threshold CV**: rows get one of `FOLDS` folds by the hash of their claim (`fold_of`), the
   same fold for the same claim in every dataset. For each fold, the (support, refute) pair on
   `calibrate.GRID` with the best mean over datasets of 3-way balanced accuracy on the other
   folds, smoothed as in `calibrate.py`, is scored on the held fold. **Leave one dataset out**:
   chosen on the other datasets, scored on the left-out one (the transfer estimate); also
   leave one *source* out, with both Climate-FEVER files left out together, since they share
   claims. The final thresholds are chosen on all calibration rows.
3. **Stacker**: a multinomial logistic regression (`fit_stacker`, numpy, L2, rows weighted so
   that every dataset and, within it, every label weighs the same) on per-row features of the
   scored passages (`FEATURES`), evaluated with the same two schemes.
4. Only then, once: the shipped thresholds, the chosen thresholds and the final stacker on the
   held-out rows. Scores: 3-way balanced accuracy, 2-way (supported against not) and their mean.

Overrides and `contradiction_first` stay as shipped. Run it (repository root)::

    .venv/bin/python training/cross_validate.py              # CV, then the held-out rows
    .venv/bin/python training/cross_validate.py --no-test    # CV only
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import pickle
import random
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
from calibrate import ASSETS, GRID, SMOOTHING, CachingModel, verify
from claim_split import DEFAULT_DATA_DIR, ClaimSplit, read_jsonl

from veracity.calibrate.fitting import FOLD_SEED, FOLDS, fold_of, stable_fraction
from veracity.contracts import LABELS, Evidence
from veracity.evaluation.metrics import balanced_accuracy
from veracity.offline.judge.decision import Candidate
from veracity.offline.judge.entailment_judge import EntailmentDecider, EntailmentJudge, JudgeSettings
from veracity.offline.model.entailment import EntailmentModel

NLI_DIR = DEFAULT_DATA_DIR.parent / "nli" / "eval"
HEALTHVER_SEED = "veracity-healthver-split-v1"
"""Seed of HealthVer's calibration / test halves (hash of the hypothesis below 0.5: calibration)."""
SAMPLE_SEED = 13
"""Seed of the row caps; 13 is also the benchmark's, so the FEVER dev sample is its rows."""
FEVER_ROWS = 2000
BENCHMARK_FILES = {
    "climatefever_claims": "climatefever_claims.jsonl",
    "factcheckgpt": "factcheckgpt_pairs.dev.jsonl",
    "climatefever_pairs": "climatefever_pairs.jsonl",
}
CALIBRATION_SETS = ("climatefever_claims", "factcheckgpt", "climatefever_pairs", "healthver")
TEST_SETS = ("climatefever_claims", "factcheckgpt", "healthver", "fever_dev")
SOURCES = {"climatefever": ("climatefever_claims", "climatefever_pairs"), "factcheckgpt": ("factcheckgpt",),
           "healthver": ("healthver",)}
"""Datasets that share claims, left out together in the leave-one-source-out scheme."""
BINARY = ("supported", "not_supported")
FEATURE_SUPPORT = 0.5
"""Support threshold at which the override outcome features are read (a fixed, untuned value)."""
FEATURES = (
    "top_support", "top_refute", "top_support_any", "min_unverifiable", "refute_of_top_support",
    "support_of_top_refute", "logit_top_support", "logit_top_refute", "mean_support", "mean_refute",
    "max_similarity", "similarity_of_top_support", "coverage_of_top_support", "entity_coverage_of_top_support",
    "signal_on_top_support", "override_refuted", "override_set_aside", "log_passages",
)
"""Per-row stacker features; "top support" is the highest P(supported) of a credible passage."""
RIDGE = 0.01
"""L2 weight of the stacker (standardized features; the row weights sum to 1)."""


def healthver_part(hypothesis: str) -> str:
    """``calibration`` or ``test``: HealthVer's own split, grouped by hypothesis (claim) text."""
    return "calibration" if stable_fraction(HEALTHVER_SEED, hypothesis) < 0.5 else "test"


def capped(rows: list[dict], limit: int | None, seed: int = SAMPLE_SEED) -> list[dict]:
    """All rows, or a seeded sample of `limit` of them in file order (as the benchmark samples)."""
    if limit is None or limit >= len(rows):
        return rows
    keep = sorted(random.Random(seed).sample(range(len(rows)), limit))
    return [rows[i] for i in keep]


def load_rows(name: str, part: str, data_dir: Path, nli_dir: Path, limit: int | None) -> list[dict]:
    """Rows {claim, evidence, label} of one dataset's part, capped at `limit`."""
    if name in BENCHMARK_FILES:
        rows = ClaimSplit(data_dir).rows(BENCHMARK_FILES[name], part)
    elif name == "healthver":
        rows = [{"claim": r["hypothesis"], "evidence": r["premise"], "label": r["label"]}
                for r in read_jsonl(nli_dir / "healthver.jsonl") if healthver_part(r["hypothesis"]) == part]
    elif name == "fever_dev" and part == "test":
        rows = [{"claim": r["hypothesis"], "evidence": r["premise"], "label": r["label"]}
                for r in read_jsonl(nli_dir / "fever_dev_binary.jsonl")]
    else:
        raise ValueError(f"no part {part!r} of {name!r}")
    return [{"claim": r["claim"], "evidence": r["evidence"], "label": r["label"]} for r in capped(rows, limit)]


class ScoreCache:
    """Scored passages of every (dataset, part), kept in a pickle next to the settings they were scored under."""

    def __init__(self, path: Path, fingerprint: dict) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self.entries: dict[str, tuple[list[dict], list[list[Candidate]]]] = {}
        if path.exists():
            stored = pickle.loads(path.read_bytes())
            if stored.get("fingerprint") == fingerprint:
                self.entries = stored["entries"]

    def scored(self, key: str, rows: list[dict], judge: EntailmentJudge) -> list[list[Candidate]]:
        """The candidates of `rows`, scored now unless the cache holds exactly these rows."""
        if key in self.entries and self.entries[key][0] == rows:
            return self.entries[key][1]
        started = time.perf_counter()
        found = [judge.candidates(r["claim"], [Evidence(id="e1", claim_id="c1", text=r["evidence"],
                                                        backend="benchmark")]) for r in rows]
        print(f"  scored {key}: {len(rows)} rows in {time.perf_counter() - started:.0f} s", flush=True)
        self.entries[key] = (rows, found)
        self.path.write_bytes(pickle.dumps({"fingerprint": self.fingerprint, "entries": self.entries}))
        return found


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def row_features(claim: str, found: list[Candidate], feature_decider: EntailmentDecider) -> list[float]:
    """The `FEATURES` of one row's scored passages (zeros, and 1.0 for min_unverifiable, when there are none)."""
    scored = [c for c in found if c.entailment is not None]
    if not scored:
        return [0.0] * 3 + [1.0] + [0.0] * (len(FEATURES) - 4)
    probs = [c.entailment for c in scored]
    credible = [c for c in scored if c.entailment.supported > c.entailment.refuted]
    best_support = max(credible or scored, key=lambda c: c.entailment.supported)
    best_refute = max(scored, key=lambda c: c.entailment.refuted)
    top_support = best_support.entailment.supported if credible else 0.0
    top_refute = best_refute.entailment.refuted
    decision = feature_decider.decide(claim, found)
    passed = top_support >= feature_decider.settings.support
    return [
        top_support, top_refute, max(p.supported for p in probs), min(p.unverifiable for p in probs),
        best_support.entailment.refuted, best_refute.entailment.supported, _logit(top_support), _logit(top_refute),
        float(np.mean([p.supported for p in probs])), float(np.mean([p.refuted for p in probs])),
        max(c.similarity for c in scored), best_support.similarity, best_support.signals.coverage,
        best_support.signals.entity_coverage, float(best_support.signals.contradiction is not None),
        float(passed and decision.label == "refuted"), float(passed and decision.label == "unverifiable"),
        math.log(len(scored)),
    ]


@dataclass
class Scored:
    """One dataset's scored rows as arrays: what the threshold grid and the stacker read."""

    name: str
    rows: list[dict]
    found: list[list[Candidate]]
    gold: np.ndarray
    """Label index into LABELS (binary sets: supported 0, not_supported 1)."""
    folds: np.ndarray
    top_support: np.ndarray
    top_refute: np.ndarray
    features: np.ndarray
    support_side: np.ndarray | None = None
    """[row, support threshold]: the decider's label index with the model's refutations off."""


def prepare(name: str, rows: list[dict], found: list[list[Candidate]], base: JudgeSettings,
            labels: tuple[str, ...] = LABELS, grid: bool = True) -> Scored:
    """Arrays of one dataset; with `grid`, also the support side at every `GRID` threshold."""
    feature_decider = EntailmentDecider(replace(base, support=FEATURE_SUPPORT, refute=2.0))
    top_support, top_refute = [], []
    for candidates in found:
        scored = [c.entailment for c in candidates if c.entailment is not None]
        top_support.append(max((p.supported for p in scored if p.supported > p.refuted), default=0.0))
        top_refute.append(max((p.refuted for p in scored), default=0.0))
    result = Scored(
        name=name, rows=rows, found=found, gold=np.array([labels.index(r["label"]) for r in rows]),
        folds=np.array([fold_of(r["claim"]) for r in rows]), top_support=np.array(top_support),
        top_refute=np.array(top_refute),
        features=np.array([row_features(r["claim"], f, feature_decider) for r, f in zip(rows, found, strict=True)]),
    )
    if grid:
        side = np.zeros((len(rows), len(GRID)), dtype=np.int8)
        for s, support in enumerate(GRID):
            decider = EntailmentDecider(replace(base, support=support, refute=2.0))
            side[:, s] = [LABELS.index(decider.decide(r["claim"], f).label) for r, f in zip(rows, found, strict=True)]
        result.support_side = side
    return result


def correct_counts(data: Scored, folds: int = FOLDS) -> tuple[np.ndarray, np.ndarray]:
    """Correct predictions [fold, label, support, refute] of every threshold pair, and rows [fold, label].

    A row is refuted when its top refute probability reaches the refute threshold and is at
    least its top credible support probability; otherwise it gets the support side's label
    (exactly `EntailmentDecider` with ``contradiction_first`` off, as in `calibrate.score_grid`).
    """
    refuted_index = LABELS.index("refuted")
    cells = data.folds * len(LABELS) + data.gold
    onehot = np.zeros((len(data.gold), folds * len(LABELS)))
    onehot[np.arange(len(cells)), cells] = 1.0
    refuted = (data.top_refute[:, None] >= np.array(GRID)[None, :]) & (data.top_refute >= data.top_support)[:, None]
    correct = np.zeros((folds * len(LABELS), len(GRID), len(GRID)))
    for s in range(len(GRID)):
        predicted = np.where(refuted, refuted_index, data.support_side[:, s][:, None])
        correct[:, s, :] = onehot.T @ (predicted == data.gold[:, None])
    return correct.reshape(folds, len(LABELS), len(GRID), len(GRID)), onehot.sum(0).reshape(folds, len(LABELS))


def grid_scores(correct: np.ndarray, totals: np.ndarray, chosen_folds: np.ndarray) -> np.ndarray:
    """Balanced accuracy [support, refute] on the rows of the folds where `chosen_folds` is true."""
    hits, rows = correct[chosen_folds].sum(0), totals[chosen_folds].sum(0)
    present = rows > 0
    return (hits[present] / rows[present][:, None, None]).mean(0)


def smooth(scores: np.ndarray, steps: int = SMOOTHING) -> np.ndarray:
    """Each cell averaged with its neighbours within `steps` on both axes (cut at the edges, as calibrate.py)."""
    result = np.zeros_like(scores)
    rows, cols = scores.shape
    for i in range(rows):
        for j in range(cols):
            result[i, j] = scores[max(0, i - steps):i + steps + 1, max(0, j - steps):j + steps + 1].mean()
    return result


def choose(per_dataset: list[np.ndarray], steps: int = SMOOTHING) -> tuple[int, int]:
    """Grid indexes (support, refute) with the best smoothed mean over datasets; ties: raw mean, then lowest."""
    raw = np.mean(per_dataset, axis=0)
    smoothed = smooth(raw, steps)
    best = np.lexsort((-raw.ravel(), -smoothed.ravel()))[0]
    return int(best // raw.shape[1]), int(best % raw.shape[1])


def spread(values: list[float]) -> dict:
    """Mean, standard deviation (population), min and max of held-out scores."""
    return {"mean": float(np.mean(values)), "std": float(np.std(values)), "min": float(min(values)),
            "max": float(max(values)), "folds": [round(v, 4) for v in values]}


def threshold_cv(data: dict[str, Scored], folds: int = FOLDS) -> dict:
    """K-fold (grouped by claim), leave-one-dataset-out and leave-one-source-out scores of the threshold choice."""
    counts = {name: correct_counts(d, folds) for name, d in data.items()}
    everything = np.ones(folds, dtype=bool)
    held: dict[str, list[float]] = {name: [] for name in data}
    chosen_per_fold = []
    for fold in range(folds):
        train = np.arange(folds) != fold
        s, r = choose([grid_scores(*counts[name], train) for name in data])
        chosen_per_fold.append((GRID[s], GRID[r]))
        for name in data:
            held[name].append(float(grid_scores(*counts[name], ~train)[s, r]))

    def left_out(groups: dict[str, tuple[str, ...]]) -> dict:
        result = {}
        for members in groups.values():
            others = [n for n in data if n not in members]
            s, r = choose([grid_scores(*counts[n], everything) for n in others])
            for name in members:
                result[name] = {"support": GRID[s], "refute": GRID[r], "chosen_on": others,
                                "balanced_accuracy": float(grid_scores(*counts[name], everything)[s, r])}
        return result

    s, r = choose([grid_scores(*counts[name], everything) for name in data])
    final = {"support": GRID[s], "refute": GRID[r],
             "calibration_balanced_accuracy": {n: float(grid_scores(*counts[n], everything)[s, r]) for n in data}}
    return {
        "kfold": {name: spread(values) for name, values in held.items()},
        "kfold_chosen": [{"support": a, "refute": b} for a, b in chosen_per_fold],
        "leave_one_dataset_out": left_out({name: (name,) for name in data}),
        "leave_one_source_out": left_out({g: m for g, m in SOURCES.items() if all(n in data for n in m)}),
        "final": final,
    }


def fixed_scores(data: dict[str, Scored], support: float, refute: float) -> dict[str, float]:
    """Balanced accuracy of one threshold pair on every dataset (all folds)."""
    s, r = (int(np.argmin(np.abs(np.array(GRID) - value))) for value in (support, refute))
    if not (math.isclose(GRID[s], support) and math.isclose(GRID[r], refute)):
        raise ValueError(f"({support}, {refute}) is not on the threshold grid")
    return {name: float(grid_scores(*correct_counts(d), np.ones(FOLDS, dtype=bool))[s, r]) for name, d in data.items()}


@dataclass
class Stacker:
    """A multinomial logistic regression on standardized `FEATURES`: all it needs to be shipped."""

    mean: list[float]
    scale: list[float]
    weights: list[list[float]]
    """[feature + bias, label]."""
    labels: tuple[str, ...] = LABELS

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """P(label) per row."""
        x = np.hstack([(features - np.array(self.mean)) / np.array(self.scale), np.ones((len(features), 1))])
        logits = x @ np.array(self.weights)
        exp = np.exp(logits - logits.max(1, keepdims=True))
        return exp / exp.sum(1, keepdims=True)

    def predict(self, features: np.ndarray) -> np.ndarray:
        """The most probable label index per row."""
        return self.probabilities(features).argmax(1)


def balanced_weights(gold: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Row weights summing to 1: every group the same total, and every label within a group the same."""
    weights = np.zeros(len(gold))
    groups = np.unique(group)
    for g in groups:
        in_group = group == g
        labels = np.unique(gold[in_group])
        for label in labels:
            cell = in_group & (gold == label)
            weights[cell] = 1.0 / (len(groups) * len(labels) * cell.sum())
    return weights


def fit_stacker(features: np.ndarray, gold: np.ndarray, weights: np.ndarray, ridge: float = RIDGE,
                classes: int = len(LABELS), iterations: int = 100) -> Stacker:
    """Weighted multinomial logistic regression with an L2 penalty (not on the bias), by Newton's method."""
    mean = features.mean(0)
    scale = features.std(0)
    scale[scale < 1e-9] = 1.0
    x = np.hstack([(features - mean) / scale, np.ones((len(features), 1))])
    y = np.eye(classes)[gold]
    dims = x.shape[1]
    penalty = np.full(dims, ridge)
    penalty[-1] = 1e-6
    penalty = np.tile(penalty[:, None], (1, classes))

    def loss(w: np.ndarray) -> float:
        logits = x @ w
        logits -= logits.max(1, keepdims=True)
        log_p = logits - np.log(np.exp(logits).sum(1, keepdims=True))
        return float(-(weights * (y * log_p).sum(1)).sum() + 0.5 * (penalty * w * w).sum())

    w = np.zeros((dims, classes))
    current = loss(w)
    for _ in range(iterations):
        logits = x @ w
        p = np.exp(logits - logits.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        gradient = x.T @ (weights[:, None] * (p - y)) + penalty * w
        hessian = np.zeros((dims, classes, dims, classes))
        for a in range(classes):
            for b in range(classes):
                curvature = weights * p[:, a] * ((a == b) - p[:, b])
                hessian[:, a, :, b] = x.T @ (curvature[:, None] * x)
        hessian = hessian.reshape(dims * classes, dims * classes) + np.diag(penalty.ravel())
        step = np.linalg.solve(hessian, gradient.ravel()).reshape(dims, classes)
        size = 1.0
        while size > 1e-6:
            candidate = w - size * step
            value = loss(candidate)
            if value <= current:
                break
            size /= 2
        else:
            break
        w, improved = candidate, current - value
        current = value
        if improved < 1e-12:
            break
    return Stacker(mean=mean.tolist(), scale=scale.tolist(), weights=w.tolist())


def stacker_cv(data: dict[str, Scored], ridge: float = RIDGE, folds: int = FOLDS) -> dict:
    """The stacker's k-fold, leave-one-dataset-out and leave-one-source-out balanced accuracy."""
    names = list(data)
    features = np.vstack([data[n].features for n in names])
    gold = np.concatenate([data[n].gold for n in names])
    group = np.concatenate([np.full(len(data[n].gold), i) for i, n in enumerate(names)])
    fold = np.concatenate([data[n].folds for n in names])

    def score(train: np.ndarray, test: np.ndarray) -> np.ndarray:
        model = fit_stacker(features[train], gold[train], balanced_weights(gold[train], group[train]), ridge)
        predicted = np.full(len(gold), -1)
        predicted[test] = model.predict(features[test])
        return predicted

    def ba(predicted: np.ndarray, rows: np.ndarray) -> float:
        return balanced_accuracy([LABELS[i] for i in gold[rows]], [LABELS[i] for i in predicted[rows]], LABELS)

    held: dict[str, list[float]] = {n: [] for n in names}
    for f in range(folds):
        predicted = score(fold != f, fold == f)
        for i, n in enumerate(names):
            held[n].append(ba(predicted, (group == i) & (fold == f)))

    def left_out(groups: dict[str, tuple[str, ...]]) -> dict:
        result = {}
        for members in groups.values():
            test = np.isin(group, [names.index(m) for m in members])
            predicted = score(~test, test)
            for m in members:
                result[m] = ba(predicted, group == names.index(m))
        return result

    everything = np.ones(len(gold), dtype=bool)
    final = fit_stacker(features, gold, balanced_weights(gold, group), ridge)
    in_sample = score(everything, everything)
    return {
        "ridge": ridge,
        "kfold": {n: spread(v) for n, v in held.items()},
        "leave_one_dataset_out": left_out({n: (n,) for n in names}),
        "leave_one_source_out": left_out({g: m for g, m in SOURCES.items() if all(n in names for n in m)}),
        "calibration_balanced_accuracy": {n: ba(in_sample, group == i)
                                          for i, n in enumerate(names)},
        "final": asdict(final),
    }


def held_out_scores(gold: list[str], predicted: list[str], binary: bool) -> dict:
    """3-way and 2-way balanced accuracy and their mean (binary sets: 2-way only)."""
    two_gold = ["supported" if g == "supported" else "not_supported" for g in gold]
    two_predicted = ["supported" if p == "supported" else "not_supported" for p in predicted]
    two_way = balanced_accuracy(two_gold, two_predicted, BINARY)
    if binary:
        return {"two_way": two_way}
    three_way = balanced_accuracy(gold, predicted, LABELS)
    return {"three_way": three_way, "two_way": two_way, "mean_3_2": (three_way + two_way) / 2}


def held_out_results(data: dict[str, Scored], methods: dict[str, JudgeSettings], stacker: Stacker) -> dict:
    """Every method on every held-out set (decided by `EntailmentDecider` itself, not the grid)."""
    result = {}
    for name, d in data.items():
        binary = name == "fever_dev"
        gold = [r["label"] for r in d.rows]
        scores = {}
        for method, settings in methods.items():
            decider = EntailmentDecider(settings)
            predicted = [decider.decide(r["claim"], f).label for r, f in zip(d.rows, d.found, strict=True)]
            scores[method] = held_out_scores(gold, predicted, binary)
        scores["stacker"] = held_out_scores(gold, [LABELS[i] for i in stacker.predict(d.features)], binary)
        result[name] = {"rows": len(d.rows), "methods": scores}
    return result


def summary(report: dict) -> str:
    """The readable tables."""
    cv, st = report["thresholds"], report["stacker"]
    names = list(cv["kfold"])
    lines = [f"rows per calibration set: {report['calibration_rows']}", "",
             f"{FOLDS}-fold CV grouped by claim: held-fold 3-way balanced accuracy (mean / std / min / max)",
             f"{'dataset':22} {'thresholds':>30}   {'stacker':>30}"]
    for n in names:
        a, b = cv["kfold"][n], st["kfold"][n]
        lines.append(f"{n:22} {a['mean']:.3f} / {a['std']:.3f} / {a['min']:.3f} / {a['max']:.3f}   "
                     f"{b['mean']:.3f} / {b['std']:.3f} / {b['min']:.3f} / {b['max']:.3f}")
    per_fold = ", ".join(f"{c['support']}/{c['refute']}" for c in cv["kfold_chosen"])
    lines.append(f"thresholds chosen per fold: {per_fold}")
    lines += ["", "leave one dataset out (chosen on the others, scored on it) | leave one source out",
              f"{'dataset':22} {'thresholds (s/r)':>24} {'stacker':>8} | {'thresholds (s/r)':>24} {'stacker':>8}"]
    for n in names:
        a, b = cv["leave_one_dataset_out"][n], cv["leave_one_source_out"].get(n)
        line = (f"{n:22} {a['balanced_accuracy']:.3f} ({a['support']}/{a['refute']})".ljust(47)
                + f" {st['leave_one_dataset_out'][n]:8.3f} |")
        if b:
            line += f" {b['balanced_accuracy']:.3f} ({b['support']}/{b['refute']})".ljust(25)
            line += f" {st['leave_one_source_out'][n]:8.3f}"
        lines.append(line)
    final, shipped = cv["final"], report["shipped_on_calibration"]
    lines += ["", f"final thresholds (all calibration rows): support {final['support']}, refute {final['refute']}",
              f"{'dataset':22} {'final (in-sample)':>18} {'shipped':>8} {'stacker (in-sample)':>20}"]
    for n in names:
        lines.append(f"{n:22} {final['calibration_balanced_accuracy'][n]:18.3f} {shipped[n]:8.3f} "
                     f"{st['calibration_balanced_accuracy'][n]:20.3f}")
    if "test" in report:
        lines += ["", "held-out rows, scored once: 3-way BA / 2-way BA / mean (FEVER dev: binary BA)"]
        for n, t in report["test"].items():
            cells = []
            for method, s in t["methods"].items():
                cells.append(f"{method} " + (f"{s['two_way']:.3f}" if "three_way" not in s else
                                             f"{s['three_way']:.3f}/{s['two_way']:.3f}/{s['mean_3_2']:.3f}"))
            lines.append(f"{n:20} ({t['rows']:4} rows)  " + "   ".join(cells))
    lines.append(f"\nwall time {report['wall_seconds']:.0f} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Score, cross-validate, then (unless --no-test) measure once on the held-out rows."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR, help="the shared benchmarks folder")
    parser.add_argument("--nli-dir", type=Path, default=NLI_DIR, help="the shared NLI eval folder")
    parser.add_argument("--assets", type=Path, default=ASSETS, help="folder of the model and its config.json")
    parser.add_argument("--cap", type=int, default=600, help="seeded sample of at most this many rows per "
                        "calibration set (default 600)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/cv-features.pkl"), help="scored passages")
    parser.add_argument("--out", type=Path, default=Path("/tmp/cv-results.json"), help="JSON results")
    parser.add_argument("--ridge", type=float, default=RIDGE, help="L2 weight of the stacker")
    parser.add_argument("--no-test", action="store_true", help="stop after the cross-validation")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    model = CachingModel(EntailmentModel(folder=args.assets, threads=2))
    shipped = JudgeSettings.from_config(model.config)
    judge = EntailmentJudge(model=model, settings=shipped)
    model_file = args.assets / model.config["model_file"]
    # Entries are reused only for the very same rows, so the fingerprint needs no caps or seeds.
    cache = ScoreCache(args.cache, {"judge": asdict(shipped),
                                    "model_sha256": hashlib.sha256(model_file.read_bytes()).hexdigest()})
    calibration = {}
    for name in CALIBRATION_SETS:
        rows = load_rows(name, "calibration", args.data_dir, args.nli_dir, args.cap)
        calibration[name] = prepare(name, rows, cache.scored(f"{name}/calibration", rows, judge), shipped)
    print(f"calibration rows scored and prepared [{time.perf_counter() - started:.0f} s]", flush=True)

    report: dict = {
        "command": " ".join(["python training/cross_validate.py", *(argv or [])]),
        "calibration_rows": {n: len(d.rows) for n, d in calibration.items()},
        "shipped": {"support": shipped.support, "refute": shipped.refute},
        "shipped_on_calibration": fixed_scores(calibration, shipped.support, shipped.refute),
        "thresholds": threshold_cv(calibration),
        "stacker": stacker_cv(calibration, args.ridge),
        "features": list(FEATURES),
        "settings": {"folds": FOLDS, "fold_seed": FOLD_SEED, "healthver_seed": HEALTHVER_SEED,
                     "sample_seed": SAMPLE_SEED, "cap": args.cap, "grid": [GRID[0], GRID[-1], 0.025],
                     "smoothing_steps": SMOOTHING, "judge": asdict(shipped)},
    }
    final = report["thresholds"]["final"]
    chosen = replace(shipped, support=final["support"], refute=final["refute"])
    for name, d in calibration.items():  # the grid's arithmetic against the decider itself
        verify(d.rows, d.found, chosen, final["calibration_balanced_accuracy"][name])
        verify(d.rows, d.found, shipped, report["shipped_on_calibration"][name])
    print(f"cross-validation done [{time.perf_counter() - started:.0f} s]", flush=True)
    if not args.no_test:
        held_out = {}
        for name in TEST_SETS:
            limit = FEVER_ROWS if name == "fever_dev" else None
            labels = BINARY if name == "fever_dev" else LABELS
            rows = load_rows(name, "test", args.data_dir, args.nli_dir, limit)
            held_out[name] = prepare(name, rows, cache.scored(f"{name}/test", rows, judge), shipped, labels,
                                     grid=False)
        methods = {"shipped": shipped, "cv_thresholds": chosen}
        report["test"] = held_out_results(held_out, methods, Stacker(**report["stacker"]["final"]))
    report["wall_seconds"] = time.perf_counter() - started
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(summary(report))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
