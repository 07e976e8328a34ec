"""Batch benchmarks: offline throughput by concurrency, and memory over a long input.

``throughput``
    The 20 five-claim paragraphs of ``benchmarks/offline.py`` (100 claims on the demo-corpus
    topics) through ``veracity.abatch`` offline (local claim splitter and judge, evidence from
    the demo knowledge base), at each ``--concurrency`` level. Each run is a fresh child
    process (no embedder cache or judge memory carried over) that first checks one unrelated
    paragraph to load the models, then times the ``abatch`` call. Reported: median wall time
    and claims/s over ``--reps`` runs per level, and the ratio to concurrency 1.

``memory``
    ``--rows`` rows (default 10,000) of one or two made-up claims each through ``abatch`` with
    an in-process scripted chat model and search backend (``veracity.testing``; no network,
    no model weights), so the run is about what the batch itself holds. The resident set size
    (VmRSS from /proc/self/status) is sampled every ``--every`` rows from the progress
    callback. A batch that held every report would grow with the rows; a streaming one stays
    flat after the first rows.

Run them (from the repository root)::

    .venv/bin/python benchmarks/batch_scale.py throughput --concurrency 1 2 4 --reps 3
    .venv/bin/python benchmarks/batch_scale.py memory --rows 10000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

WARMUP = "Mount Kilimanjaro is in Tanzania. Mount Kilimanjaro is about 5,895 metres high."


def rss_mib() -> float:
    """The current resident set size of this process, in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# ---------------------------------------------------------------- throughput

def throughput_child(concurrency: int) -> dict[str, Any]:
    """One timed offline batch of the 20 paragraphs (in this fresh process)."""
    import offline

    import veracity

    with tempfile.TemporaryDirectory(prefix="veracity-batch-bench-") as folder:
        os.environ["VERACITY_KB"] = str(Path(folder) / "kb")  # seeded with the demo notes on first use
        source = Path(folder) / "rows.jsonl"
        source.write_text("".join(json.dumps({"id": f"p{i}", "text": text}) + "\n"
                                  for i, text in enumerate(offline.PARAGRAPHS)), encoding="utf-8")
        checker = veracity.Checker(model="offline", search="kb")
        checker.check(WARMUP)
        started = time.perf_counter()
        summary = asyncio.run(veracity.abatch(source, Path(folder) / "out.jsonl", concurrency=concurrency,
                                              checker=checker))
        seconds = time.perf_counter() - started
        labels = [(json.loads(line)["id"], [v["label"] for v in json.loads(line)["report"]["verdicts"]])
                  for line in (Path(folder) / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    return {"seconds": seconds, "claims": summary.claims, "failed": summary.failed, "labels": sorted(labels)}


def throughput(args: argparse.Namespace) -> None:
    rows = []
    reference = None
    for concurrency in args.concurrency:
        runs = []
        for _ in range(args.reps):
            done = subprocess.run([sys.executable, __file__, "_throughput_child", str(concurrency)],
                                  capture_output=True, text=True, check=True)
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(f"concurrency {concurrency}: {runs[-1]['seconds']:.2f} s", file=sys.stderr, flush=True)
        reference = reference or runs[0]["labels"]
        seconds = statistics.median(run["seconds"] for run in runs)
        rows.append((concurrency, seconds, runs[0]["claims"], all(run["labels"] == reference for run in runs),
                     sum(run["failed"] for run in runs)))
    base = rows[0][1]
    print(f"\n{os.cpu_count()} CPUs; 20 paragraphs, offline, demo knowledge base; median of {args.reps} fresh "
          "processes per level\n")
    print("| concurrency | wall (s) | claims | claims/s | speed-up vs first level | same verdicts | failed rows |")
    print("|---:|---:|---:|---:|---:|:---:|---:|")
    for concurrency, seconds, claims, same, failed in rows:
        print(f"| {concurrency} | {seconds:.2f} | {claims} | {claims / seconds:.1f} | {base / seconds:.2f}x "
              f"| {'yes' if same else 'NO'} | {failed} |")


# ---------------------------------------------------------------- memory

def scripted_checker() -> Any:
    """A checker whose model and search are in-process scripts: one claim per sentence, supported by its search."""
    import veracity
    from veracity.contracts import SearchHit
    from veracity.testing import ScriptedBackend, ScriptedChatModel, prompt_text

    claim_line = re.compile(r"^Claim: (.*)$", re.MULTILINE)
    text_line = re.compile(r"Text to split into claims[^\n]*\n(.*)", re.DOTALL)
    item = re.compile(r"^<<<evidence (c\d+-e\d+) ", re.MULTILINE)

    def respond(messages: list[Any]) -> dict[str, Any]:
        model.calls.clear()  # the script keeps its calls; a long run must not measure them
        prompt = prompt_text(messages)
        if (claim := claim_line.search(prompt)) is None:
            match = text_line.search(prompt)
            sentences = re.findall(r"[A-Z][^.]*\.", match.group(1) if match else prompt)
            return {"claims": [{"claim": s, "source": s} for s in sentences]}
        first = item.search(prompt)
        return {"label": "supported", "reason": "the record states it", "quote": claim.group(1),
                "evidence_id": first.group(1) if first else None}

    def search(query: str) -> list[SearchHit]:
        backend.queries.clear()
        return [SearchHit(title="Register", url="https://register.example/entry", text=f"Register: {query}")]

    model = ScriptedChatModel(responder=respond)
    backend = ScriptedBackend(search, name="register")
    return veracity.Checker(model=model, backend=backend)


def memory(args: argparse.Namespace) -> None:
    import faults

    import veracity

    samples: list[tuple[int, float]] = [(0, rss_mib())]
    done = [0]

    def on_row(_row: Any, _record: dict[str, Any]) -> None:
        done[0] += 1
        if done[0] % args.every == 0:
            samples.append((done[0], rss_mib()))
            print(f"  {done[0]} rows, RSS {samples[-1][1]:.0f} MiB", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="veracity-batch-memory-") as folder:
        source, out = Path(folder) / "rows.jsonl", Path(folder) / "out.jsonl"
        with source.open("w", encoding="utf-8") as handle:
            for i, text in enumerate(faults.texts(args.rows, seed=3)):
                handle.write(json.dumps({"id": f"r{i}", "text": text.split(". ")[0].rstrip(".") + "."}) + "\n")
        started = time.perf_counter()
        summary = asyncio.run(veracity.abatch(source, out, concurrency=args.concurrency, checker=scripted_checker(),
                                              on_row=on_row))
        seconds = time.perf_counter() - started
        out_mib = out.stat().st_size / 1_048_576
    print(f"\n{summary.checked} rows ({summary.failed} failed), {summary.claims} claims in {seconds:.0f} s, "
          f"concurrency {args.concurrency}; output file {out_mib:.1f} MiB\n")
    print("| rows done | RSS (MiB) |")
    print("|---:|---:|")
    for rows, mib in samples:
        print(f"| {rows:,} | {mib:.0f} |")
    settled = [mib for rows, mib in samples if rows >= args.every]
    print(f"\nfrom {samples[1][0]:,} rows to {samples[-1][0]:,}: RSS {settled[0]:.0f} -> {settled[-1]:.0f} MiB "
          f"({settled[-1] - settled[0]:+.0f} MiB) while the output grew to {out_mib:.1f} MiB")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "_throughput_child":
        print(json.dumps(throughput_child(int(sys.argv[2]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    commands = parser.add_subparsers(dest="command", required=True)
    speed = commands.add_parser("throughput", help="offline claims/s at each concurrency")
    speed.add_argument("--concurrency", type=int, nargs="+", default=[1, 2, 4])
    speed.add_argument("--reps", type=int, default=3)
    mem = commands.add_parser("memory", help="RSS over a long batch")
    mem.add_argument("--rows", type=int, default=10_000)
    mem.add_argument("--every", type=int, default=1000)
    mem.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    throughput(args) if args.command == "throughput" else memory(args)


if __name__ == "__main__":
    main()
