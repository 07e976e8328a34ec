"""Quality benchmark of the offline judges on labelled claim/evidence pairs, all in one run.

Data (read in place, never copied into the repository)
------------------------------------------------------
* ``climatefever_claims`` and ``factcheckgpt_pairs.dev``: the *test* part of
  ``../shared/benchmarks/`` (``training/claim_split.py``). The entailment model was fine-tuned
  on the train part and its thresholds chosen on the calibration part; no claim of the test part
  is in either, nor among the rows the first judge was tuned on. 3-way labels.
* ``fever_dev``: ``../shared/nli/eval/fever_dev_binary.jsonl`` (supported / not_supported).
* ``healthver``: ``../shared/nli/eval/healthver.jsonl`` (3-way).
* ``summedits``: ``../shared/nli/eval/summedits_binary.jsonl`` (supported / not_supported).

What runs
---------
Each row's evidence becomes one `Evidence` item. Four methods rule on every row:

* ``entailment``: `EntailmentJudge`, the shipped offline judge (model, thresholds and passage
  settings from its ``config.json``);
* ``heuristic``: `OfflineJudge` with `HeuristicDecider`, the first offline judge;
* ``similarity@0.5`` and ``similarity@0.6``: `SimilarityBaselineDecider` on the heuristic
  judge's passages (supported when the best claim/sentence cosine reaches T, never refuted).

On binary sets, refuted and unverifiable both count as not_supported. Scores: balanced accuracy
(mean per-label recall), per-label precision / recall / F1 and the confusion matrix
(`veracity.evaluation.metrics`). Every supported/refuted verdict's quote is checked with the verdict
gate's `citation_problem` (failures should be 0). Timing: seconds per method, each method's
own passage scoring included (the baselines share the heuristic's; the two judges have separate
embedders, so neither reads the other's cached vectors).

Run it (repository root)::

    .venv/bin/python benchmarks/offline_judge.py
    .venv/bin/python benchmarks/offline_judge.py --datasets fever_dev --limit 500
    .venv/bin/python benchmarks/offline_judge.py --json > judge.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "training"))

from claim_split import ClaimSplit  # noqa: E402

from veracity.contracts import LABELS, Evidence, JudgeOutput  # noqa: E402
from veracity.evaluation.metrics import ClassificationResult, classify  # noqa: E402
from veracity.nodes.verdict_gate import citation_problem  # noqa: E402
from veracity.offline.judge.decision import HeuristicDecider, SimilarityBaselineDecider  # noqa: E402
from veracity.offline.judge.entailment_judge import EntailmentJudge  # noqa: E402
from veracity.offline.judge.judgement import to_judge_output  # noqa: E402
from veracity.offline.judge.reference_judge import OfflineJudge  # noqa: E402
from veracity.offline.model.embedder import Embedder  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared"
BINARY_LABELS = ("supported", "not_supported")


@dataclass(frozen=True)
class Dataset:
    """A labelled file: where its rows come from and which labels it uses."""

    name: str
    labels: tuple[str, ...]
    description: str

    def rows(self, shared: Path) -> list[dict]:
        """Rows as {claim, evidence, label}."""
        if self.name in BENCHMARK_PARTS:
            return ClaimSplit(shared / "benchmarks").rows(BENCHMARK_PARTS[self.name], "test")
        path = shared / "nli" / "eval" / NLI_FILES[self.name]
        with path.open(encoding="utf-8") as handle:
            return [
                {"claim": row["hypothesis"], "evidence": row["premise"], "label": row["label"]}
                for row in map(json.loads, handle)
            ]


BENCHMARK_PARTS = {"climatefever_claims": "climatefever_claims.jsonl", "factcheckgpt": "factcheckgpt_pairs.dev.jsonl"}
NLI_FILES = {
    "fever_dev": "fever_dev_binary.jsonl", "healthver": "healthver.jsonl", "summedits": "summedits_binary.jsonl",
}
DATASETS = {
    "climatefever_claims": Dataset("climatefever_claims", LABELS, "climatefever_claims.jsonl, test part"),
    "factcheckgpt": Dataset("factcheckgpt", LABELS, "factcheckgpt_pairs.dev.jsonl, test part"),
    "fever_dev": Dataset("fever_dev", BINARY_LABELS, "fever_dev_binary.jsonl (binary)"),
    "healthver": Dataset("healthver", LABELS, "healthver.jsonl (3-way)"),
    "summedits": Dataset("summedits", BINARY_LABELS, "summedits_binary.jsonl (binary)"),
}


@dataclass
class MethodRun:
    """Predictions and time of one method on one dataset."""

    name: str
    predicted: list[str] = field(default_factory=list)
    seconds: float = 0.0
    citation_failures: int = 0

    def record(self, output: dict, evidence: list[Evidence], binary: bool, seconds: float) -> None:
        """Keep one verdict (folded to binary if asked), its time and its citation check."""
        label = output["label"]
        self.predicted.append(("supported" if label == "supported" else "not_supported") if binary else label)
        self.seconds += seconds
        if label != "unverifiable" and citation_problem(JudgeOutput(**output), evidence):
            self.citation_failures += 1


def sample(rows: list[dict], limit: int | None, seed: int) -> list[dict]:
    """All rows, or a seeded sample of `limit` of them in file order."""
    if limit is None or limit >= len(rows):
        return rows
    keep = sorted(random.Random(seed).sample(range(len(rows)), limit))
    return [rows[i] for i in keep]


def run_dataset(dataset: Dataset, rows: list[dict], entailment: EntailmentJudge, heuristic: OfflineJudge) -> dict:
    """Run every method on the rows and return scores and timings."""
    binary = dataset.labels == BINARY_LABELS
    runs = {name: MethodRun(name) for name in ("entailment", "heuristic", "similarity@0.5", "similarity@0.6")}
    baselines = {"similarity@0.5": SimilarityBaselineDecider(0.5), "similarity@0.6": SimilarityBaselineDecider(0.6)}
    scored_passages = 0
    for row in rows:
        evidence = [Evidence(id="e1", claim_id="c1", text=row["evidence"], backend="benchmark")]
        started = time.perf_counter()
        found = entailment.candidates(row["claim"], evidence)
        output = entailment.output(row["claim"], found)
        runs["entailment"].record(output, evidence, binary, time.perf_counter() - started)
        scored_passages += len(found)

        started = time.perf_counter()
        candidates = heuristic.candidates(row["claim"], evidence)
        shared_seconds = time.perf_counter() - started
        started = time.perf_counter()
        output = to_judge_output(heuristic.decider.decide(row["claim"], candidates))
        runs["heuristic"].record(output, evidence, binary, shared_seconds + time.perf_counter() - started)
        for name, decider in baselines.items():
            started = time.perf_counter()
            output = to_judge_output(decider.decide(row["claim"], candidates))
            runs[name].record(output, evidence, binary, shared_seconds + time.perf_counter() - started)
    gold = [row["label"] for row in rows]
    return {
        "dataset": dataset.name, "description": dataset.description, "rows": len(rows),
        "entailment_passages_per_row": scored_passages / len(rows) if rows else 0.0,
        "methods": {
            name: {
                "result": classify(gold, run.predicted, dataset.labels), "seconds": run.seconds,
                "rows_per_second": len(rows) / run.seconds if run.seconds else float("inf"),
                "citation_failures": run.citation_failures,
            }
            for name, run in runs.items()
        },
    }


def environment(args: argparse.Namespace) -> dict:
    """Where the numbers came from."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain", "src"], capture_output=True, text=True).stdout.strip())
    return {
        "python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
        "command": " ".join(["python", *sys.argv]), "commit": commit + (" (src modified)" if dirty else ""),
        "load_average_start": round(os.getloadavg()[0], 2), "limit": args.limit, "seed": args.seed,
    }


def to_markdown(runs: list[dict], env: dict) -> str:
    """A summary table, then per dataset and method the per-label scores and confusion matrix."""
    lines = [
        f"Commit {env['commit']}; Python {env['python']} on {env['platform']}, {env['cpus']} CPUs "
        f"(1-minute load average {env['load_average_start']} at start, {env['load_average_end']} at end); "
        f"peak RSS {env['peak_rss_mib']:.0f} MiB; {env['wall_seconds']:.0f} s in all. Command: `{env['command']}`",
        "",
        "| dataset | rows | method | balanced acc. | macro F1 | rows/s | citation failures |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for run in runs:
        for name, method in run["methods"].items():
            result: ClassificationResult = method["result"]
            macro_f1 = sum(s.f1 for s in result.per_label.values()) / len(result.per_label)
            lines.append(
                f"| {run['dataset']} | {run['rows']} | {name} | {result.balanced_accuracy:.3f} | {macro_f1:.3f} | "
                f"{method['rows_per_second']:.1f} | {method['citation_failures']} |"
            )
    for run in runs:
        lines += ["", f"### {run['dataset']}: {run['description']} ({run['rows']} rows; the entailment judge "
                      f"scored {run['entailment_passages_per_row']:.1f} passages per row)"]
        for name, method in run["methods"].items():
            result = method["result"]
            lines += ["", f"**{name}**: balanced accuracy {result.balanced_accuracy:.3f}", "",
                      result.scores_markdown(), "", result.to_markdown()]
    return "\n".join(lines)


def to_json(runs: list[dict], env: dict) -> str:
    """The same numbers as JSON."""
    return json.dumps({
        "environment": env,
        "runs": [
            {**{k: v for k, v in run.items() if k != "methods"},
             "methods": {name: {**{k: v for k, v in m.items() if k != "result"}, **m["result"].to_dict()}
                         for name, m in run["methods"].items()}}
            for run in runs
        ],
    }, indent=2)


def main(argv: list[str] | None = None) -> int:
    """Parse options, run the benchmark, print the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="the shared folder (benchmarks/ and nli/)")
    parser.add_argument("--datasets", default=",".join(DATASETS), help=f"comma-separated, from {', '.join(DATASETS)}")
    parser.add_argument("--limit", type=int, default=None, help="seeded sample of this many rows per dataset")
    parser.add_argument("--seed", type=int, default=13, help="seed of the --limit sample")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.datasets.split(",") if n.strip()]
    unknown = [n for n in names if n not in DATASETS]
    if unknown:
        parser.error(f"unknown datasets {unknown}; choose from {list(DATASETS)}")

    started = time.perf_counter()
    entailment = EntailmentJudge()
    # Its own embedder, so neither judge reads sentence vectors the other one paid for.
    heuristic = OfflineJudge(embedder=Embedder(), decider=HeuristicDecider())
    entailment.candidates("warm-up claim.", [Evidence(id="e1", claim_id="c1", text="A warm-up sentence.", backend="x")])
    env = environment(args)
    runs = []
    for name in names:
        dataset = DATASETS[name]
        rows = sample(dataset.rows(args.shared), args.limit, args.seed)
        runs.append(run_dataset(dataset, rows, entailment, heuristic))
        print(f"{name}: {len(rows)} rows done ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    env |= {
        "load_average_end": round(os.getloadavg()[0], 2), "wall_seconds": time.perf_counter() - started,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    print(to_json(runs, env) if args.json else to_markdown(runs, env))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
