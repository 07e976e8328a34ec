"""Quality benchmark of the offline judge on labelled claim/evidence pairs.

Data
----
JSONL files with one ``{claim, evidence, label, ...}`` object per line, ``label`` in
supported / refuted / unverifiable (see ``shared/benchmarks/README.md``). By default the two
development files ``climatefever_claims.jsonl`` and ``factcheckgpt_pairs.dev.jsonl`` are read,
read-only, from ``--data-dir`` (default: the ``shared/benchmarks`` folder next to the
repository root). The files are never copied into the repository.

What runs
---------
For each row, the row's evidence text becomes one `Evidence` item (id ``e1``). The offline
judge scores its passages once (`OfflineJudge.candidates`: sentence split, one embedding call,
lexical signals), then three deciders rule on the same candidates:

* ``heuristic``: `HeuristicDecider` with its default thresholds (the judge as shipped);
* ``baseline@0.5`` and ``baseline@0.6``: `SimilarityBaselineDecider` (supported when the max
  cosine of claim vs an evidence sentence reaches T, never refuted).

Every supported/refuted output is checked with the verdict gate's `citation_problem`; the
count of failing citations is reported (it should be 0).

Scores: 3-way balanced accuracy (mean per-label recall), accuracy, per-label precision /
recall / F1 and the confusion matrix (`veracity.metrics`). Speed: rows/s = rows / (time to
score the candidates + time of that decider). Candidate scoring includes the lexical
signals, which the baselines do not use, so the baselines' rows/s is a lower bound.

Run it (from the repository root)::

    .venv/bin/python benchmarks/offline_judge.py
    .venv/bin/python benchmarks/offline_judge.py --limit 200 --json
    .venv/bin/python benchmarks/offline_judge.py --files climatefever_pairs.jsonl --limit 200
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from veracity.contracts import LABELS, Evidence, JudgeOutput
from veracity.metrics import ClassificationResult, evaluate
from veracity.nodes.gates import citation_problem
from veracity.offline.decision import (
    Decider,
    HeuristicDecider,
    SimilarityBaselineDecider,
)
from veracity.offline.judge import OfflineJudge, to_judge_output

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
DEFAULT_FILES = ("climatefever_claims.jsonl", "factcheckgpt_pairs.dev.jsonl")


@dataclass
class MethodRun:
    """Predictions and decision time of one decider on one file."""

    name: str
    decider: Decider
    predicted: list[str] = field(default_factory=list)
    seconds: float = 0.0
    citation_failures: int = 0


def load_rows(path: Path, limit: int | None) -> list[dict]:
    """Read up to `limit` rows of a JSONL file (all rows when `limit` is None)."""
    rows: list[dict] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                rows.append(json.loads(line))
                if limit is not None and len(rows) >= limit:
                    break
    return rows


def run_file(path: Path, limit: int | None, judge: OfflineJudge) -> dict:
    """Run every method on one file and return its scores and timings."""
    rows = load_rows(path, limit)
    methods = [
        MethodRun("heuristic", judge.decider),
        MethodRun("baseline@0.5", SimilarityBaselineDecider(0.5)),
        MethodRun("baseline@0.6", SimilarityBaselineDecider(0.6)),
    ]
    gold: list[str] = []
    candidate_seconds = 0.0
    for row in rows:
        evidence = [Evidence(id="e1", claim_id="c1", text=row["evidence"], backend="benchmark")]
        started = time.perf_counter()
        candidates = judge.candidates(row["claim"], evidence)
        candidate_seconds += time.perf_counter() - started
        gold.append(row["label"])
        for method in methods:
            started = time.perf_counter()
            output = to_judge_output(method.decider.decide(row["claim"], candidates))
            method.seconds += time.perf_counter() - started
            method.predicted.append(output["label"])
            if output["label"] != "unverifiable" and citation_problem(JudgeOutput(**output), evidence):
                method.citation_failures += 1

    results = {}
    for method in methods:
        result = evaluate(gold, method.predicted, LABELS)
        total_seconds = candidate_seconds + method.seconds
        results[method.name] = {
            "result": result,
            "rows_per_second": len(rows) / total_seconds if total_seconds else float("inf"),
            "decision_seconds": method.seconds,
            "citation_failures": method.citation_failures,
        }
    return {"file": path.name, "rows": len(rows), "candidate_seconds": candidate_seconds, "methods": results}


def environment() -> dict:
    """Where the numbers came from (the load average shows whether other work shared the CPUs)."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "load_average_start": round(os.getloadavg()[0], 2),
    }


def to_markdown(runs: list[dict], env: dict) -> str:
    """The report: a summary table, then per file and method the scores and the confusion matrix."""
    lines = [
        (
            f"Python {env['python']} on {env['platform']}, {env['cpus']} CPUs "
            f"(1-minute load average {env['load_average_start']} at start, {env['load_average_end']} at end). "
            f"Command: `{env['command']}`"
        ),
        "",
        "| file | rows | method | balanced acc. | accuracy | rows/s | citation failures |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for run in runs:
        for name, method in run["methods"].items():
            result: ClassificationResult = method["result"]
            lines.append(
                f"| {run['file']} | {run['rows']} | {name} | {result.balanced_accuracy:.3f} | "
                f"{result.accuracy:.3f} | {method['rows_per_second']:.1f} | {method['citation_failures']} |"
            )
    for run in runs:
        lines += ["", f"### {run['file']} ({run['rows']} rows; candidate scoring {run['candidate_seconds']:.1f} s)"]
        for name, method in run["methods"].items():
            result = method["result"]
            lines += [
                "",
                (
                    f"**{name}**: balanced accuracy {result.balanced_accuracy:.3f}, "
                    f"accuracy {result.accuracy:.3f}, {method['rows_per_second']:.1f} rows/s"
                ),
                "",
                result.scores_markdown(),
                "",
                result.to_markdown(),
            ]
    return "\n".join(lines)


def to_json(runs: list[dict], env: dict) -> str:
    """The same numbers as JSON."""
    payload = {
        "environment": env,
        "runs": [
            {
                **{k: v for k, v in run.items() if k != "methods"},
                "methods": {
                    name: {**{k: v for k, v in method.items() if k != "result"}, **method["result"].to_dict()}
                    for name, method in run["methods"].items()
                },
            }
            for run in runs
        ],
    }
    return json.dumps(payload, indent=2)


def main(argv: list[str] | None = None) -> int:
    """Parse options, run the benchmark, print the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR, help="folder holding the JSONL files")
    parser.add_argument("--files", default=",".join(DEFAULT_FILES), help="comma-separated file names in --data-dir")
    parser.add_argument("--limit", type=int, default=None, help="rows per file (default: all)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    args = parser.parse_args(argv)

    judge = OfflineJudge(decider=HeuristicDecider())
    judge.embedder.embed(["warm-up"])  # model load is not part of the timings
    env = environment()
    runs = []
    for name in filter(None, (n.strip() for n in args.files.split(","))):
        path = args.data_dir / name
        if not path.is_file():
            parser.error(f"{path} not found (set --data-dir)")
        runs.append(run_file(path, args.limit, judge))
    env["load_average_end"] = round(os.getloadavg()[0], 2)
    print(to_json(runs, env) if args.json else to_markdown(runs, env))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
