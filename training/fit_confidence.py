"""Fit the offline judge's calibrator and certify its risk-control thresholds; write them into the package.

What it does (repository root, runtime environment with the ``calibrate`` extra)::

    .venv/bin/pip install -e '.[calibrate]'
    .venv/bin/python training/fit_confidence.py            # writes assets/calibration/ and the card
    .venv/bin/python training/fit_confidence.py --dry-run  # prints, writes nothing

Steps 2 to 4 are `veracity.calibrate.fitting.fit_and_certify`, the code `veracity calibrate` runs:
that command, given these rows as a file (`calibration_rows.py`), writes the same calibrator and
thresholds as the ``models`` and ``risk`` this script ships. What this script adds is the shipped
file's other sections (source mode, the calculator, the permission rule, the difference rule), the card
and the held-out measurement. ``--cases-only`` recomputes just the rules' sections (after a change to a
rule) and writes them into the shipped file, its models and thresholds untouched.

1. **Judge** every calibration and test row with the shipped judge (`judged_rows`), and read the
   `features.FEATURES` of each judgement.
2. **Halves.** The calibration rows are split by claim (`half_of`, seeded) into a *fit* half, on
   which the calibrator is fitted, and a *certify* half, on which its thresholds are certified. A
   claim sits in one half only, so the certificate rests on rows the calibrator never saw.
3. **Calibrator**: per label the judge can reach, a logistic regression (scikit-learn, L2; its
   strength chosen by grouped cross-validation) that predicts whether that label is right, with
   rows weighted so that every dataset counts the same. Measured by 5-fold cross-validation
   grouped by claim over all calibration rows and by leaving one dataset out: AUC, expected
   calibration error (ECE), Brier score, and a reliability diagram.
4. **Risk control**: for supported and refuted verdicts, and each target precision on a grid
   (`LEVELS`), Learn-then-Test on the certify half (MAPIE's Hoeffding-Bentkus p-values for a
   binary loss and its fixed-sequence family-wise error control, the candidate thresholds tested
   from the strictest the fit half can speak for down) gives the lowest confidence threshold whose precision is
   at least the target with probability ``1 - DELTA / 2``; the two labels together then hold with
   probability ``1 - DELTA``. A certified threshold must also pass a `Guard`: no calibration
   dataset may fall below the target above it (out-of-fold confidences), so FEVER's easy
   verdicts cannot carry the real-world ones. A target no threshold reaches has none: that label
   is never decisive at it. The calculator's verdicts get the same treatment on its own cases
   (`computed_outcomes`), the permission rule's refutations on theirs (`permission_outcomes`), and
   the difference rule's refutations on the contrast set's dev part (`difference_outcomes`).
5. **Held-out measurement**, once: decisive precision and coverage on the test parts at the
   default target (0.90), and without risk control.

Writes ``src/veracity/offline/assets/calibration/confidence.json`` (models, thresholds, record),
``CARD.md`` beside it, and ``docs/calibration-reliability.png``; the full results go to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from calibration_rows import gold_label
from judged_rows import CALIBRATION_SETS, DEFAULT_MEMORY, TEST_SETS, Row, judge_rows, load_rows, shipped_judge

from veracity.calibrate import fitting
from veracity.calibrate.fitting import (
    CANDIDATE_THRESHOLDS,
    DECISIVE,
    DELTA,
    FOLDS,
    GUARD_MARGIN,
    GUARD_ROWS,
    HALF_SEED,
    LABELS,
    LEVELS,
    MIN_LEARN_ROWS,
    STRENGTHS,
    Table,
    certify_levels,
    half_of,
    predict,
)
from veracity.contracts import Label
from veracity.offline.calibration.confidence import LogisticModel, shipped_calibration
from veracity.offline.calibration.features import FEATURES, judgement_features
from veracity.offline.calibration.risk import DEFAULT_MIN_PRECISION
from veracity.offline.judge.judgement import Judgement

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "src" / "veracity" / "offline" / "assets" / "calibration"
DIAGRAM = ROOT / "docs" / "calibration-reliability.png"


def tabulate(name: str, rows: Sequence[Row], judgements: Sequence[Judgement]) -> Table:
    """Arrays of one part: gold, the judge's raw label, and the features of every row."""
    return Table(
        name=name, claims=[r.claim for r in rows], gold=np.array([gold_label(r.label) for r in rows]),
        raw=np.array([j.decision.label for j in judgements]),
        features=np.array([[judgement_features(j)[f] for f in FEATURES] for j in judgements]), names=FEATURES,
    )


def held_out(tests: dict[str, Table], models: dict[Label, LogisticModel], thresholds: dict[Label, list]) -> dict:
    """Decisive precision and coverage on each test part: raw judge, and risk-controlled at the default target."""
    level = LEVELS.index(DEFAULT_MIN_PRECISION)
    result = {}
    for name, table in tests.items():
        decisive_raw = np.isin(table.raw, DECISIVE)
        right_raw = np.array([table.right(str(label))[i] for i, label in enumerate(table.raw)])
        kept = np.zeros(len(table.raw), bool)
        for label in DECISIVE:
            mask = table.raw == label
            threshold = thresholds[label][level]
            if threshold is not None and mask.any():
                kept[mask] = predict(models[label], table.features[mask]) >= threshold
        result[name] = {
            "rows": len(table.raw),
            "before": {"decisive": int(decisive_raw.sum()), "coverage": float(decisive_raw.mean()),
                       "precision": float(right_raw[decisive_raw].mean()) if decisive_raw.any() else None},
            "after": {"decisive": int(kept.sum()), "coverage": float(kept.mean()),
                      "precision": float(right_raw[kept].mean()) if kept.any() else None,
                      "wrong": int((kept & ~right_raw).sum())},
        }
    return result


def draw_reliability(report: dict, path: Path) -> None:
    """One panel per label: out-of-fold confidence against the share right, bar widths by rows."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(LABELS), figsize=(4.2 * len(LABELS), 4.2), constrained_layout=True)
    for axis, label in zip(axes, LABELS, strict=True):
        bins = [b for b in report["calibrator"][label]["cross_validation"]["reliability"] if b["rows"]]
        axis.plot([0, 1], [0, 1], color="grey", linewidth=1, linestyle="--")
        axis.plot([b["confidence"] for b in bins], [b["right"] for b in bins], marker="o")
        for b in bins:
            axis.annotate(str(b["rows"]), (b["confidence"], b["right"]), textcoords="offset points", xytext=(4, -10),
                          fontsize=7)
        pooled = report["calibrator"][label]["cross_validation"]["pooled_out_of_fold"]
        axis.set_title(f"{label} (ECE {pooled['ece']:.3f}, {pooled['rows']} rows)")
        axis.set_xlabel("confidence (out of fold)")
        axis.set_ylabel("share right")
        axis.set_xlim(0, 1)
        axis.set_ylim(0, 1)
    figure.suptitle("Offline judge calibrator: reliability on the calibration rows (5 folds grouped by claim)")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


def card(report: dict) -> str:
    """The calibrator's card (Markdown), from the report."""
    lines = [
        "# Calibrator card: the offline judge's confidence and risk-control thresholds",
        "",
        "Written by `training/fit_confidence.py`; do not edit by hand. The figures below are the script's.",
        "",
        "## What it is",
        "One logistic regression per label the offline judge can reach (supported, refuted, unverifiable), on",
        f"{len(FEATURES)} signals of the judgement (`veracity.offline.calibration.features`). It gives the",
        "probability that the label is right. A supported or refuted verdict keeps its label only when that",
        "probability clears a threshold certified by Learn-then-Test risk control on the certify half: the",
        "precision of the verdicts above it is at least the target with probability "
        f"{1 - DELTA:.0%} for both labels together",
        f"({1 - DELTA / 2:.0%} each; MAPIE 1.x Hoeffding-Bentkus p-values for a binary loss, fixed-sequence",
        f"testing over thresholds {CANDIDATE_THRESHOLDS[0]}-{CANDIDATE_THRESHOLDS[-1]}, from the strictest that "
        f"{MIN_LEARN_ROWS} fit-half rows clear, down).",
        f"A certified threshold must also pass a guard: no calibration dataset with {GUARD_ROWS} or more verdicts",
        f"above it (out-of-fold confidences) may be right less often than the target plus {GUARD_MARGIN} there. "
        "Below the", "threshold the verdict is unverifiable and carries its lean.",
        "",
        "## Data",
        "Calibration rows (the calibration part of `training/claim_split.py`; HealthVer's calibration half):",
        "",
        "| dataset | rows | fit half | certify half |",
        "|---|---:|---:|---:|",
    ]
    for name, counts in report["calibration_rows"].items():
        lines.append(f"| {name} | {counts['all']} | {counts['fit']} | {counts['certify']} |")
    lines += ["", "The calibrator is fitted on the fit half; the thresholds are certified on the certify half (a",
              "claim sits in one half only). Cross-validation below uses all calibration rows.", "",
              "## Calibration quality (5 folds grouped by claim; out-of-fold)", "",
              "| label | C | dataset | rows | share right | AUC (fold mean ± std) | ECE (fold mean ± std) | "
              "AUC left out | ECE left out |", "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for label in LABELS:
        entry = report["calibrator"][label]
        cv = entry["cross_validation"]
        for name, s in cv["out_of_fold"].items():
            spread = cv["fold_spread"].get(name, {})
            auc = spread.get("auc", {})
            ece = spread.get("ece", {})
            left = cv["leave_one_dataset_out"].get(name, {})
            lines.append(
                f"| {label} | {entry['strength']} | {name} | {s['rows']} | {s['base_rate']:.2f} | "
                + (f"{auc['mean']:.3f} ± {auc['std']:.3f}" if auc else "n/a") + " | "
                + (f"{ece['mean']:.3f} ± {ece['std']:.3f}" if ece else "n/a") + " | "
                + (f"{left['auc']:.3f}" if left.get("auc") is not None else "n/a") + " | "
                + (f"{left['ece']:.3f}" if left else "n/a") + " |")
        pooled = cv["pooled_out_of_fold"]
        lines.append(f"| {label} | | all | {pooled['rows']} | {pooled['base_rate']:.2f} | "
                     f"{pooled['auc'] or float('nan'):.3f} | {pooled['ece']:.3f} | | |")
    lines += ["", "Reliability diagram (out-of-fold): `docs/calibration-reliability.png`.", "",
              "## Certified thresholds (certify half)", "",
              "| target precision | supported needs | refuted needs |", "|---:|---:|---:|"]
    risk = report["risk"]
    for level in (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99):
        i = LEVELS.index(level)
        cells = [("none" if risk["thresholds"][label][i] is None else f"{risk['thresholds'][label][i]:.2f}")
                 for label in DECISIVE]
        lines.append(f"| {level:.2f} | {cells[0]} | {cells[1]} |")
    lines += ["", "\"none\": no candidate threshold is certified at that precision, so that label is never decisive",
              "there.", ""]
    source = report["source"]
    lines += ["## Source mode", "",
              "A supported verdict on an answer checked against a source text uses its own calibrator and",
              f"thresholds, fitted the same way on {source['calibration_rows']} FEVER dev rows (claims judged against",
              "the very sentences they restate; their claims are not in the FEVER test sample): there the",
              "evidence is the yardstick, as a source is. A refuted one is held to the real-world calibrator",
              "above: FEVER's refutations are edits of the very sentence, which the model reads well, while an",
              "answer that rewords its source (\"24 months\" for \"2 years\") reads as a contradiction too often.",
              "Certified thresholds:", "",
              "| target precision | supported needs | refuted needs |", "|---:|---:|---:|"]
    for level in (0.8, 0.85, 0.9, 0.95):
        i = LEVELS.index(level)
        cells = [("none" if source["risk"]["thresholds"][label][i] is None
                  else f"{source['risk']['thresholds'][label][i]:.2f}") for label in DECISIVE]
        lines.append(f"| {level:.2f} | {cells[0]} | {cells[1]} |")
    if "held_out" in source:
        point = source["held_out"][SOURCE_SET]
        lines += ["", f"On the FEVER dev test sample at 0.90: decisive precision {_fmt(point['after']['precision'])}, "
                      f"coverage {point['after']['coverage']:.3f} (first reading, no risk control: "
                      f"{_fmt(point['before']['precision'])}, {point['before']['coverage']:.3f})."]
    computed = report["calculator"]
    lines += ["", "## Computed claims", "",
              "The calculator's verdicts get the same rule with their own calibration: per label, the smoothed share",
              "right on the hand-labelled computed cases (`benchmarks/data/trust_computed.jsonl`, not held out: the",
              "calculator was fixed on them), certified the same way.", "",
              "| label | verdicts | right | confidence | certified at 0.90 |", "|---|---:|---:|---:|---|"]
    for label in DECISIVE:
        counts = computed["counts"][label]
        at = computed["risk"]["thresholds"][label][LEVELS.index(DEFAULT_MIN_PRECISION)]
        lines.append(f"| {label} | {counts['verdicts']} | {counts['right']} | {computed['confidence'][label]:.3f} | "
                     f"{'yes' if at is not None else 'no'} |")
    permission = report["permission"]
    counts = permission["counts"]["refuted"]
    at = permission["risk"]["thresholds"]["refuted"][LEVELS.index(DEFAULT_MIN_PRECISION)]
    lines += ["", "## Permission conflicts", "",
              "A refutation by the permission rule (a statement that permits what a sentence of the evidence",
              "forbids outright, or the reverse) gets the same treatment on its own hand-labelled cases",
              "(`benchmarks/data/permission_cases.jsonl`; its first part is not held out, see its README):",
              f"{counts['verdicts']} refutations, {counts['right']} right, confidence "
              f"{permission['confidence']['refuted']:.3f}, certified at 0.90: {'yes' if at is not None else 'no'}."]
    for part, tally in permission["parts"].items():
        lines.append(f"- part {part}: the rule fired on {tally['fired']} of {tally['conflicts']} conflicts and on "
                     f"{tally['false_alarms']} of {tally['others']} other statements.")
    lines += ["", *difference_card(report["difference"])]
    if "held_out" in report:
        lines += ["## Held-out test parts, at the default target 0.90", "",
                  "| part | rows | first reading, no risk control: decisive precision (coverage) | "
                  "risk-controlled: decisive precision (coverage) | wrong decisive |", "|---|---:|---:|---:|---:|"]
        for name, r in report["held_out"].items():
            b, a = r["before"], r["after"]
            lines.append(f"| {name} | {r['rows']} | {_fmt(b['precision'])} ({b['coverage']:.3f}) | "
                         f"{_fmt(a['precision'])} ({a['coverage']:.3f}) | {a['wrong']} |")
        lines.append("")
    lines += ["## Limits",
              "- The guarantee holds for data like the calibration rows: real-world claims judged against",
              "  Wikipedia sentences, web snippets and medical abstracts. Other evidence may differ.",
              "- Knowledge-base and web checks use this calibrator; source mode uses its own (above), calibrated",
              "  on FEVER claims against their own evidence, not on answers checked against policies.",
              "- A lean is never a verdict: an unverifiable verdict that leans supported does not pass a text.", ""]
    return "\n".join(lines)


def difference_card(section: dict) -> list[str]:
    """The card's section on the difference rule's refutations (ends with a blank line)."""
    counts = section["counts"]["refuted"]
    thresholds = section["risk"]["thresholds"]["refuted"]
    certified = [level for level, t in zip(LEVELS, thresholds, strict=True) if t is not None]
    lines = ["## Differences", "",
             "A refutation by the difference rule (a meaning-changing difference between the claim and the sentence",
             "it lines up with: \"Lyon\" where the source says \"Marseille\") gets the same treatment on the contrast",
             "set's dev part (`benchmarks/data/contrast/dev.jsonl`, judged as source-mode checks; not held out: the",
             "rule's settings were chosen on it):",
             f"{counts['verdicts']} refutations, {counts['right']} right, confidence "
             f"{section['confidence']['refuted']:.3f}, certified up to a target of "
             f"{max(certified) if certified else 'none'}.", ""]
    for kind, tally in section["kinds"].items():
        lines.insert(-1, f"- {kind}: refuted {tally['refuted']} of {tally['contradictions']} contradictions and "
                         f"{tally['false_alarms']} of {tally['others']} other rows.")
    return lines


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


COMPUTED_CASES = ROOT / "benchmarks" / "data" / "trust_computed.jsonl"
COMPUTED_TODAY = "2026-11-24"
"""The date the computed cases were labelled for."""


def computed_outcomes(cases: Path = COMPUTED_CASES, today: str = COMPUTED_TODAY) -> list[tuple[str, str]]:
    """(the calculator's label, the hand label) of every computed case the calculator decided.

    Each case goes through the steps a check runs before the calculator: the offline claim splitter
    (a case must give exactly one claim), the demo knowledge base's search (5 items, as a check
    fetches) and the calculator itself, with the date the cases were labelled for.
    """
    import datetime
    import tempfile

    from veracity.calculator import calculate
    from veracity.kb import KnowledgeBase
    from veracity.kb.seeding import ensure_demo

    kb = KnowledgeBase(Path(tempfile.mkdtemp(prefix="veracity-computed-")) / "kb")
    ensure_demo(kb)
    outcomes = []
    for case, claim in single_claim_cases(cases):
        answer = calculate(claim, numbered_evidence("kb", kb.search(claim, 5)), datetime.date.fromisoformat(today))
        if answer is not None:
            outcomes.append((answer.label, case["label"]))
    return outcomes


def single_claim_cases(cases: Path, field: str = "text") -> Iterator[tuple[dict, str]]:
    """Each case of a JSONL file with the one claim the offline splitter finds in its `field` (others are left out)."""
    from veracity.offline.extract import extract_claims_offline

    for line in cases.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        claims = extract_claims_offline(case[field])["claims"]
        if len(claims) == 1:
            yield case, claims[0]["claim"]


def numbered_evidence(backend: str, hits: Sequence) -> list:
    """Search hits as the evidence items of claim c1, numbered as a check numbers them."""
    from veracity.contracts import Evidence

    return [Evidence(id=f"c1-e{n}", claim_id="c1", backend=backend, **hit.model_dump())
            for n, hit in enumerate(hits, 1)]


def source_evidence(claim: str, source: str) -> list:
    """What a source-mode check judges `claim` against: the source text's passages (5, as a check fetches), numbered."""
    import asyncio

    from veracity.evidence.source import SourceTextBackend

    return numbered_evidence("source", asyncio.run(SourceTextBackend(source).search(claim, limit=5)))


PERMISSION_CASES = ROOT / "benchmarks" / "data" / "permission_cases.jsonl"


def permission_outcomes(cases: Path = PERMISSION_CASES) -> list[tuple[str, str, str]]:
    """(the judge's label, the hand label, the part) of every permission case; label "" where the rule did not fire.

    Each case goes through the steps of a source-mode check: the offline claim splitter (a case must
    give exactly one claim), the source text's passages (5, as a check fetches), then the shipped
    judge; only a decision of the permission rule counts as its verdict.
    """
    from veracity.offline.judge.entailment_judge import EntailmentJudge

    judge = EntailmentJudge()
    outcomes = []
    for case, claim in single_claim_cases(cases):
        decision = judge.assess(claim, source_evidence(claim, case["source"])).decision
        outcomes.append((decision.label if decision.basis == "permission" else "", case["label"], case["part"]))
    return outcomes


def permission_section(outcomes: list[tuple[str, str, str]]) -> dict:
    """The permission rule's calibration (refutations only), with what it caught and missed per part."""
    section = case_section([(predicted, gold) for predicted, gold, _ in outcomes if predicted])
    section["parts"] = {}
    for part in dict.fromkeys(p for _, _, p in outcomes):
        mine = [(bool(predicted), gold == "refuted") for predicted, gold, p in outcomes if p == part]
        section["parts"][part] = {"conflicts": sum(conflict for _, conflict in mine),
                                  "fired": sum(fired and conflict for fired, conflict in mine),
                                  "others": sum(not conflict for _, conflict in mine),
                                  "false_alarms": sum(fired and not conflict for fired, conflict in mine)}
    return section


DIFFERENCE_CASES = ROOT / "benchmarks" / "data" / "contrast" / "dev.jsonl"


def difference_outcomes(cases: Path = DIFFERENCE_CASES) -> list[tuple[str, str, str]]:
    """(the judge's label, the hand label, the row's kind) of every contrast dev row; label "" where the
    difference rule did not refute.

    Each row goes through the steps of a source-mode check (the claim splitter must give one claim,
    then the source text's passages and the shipped judge); only a refutation by the difference rule
    (basis "difference") counts as its verdict. The dev part chose the rule's settings, so these figures
    are not held out; `benchmarks/contrast.py --part test` measures the rule on the test part.
    """
    from veracity.offline.judge.entailment_judge import EntailmentJudge

    judge = EntailmentJudge()
    outcomes = []
    for row, claim in single_claim_cases(cases, "claim"):
        decision = judge.assess(claim, source_evidence(claim, row["passage"])).decision
        refuted = decision.basis == "difference" and decision.label == "refuted"
        outcomes.append(("refuted" if refuted else "", row["label"], row["kind"]))
    return outcomes


def difference_section(outcomes: list[tuple[str, str, str]]) -> dict:
    """The difference rule's calibration (refutations only), with what it caught and wrongly refuted per kind."""
    section = case_section([(predicted, gold) for predicted, gold, _ in outcomes if predicted])
    section["kinds"] = {}
    for kind in sorted({k for _, _, k in outcomes}):
        mine = [(bool(predicted), gold) for predicted, gold, k in outcomes if k == kind]
        section["kinds"][kind] = {"contradictions": sum(gold == "refuted" for _, gold in mine),
                                  "refuted": sum(fired and gold == "refuted" for fired, gold in mine),
                                  "others": sum(gold != "refuted" for _, gold in mine),
                                  "false_alarms": sum(fired and gold != "refuted" for fired, gold in mine)}
    return section


def rule_sections() -> dict:
    """The case-calibrated sections of the rules: the calculator, the permission rule, the difference rule."""
    sections = {"calculator": case_section(computed_outcomes()),
                "permission": permission_section(permission_outcomes()),
                "difference": difference_section(difference_outcomes())}
    for name, section in sections.items():
        print(f"{name}:", section["counts"], flush=True)
    return sections


def shipped_rule_section(section: dict) -> dict:
    """What the package keeps of a rule's section."""
    return {"confidence": section["confidence"], "risk": section["risk"]}


def case_section(outcomes: list[tuple[str, str]]) -> dict:
    """A rule's calibration from hand-labelled cases: per label, its smoothed share right and certified thresholds."""
    confidence, thresholds, counts = {}, {}, {}
    for label in DECISIVE:
        right = np.array([gold == label for predicted, gold in outcomes if predicted == label])
        confidence[label] = float((right.sum() + 1) / (len(right) + 2))
        # Every computed verdict of a label has the same confidence: one candidate, one test.
        thresholds[label] = certify_levels(np.full(len(right), confidence[label]), right, DELTA / 2,
                                           candidates=(confidence[label],))
        counts[label] = {"verdicts": int(len(right)), "right": int(right.sum())}
    return {"confidence": confidence, "counts": counts,
            "risk": {"delta": DELTA, "levels": list(LEVELS), "thresholds": thresholds}}


SOURCE_SET = "fever_dev"
"""The calibration data of source mode's supported verdicts: claims judged against the very text they restate.

Only its supported verdicts: FEVER's refutations are edits of the very sentence (a name swapped, a
"not" added), which the model reads well, while an answer that rewords its source ("24 months" for
"2 years", "13:00" for "1 pm") is read as a contradiction far more often. A source-mode refutation
is therefore held to the real-world calibrator and thresholds."""


def fit_and_certify(everything: Table, datasets: np.ndarray, halves: np.ndarray, report: dict,
                    started: float) -> tuple[dict[Label, LogisticModel], dict[Label, list]]:
    """`veracity.calibrate.fitting.fit_and_certify` on these rows, its figures merged into `report`."""
    fitted = fitting.fit_and_certify(
        everything, datasets, halves, delta=DELTA, default_target=DEFAULT_MIN_PRECISION,
        say=lambda line: print(f"{line} [{time.perf_counter() - started:.0f} s]", flush=True))
    report.update(fitted.report)
    print("thresholds at 0.90:", {label: fitted.thresholds[label][LEVELS.index(0.9)] for label in DECISIVE},
          flush=True)
    return fitted.models, fitted.thresholds


MOVED_MODULES = {"veracity.calibration.fitting": "veracity.calibrate.fitting"}
"""Where a class kept in an older tables file lives now (the fitting moved with the `calibrate` command)."""


def read_tables(path: Path) -> dict[str, Any]:
    """The judged rows kept by an earlier `--tables` run, also from before the fitting moved (`MOVED_MODULES`)."""
    import pickle

    class Moved(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            return super().find_class(MOVED_MODULES.get(module, module), name)

    with path.open("rb") as kept:
        tables: dict[str, Any] = Moved(kept).load()
    return tables


def main(argv: list[str] | None = None) -> int:
    """Judge, fit, certify, measure, write."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memory", type=Path, default=DEFAULT_MEMORY, help="entailment scores kept between runs")
    parser.add_argument("--out", type=Path, default=ROOT / "training" / "out" / "fit-confidence.json",
                        help="full results (JSON)")
    parser.add_argument("--dry-run", action="store_true", help="print, write nothing into the package")
    parser.add_argument("--shipped-held-out", action="store_true",
                        help="also measure the test parts under the calibration the package ships now (after a "
                             "change to the judge, before deciding to ship a new calibration)")
    parser.add_argument("--no-test", action="store_true", help="skip the held-out measurement")
    parser.add_argument("--tables", type=Path, default=None,
                        help="also keep the judged rows' features here (a pickle), for analysis")
    parser.add_argument("--reuse-tables", action="store_true",
                        help="read the judged rows from --tables instead of judging (after a change to fitting only)")
    parser.add_argument("--cases-only", action="store_true",
                        help="recompute only the rules' case calibrations (calculator, permission, difference) and "
                             "write them into the shipped file, its models and thresholds untouched")
    args = parser.parse_args(argv)
    if args.reuse_tables and args.tables is None:
        parser.error("--reuse-tables needs --tables")
    if args.cases_only:
        return write_rule_sections(dry_run=args.dry_run)
    started = time.perf_counter()
    judge, memory = shipped_judge(args.memory)

    kept = read_tables(args.tables) if args.reuse_tables else None
    if kept:  # written with the features of its day: keep the columns of today's
        columns = [kept["feature_names"].index(name) for name in FEATURES]
        for table in [*kept["calibration"], *kept["test"].values()]:
            table.features = table.features[:, columns]
    calibration_tables = [t for t in kept["calibration"] if t.name in CALIBRATION_SETS] if kept else []
    for name in CALIBRATION_SETS if not kept else ():
        rows = load_rows(name, "calibration")
        calibration_tables.append(tabulate(name, rows, judge_rows(rows, judge, memory, f"{name}/calibration")))
    everything = Table("calibration", sum((t.claims for t in calibration_tables), []),
                       np.concatenate([t.gold for t in calibration_tables]),
                       np.concatenate([t.raw for t in calibration_tables]),
                       np.vstack([t.features for t in calibration_tables]), FEATURES)
    datasets = np.concatenate([np.full(len(t.gold), t.name) for t in calibration_tables])
    halves = np.array([half_of(c) for c in everything.claims])
    fit_rows, certify_rows = halves == "fit", halves == "certify"

    report: dict = {
        "command": "python training/fit_confidence.py",
        "features": list(FEATURES),
        "calibration_rows": {t.name: {"all": len(t.gold), "fit": int((fit_rows & (datasets == t.name)).sum()),
                                      "certify": int((certify_rows & (datasets == t.name)).sum())}
                             for t in calibration_tables},
        "calibrator": {},
        "settings": {"half_seed": HALF_SEED, "folds": FOLDS, "delta": DELTA, "levels": [LEVELS[0], LEVELS[-1], 0.01],
                     "candidate_thresholds": [CANDIDATE_THRESHOLDS[0], CANDIDATE_THRESHOLDS[-1], 0.01],
                     "strengths": list(STRENGTHS)},
    }
    models, thresholds = fit_and_certify(everything, datasets, halves, report, started)
    source_rows = datasets == SOURCE_SET
    source_everything = everything.subset(source_rows)
    report["source"] = {"calibration_rows": int(source_rows.sum())}
    source_models, source_thresholds = fit_and_certify(source_everything, datasets[source_rows],
                                                       halves[source_rows], report["source"], started)
    # A source-mode refutation is held to the real-world calibration (see SOURCE_SET).
    source_models["refuted"], source_thresholds["refuted"] = models["refuted"], thresholds["refuted"]
    report["source"]["risk"]["thresholds"]["refuted"] = thresholds["refuted"]

    report.update(rule_sections())

    tests: dict[str, Table] = kept["test"] if kept else {}
    if not args.no_test:
        for name in TEST_SETS if not tests else ():
            rows = load_rows(name, "test")
            tests[name] = tabulate(name, rows, judge_rows(rows, judge, memory, f"{name}/test"))
        report["held_out"] = held_out(tests, models, thresholds)
        report["source"]["held_out"] = held_out({SOURCE_SET: tests[SOURCE_SET]}, source_models, source_thresholds)
        for name, r in report["held_out"].items():
            print(f"{name}: before {r['before']}, after {r['after']}", flush=True)
        print(f"source mode, {SOURCE_SET}: {report['source']['held_out'][SOURCE_SET]['after']}", flush=True)
        if args.shipped_held_out:  # today's judge under the calibration the package ships, not the one just fitted
            shipped_now = shipped_calibration()
            report["held_out_shipped"] = held_out(
                tests, {label: LogisticModel.from_dict(model) for label, model in shipped_now["models"].items()},
                shipped_now["risk"]["thresholds"])
            for name, r in report["held_out_shipped"].items():
                print(f"{name}, shipped calibration: {r['after']}", flush=True)

    if args.tables and not args.reuse_tables:
        import pickle

        args.tables.write_bytes(pickle.dumps({"calibration": calibration_tables, "halves": halves,
                                              "test": tests if not args.no_test else {},
                                              "feature_names": list(FEATURES)}))
    report["wall_seconds"] = time.perf_counter() - started
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    if args.dry_run:
        print(f"dry run: wrote only {args.out}")
        return 0
    shipped = {
        "models": {label: models[label].to_dict() for label in LABELS},
        "risk": {"delta": DELTA, "levels": list(LEVELS),
                 "thresholds": {label: thresholds[label] for label in DECISIVE}},
        "source": {"models": {label: source_models[label].to_dict() for label in LABELS},
                   "risk": {"delta": DELTA, "levels": list(LEVELS),
                            "thresholds": {label: source_thresholds[label] for label in DECISIVE}}},
        **{name: shipped_rule_section(report[name]) for name in ("calculator", "permission", "difference")},
        "record": {"command": report["command"], "calibration_rows": report["calibration_rows"],
                   "strengths": {label: report["calibrator"][label]["strength"] for label in LABELS},
                   "certify_rows": report["risk"]["certify_rows"], "half_seed": HALF_SEED,
                   "source_calibration": SOURCE_SET},
    }
    ASSETS.mkdir(parents=True, exist_ok=True)
    (ASSETS / "confidence.json").write_text(json.dumps(shipped, indent=1) + "\n")
    (ASSETS / "CARD.md").write_text(card(report))
    draw_reliability(report, DIAGRAM)
    print(f"wrote {ASSETS / 'confidence.json'}, {ASSETS / 'CARD.md'}, {DIAGRAM} and {args.out}")
    return 0


def write_rule_sections(*, dry_run: bool) -> int:
    """`--cases-only`: the rules' sections recomputed and written into the shipped calibration."""
    sections = rule_sections()
    path = ASSETS / "confidence.json"
    shipped = json.loads(path.read_text(encoding="utf-8"))
    shipped.update({name: shipped_rule_section(section) for name, section in sections.items()})
    if dry_run:
        print("dry run: wrote nothing")
        return 0
    path.write_text(json.dumps(shipped, indent=1) + "\n")
    card_path = ASSETS / "CARD.md"
    card_path.write_text(with_difference_card(card_path.read_text(encoding="utf-8"), sections["difference"]))
    print(f"wrote the rules' sections into {path}, and the difference rule's into {card_path}")
    return 0


def with_difference_card(text: str, section: dict) -> str:
    """The card with its "## Differences" section replaced (or put before the held-out one) by `difference_card`."""
    rendered = "\n".join(difference_card(section))
    start = text.find("## Differences\n")
    if start >= 0:
        end = text.find("\n## ", start + 1)
        return text[:start] + rendered + ("\n" + text[end + 1:] if end >= 0 else "")
    anchor = text.find("## Held-out test parts")
    anchor = anchor if anchor >= 0 else text.find("## Limits")
    return text[:anchor] + rendered + "\n" + text[anchor:] if anchor >= 0 else text + "\n" + rendered


if __name__ == "__main__":
    raise SystemExit(main())
