"""Risk against coverage: decisive precision of the offline judge as it says less, per held-out dataset.

For each held-out test part (Climate-FEVER claims, Factcheck-GPT, HealthVer's test half, the FEVER
dev sample; see ``training/judged_rows.py``) it ranks the judge's supported and refuted verdicts
and plots the precision of the top share against that share of all rows (coverage):

* **after**: the shipped judge, ranked by its calibrated confidence; the marker is the operating
  point at the default target precision (0.90): the verdicts whose confidence clears the
  certified threshold of their label.
* **before** (with ``--before-src``): the judge of another checkout (e.g. the commit before the
  calibrator), ranked by the entailment probability of the passage that decided; its marker is
  what it said then: every supported or refuted verdict.

Run it (repository root)::

    git worktree add /tmp/veracity-before 172da17
    .venv/bin/python benchmarks/risk_coverage.py --before-src /tmp/veracity-before/src

It writes ``docs/risk-coverage.png`` and prints a table of the operating points.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DECISIVE = ("supported", "refuted")


def child(rows_path: Path, out_path: Path) -> None:
    """Judge the rows with whatever `veracity` is importable (another checkout's): label and margin per row.

    Uses only what judges of every version have: the relevance filter, `candidates` and the decider.
    """
    from veracity.contracts import Evidence
    from veracity.offline.judge.entailment_judge import EntailmentJudge
    from veracity.offline.judge.relevance import claim_subject, on_topic

    judge = EntailmentJudge()
    with rows_path.open(encoding="utf-8") as rows, out_path.open("w", encoding="utf-8") as out:
        for line in rows:
            row = json.loads(line)
            claim = row["claim"]
            evidence = [Evidence(claim_id="c1", backend="benchmark", **item) for item in row["evidence"]]
            relevant = on_topic(claim_subject(claim), evidence,
                                lambda item, claim=claim: judge.closeness(claim, item))
            decision = judge.decider.decide(claim, judge.candidates(claim, relevant)) if relevant else None
            label, margin = "unverifiable", 0.0
            if decision is not None and decision.label in DECISIVE and decision.candidate is not None:
                p = decision.candidate.entailment
                label = decision.label
                margin = p.supported if label == "supported" else p.refuted
            out.write(json.dumps({"label": label, "score": margin}) + "\n")


def judge_before(rows: list, before_src: Path) -> list[dict]:
    """Labels and scores of the judge in `before_src`, run in a child process with that source first on the path."""
    with tempfile.TemporaryDirectory() as folder:
        rows_path, out_path = Path(folder) / "rows.jsonl", Path(folder) / "out.jsonl"
        with rows_path.open("w", encoding="utf-8") as handle:
            for row in rows:
                items = [{"id": e.id, "title": e.title, "text": e.text} for e in row.evidence]
                handle.write(json.dumps({"claim": row.claim, "evidence": items}) + "\n")
        environment = {**os.environ, "PYTHONPATH": str(before_src)}
        subprocess.run([sys.executable, __file__, "--child", str(rows_path), str(out_path)], check=True,
                       env=environment)
        return [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines()]


def curve(labels: list[str], scores: list[float], right: list[bool]) -> list[tuple[float, float]]:
    """(coverage, precision) after each decisive verdict, highest score first."""
    decisive = sorted((i for i, label in enumerate(labels) if label in DECISIVE), key=lambda i: -scores[i])
    points, hits = [], 0
    for rank, i in enumerate(decisive, 1):
        hits += right[i]
        points.append((rank / len(labels), hits / rank))
    return points


def operating_point(kept: list[bool], right: list[bool]) -> dict:
    """Coverage, precision and counts of the verdicts kept decisive."""
    decisive = sum(kept)
    correct = sum(k and r for k, r in zip(kept, right, strict=True))
    return {"decisive": decisive, "coverage": decisive / len(kept), "wrong": decisive - correct,
            "precision": correct / decisive if decisive else None}


def main(argv: list[str] | None = None) -> int:
    """Judge, rank, plot, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before-src", type=Path, help="the src/ folder of another checkout to draw as 'before'")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "risk-coverage.png", help="the picture")
    parser.add_argument("--json", type=Path, help="also write the points and operating points here")
    parser.add_argument("--child", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0

    sys.path.insert(0, str(ROOT / "training"))
    from judged_rows import TEST_SETS, judge_rows, load_rows, shipped_judge

    from veracity.offline.calibration.risk import DEFAULT_MIN_PRECISION
    from veracity.offline.calibration.ruling import RiskRule

    judge, memory = shipped_judge()
    rule = RiskRule.shipped(DEFAULT_MIN_PRECISION)
    results: dict[str, dict] = {}
    for name in TEST_SETS:
        rows = load_rows(name, "test")
        judgements = judge_rows(rows, judge, memory, name)
        binary = name == "fever_dev"

        def is_right(label: str, gold: str, binary: bool = binary) -> bool:
            if binary:
                return (gold == "supported") == (label == "supported") and label in DECISIVE
            return label == gold

        raw = [j.decision.label for j in judgements]
        rulings = [rule.rule(j) for j in judgements]
        confidence = [r.confidence or 0.0 for r in rulings]
        right = [is_right(label, row.label) for label, row in zip(raw, rows, strict=True)]
        kept = [r.answer["label"] in DECISIVE for r in rulings]
        entry = {"rows": len(rows), "after": {"curve": curve(raw, confidence, right),
                                              "point": operating_point(kept, right)}}
        if args.before_src:
            before = judge_before(rows, args.before_src)
            labels = [b["label"] for b in before]
            right_before = [is_right(label, row.label) for label, row in zip(labels, rows, strict=True)]
            entry["before"] = {"curve": curve(labels, [b["score"] for b in before], right_before),
                               "point": operating_point([label in DECISIVE for label in labels], right_before)}
        results[name] = entry

    draw(results, args.out, DEFAULT_MIN_PRECISION)
    print("\n| held-out part | rows | judge | decisive precision | coverage | wrong decisive |")
    print("|---|---:|---|---:|---:|---:|")
    for name, entry in results.items():
        for which in ("before", "after"):
            if which in entry:
                point = entry[which]["point"]
                precision = "n/a (none decisive)" if point["precision"] is None else f"{point['precision']:.3f}"
                print(f"| {name} | {entry['rows']} | {which} | {precision} | {point['coverage']:.3f} | "
                      f"{point['wrong']} |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    print(f"\nwrote {args.out}")
    return 0


def draw(results: dict[str, dict], path: Path, target: float) -> None:
    """One panel per dataset: precision against coverage, before and after, operating points marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(results), figsize=(4.3 * len(results), 4.3), constrained_layout=True)
    for axis, (name, entry) in zip(axes, results.items(), strict=True):
        for which, colour in (("before", "tab:grey"), ("after", "tab:blue")):
            if which not in entry:
                continue
            points = entry[which]["curve"]
            if points:
                axis.plot([c for c, _ in points], [p for _, p in points], color=colour, label=which)
            point = entry[which]["point"]
            if point["precision"] is not None:
                axis.plot([point["coverage"]], [point["precision"]], marker="o", color=colour, markersize=8)
            else:
                axis.plot([0], [0], marker="x", color=colour, markersize=8)
        axis.axhline(target, color="tab:red", linewidth=0.8, linestyle="--")
        axis.set_title(f"{name} ({entry['rows']} rows)")
        axis.set_xlabel("coverage (decisive verdicts / rows)")
        axis.set_ylabel("decisive precision")
        axis.set_xlim(0, 1)
        axis.set_ylim(0, 1.02)
        axis.legend(loc="lower left")
    figure.suptitle(f"Offline judge: decisive precision against coverage (dashed: target {target:.2f}; "
                    "dots: operating points; x: nothing decisive)")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


if __name__ == "__main__":
    raise SystemExit(main())
