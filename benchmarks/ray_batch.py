"""Batch on Ray against batch in process: the same rows through `abatch` and through `batch_on_ray`.

What runs
---------
``--rows`` texts (default 40) are built from the bundled demo notes (`veracity/kb/demo/*.md`,
the topics of the demo knowledge base): row k takes three consecutive sentences of note
k mod 18, starting further into the note on each pass over the notes; every other row has
the first number of each sentence changed (a year moved by 3, any other number doubled), so
the rows mix supported and refuted claims. Every row is distinct. They are checked with the
offline model against a fresh copy of the demo knowledge base (``model="offline",
search="kb"``), written to a temporary folder, never the repository.

What is measured
----------------
* **plain**: ``asyncio.run(abatch(rows, out, concurrency=--concurrency))`` in a fresh child
  process per repetition (spawned, so no model, index or judgement is reused from an earlier
  repetition). The time is taken in the parent around the child, so it counts the process
  start and the imports as well as the run: what one `veracity batch` command costs.
* **ray**: ``batch_on_ray(rows, out, workers=--workers)`` on a local Ray started once by this
  script (``ray.init(num_cpus=--workers)``, no dashboard, token authentication with a token
  of the run's own; its start is timed and printed apart). Each call starts its actors (each
  imports veracity, builds a `Checker` and loads the models at its first row) and stops them
  at the end, so each repetition is as cold as a plain one, less the Ray start.
* For both: wall time, claims/s over the wall time, the time to the first line, and the claims
  per second between the first line and the last (the pace once everything is loaded). Each
  figure is the median over ``--reps`` repetitions, column by column. ratio = ray wall /
  plain wall.
* **same reports**: every repetition of both modes must give each row the same claims with the
  same labels (timings and traces are not compared).

Run it (from the repository root)::

    .venv/bin/python benchmarks/ray_batch.py
    .venv/bin/python benchmarks/ray_batch.py --rows 80 --reps 5 --workers 2 --concurrency 2
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import multiprocessing
import os
import re
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("LANGSMITH_TRACING", "false")
if "RAY_AUTH_MODE" not in os.environ:  # token authentication, with a token of this run's own (none saved in ~/.ray)
    os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_NUMBER = re.compile(r"\b\d[\d,]*(?:\.\d+)?\b")


def demo_sentences() -> list[list[str]]:
    """The sentences of each demo note, in file order, headings left out."""
    notes = sorted((entry for entry in resources.files("veracity.kb").joinpath("demo").iterdir()
                    if entry.name.endswith(".md")), key=lambda entry: entry.name)
    result = []
    for note in notes:
        body = " ".join(line for line in note.read_text(encoding="utf-8").splitlines()
                        if line.strip() and not line.startswith("#"))
        result.append([sentence.strip() for sentence in _SENTENCE_END.split(body) if sentence.strip()])
    return result


def altered(sentence: str) -> str:
    """The sentence with its first number changed: a year moved by 3, any other number doubled."""
    match = _NUMBER.search(sentence)
    if match is None:
        return sentence
    value = float(match.group().replace(",", ""))
    if 1000 <= value <= 2100 and "," not in match.group() and "." not in match.group():
        new = str(int(value) + 3)
    else:
        doubled = value * 2
        new = f"{int(doubled):,}" if doubled == int(doubled) else f"{doubled:g}"
    return sentence[:match.start()] + new + sentence[match.end():]


def build_rows(count: int) -> list[dict[str, str]]:
    """`count` distinct rows of three sentences from the demo notes, every other one with its numbers changed."""
    notes = demo_sentences()
    rows: list[dict[str, str]] = []
    for k in range(count):
        sentences = notes[k % len(notes)]
        start = (k // len(notes)) % max(1, len(sentences) - 2)
        chosen = sentences[start:start + 3]
        if k % 2:
            chosen = [altered(sentence) for sentence in chosen]
        rows.append({"id": f"row-{k:03d}", "text": " ".join(chosen)})
    if len({row["text"] for row in rows}) != len(rows):
        raise SystemExit(f"--rows {count}: the demo notes give fewer distinct rows than that")
    return rows


def outcomes(path: Path) -> dict[str, Any]:
    """Per row: its claims with their labels (or its error)."""
    result: dict[str, Any] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        report = record.get("report")
        if report is None:
            result[record["id"]] = ("error", record["error"])
            continue
        labels = {verdict["claim_id"]: verdict["label"] for verdict in report["verdicts"]}
        result[record["id"]] = [(claim["text"], labels.get(claim["id"])) for claim in report["claims"]]
    return result


class Clock:
    """Times a run: when it started, when its first and last lines arrived, and the claims in them."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.first: float | None = None
        self.last = self.started
        self.claims = 0
        self.claims_after_first = 0

    def on_row(self, _row: Any, record: dict[str, Any]) -> None:
        now = time.perf_counter()
        claims = len(record.get("report", {}).get("claims", []))
        if self.first is None:
            self.first = now
        else:
            self.claims_after_first += claims
        self.claims += claims
        self.last = now

    def figures(self) -> dict[str, float]:
        wall = time.perf_counter() - self.started
        pace = self.last - (self.first or self.last)
        return {"wall": wall, "claims": self.claims, "claims_per_s": self.claims / wall,
                "first_line": (self.first or self.last) - self.started,
                "steady_claims_per_s": self.claims_after_first / pace if pace > 0 else float("nan")}


def plain_run(source: str, out: str, concurrency: int, settings: dict[str, Any]) -> dict[str, float]:
    """One in-process batch (run in a fresh child process); its clock figures, less the process start."""
    from veracity.batch import abatch

    clock = Clock()
    summary = asyncio.run(abatch(Path(source), Path(out), concurrency=concurrency, on_row=clock.on_row, **settings))
    if summary.failed:
        raise RuntimeError(f"plain run: {summary.failures}")
    return clock.figures()


def time_plain(source: Path, out: Path, concurrency: int, settings: dict[str, Any]) -> dict[str, float]:
    context = multiprocessing.get_context("spawn")
    started = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=context) as child:
        figures = child.submit(plain_run, str(source), str(out), concurrency, settings).result()
    wall = time.perf_counter() - started
    # The child's clock does not see the process start and the imports; the wall time and the rates do.
    figures["first_line"] += wall - figures["wall"]
    figures["wall"], figures["claims_per_s"] = wall, figures["claims"] / wall
    return figures


def time_ray(source: Path, out: Path, workers: int, settings: dict[str, Any]) -> dict[str, float]:
    from veracity.batch import batch_on_ray

    clock = Clock()
    summary = batch_on_ray(source, out, workers=workers, on_row=clock.on_row, **settings)
    if summary.failed:
        raise RuntimeError(f"ray run: {summary.failures}")
    return clock.figures()


def median_figures(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2, help="Ray workers (and the local Ray's CPUs)")
    parser.add_argument("--concurrency", type=int, default=2, help="checks at once in the plain run")
    args = parser.parse_args(argv)

    import ray

    from veracity.kb import KnowledgeBase, ensure_demo

    work = Path(tempfile.mkdtemp(prefix="veracity-ray-bench-"))
    try:
        kb = work / "kb"
        ensure_demo(KnowledgeBase(kb))
        rows = build_rows(args.rows)
        source = work / "in.jsonl"
        source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        settings = {"model": "offline", "search": "kb", "kb_path": str(kb)}

        started = time.perf_counter()
        ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False,
                 _temp_dir=str(work / "ray"))
        ray_start = time.perf_counter() - started

        plain_runs, ray_runs, reports = [], [], []
        for rep in range(args.reps):
            plain_out, ray_out = work / f"plain-{rep}.jsonl", work / f"ray-{rep}.jsonl"
            plain_runs.append(time_plain(source, plain_out, args.concurrency, settings))
            ray_runs.append(time_ray(source, ray_out, args.workers, settings))
            reports += [outcomes(plain_out), outcomes(ray_out)]
        ray.shutdown()

        plain, distributed = median_figures(plain_runs), median_figures(ray_runs)
        same = all(report == reports[0] for report in reports)
        labels = [label for claims in reports[0].values() for _, label in claims]
        print(f"veracity batch, in process vs Ray: {args.rows} rows, {int(plain['claims'])} claims "
              f"({', '.join(f'{labels.count(name)} {name}' for name in ('supported', 'refuted', 'unverifiable'))}); "
              f"offline model, demo knowledge base; {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
              f"ray {ray.__version__}")
        print(f"medians of {args.reps} repetitions; local Ray start (once, not counted below): {ray_start:.2f} s")
        print()
        print(f"{'run':<28}{'wall s':>8}{'claims/s':>10}{'first line s':>14}{'steady claims/s':>17}")
        for name, figures in ((f"plain abatch, concurrency {args.concurrency}", plain),
                              (f"ray, {args.workers} workers", distributed)):
            print(f"{name:<28}{figures['wall']:>8.2f}{figures['claims_per_s']:>10.1f}{figures['first_line']:>14.2f}"
                  f"{figures['steady_claims_per_s']:>17.1f}")
        print()
        print("per repetition, wall s: plain " + ", ".join(f"{run['wall']:.2f}" for run in plain_runs)
              + "; ray " + ", ".join(f"{run['wall']:.2f}" for run in ray_runs))
        print(f"ratio ray/plain (wall): {distributed['wall'] / plain['wall']:.2f}")
        print(f"same reports (claims and labels per row, every repetition): {'yes' if same else 'NO'}")
        return 0 if same else 1
    finally:
        if ray.is_initialized():
            ray.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
