"""Batch benchmarks: offline throughput by concurrency, and memory over a long input.

``throughput``
    The 20 five-claim paragraphs of ``benchmarks/offline.py`` (100 claims on the demo-corpus
    topics) through ``veracity.abatch`` offline (local claim splitter and judge, evidence from
    the demo knowledge base), at each ``--concurrency`` level. Each run is a fresh child
    process (no embedder cache or judge memory carried over) that first checks one unrelated
    paragraph to load the models, then times the ``abatch`` call. Reported: median wall time
    and claims/s over ``--reps`` runs per level, and the ratio to concurrency 1.

``memory``
    ``--rows`` one-claim rows (default 10,000) with an in-process scripted chat model and search
    backend (``veracity.testing``; no network), two variants, each in a fresh process: the rows
    through ``abatch`` (reports written to a file), and the same texts through plain
    ``Checker.acheck`` calls whose reports are dropped at once. The resident set size (VmRSS
    from /proc/self/status) is sampled every ``--every`` rows. The checks themselves fill
    bounded process-wide caches as they go (the embedder's LRU of 50,000 vectors, which the
    relevance filter uses, and a few word caches), so RSS creeps up in both variants; what the
    batch itself holds is the difference between the two. A batch that kept its reports would
    add about their size (the output file's) to it.

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


def embedder_cache_entries() -> int:
    """Vectors held by the process-wide embedder's LRU cache (bounded; a private attribute read here only)."""
    from veracity.offline.model.embedder import default_embedder

    return len(default_embedder().cache)


def memory_child(variant: str, rows: int, every: int, concurrency: int) -> dict[str, Any]:
    """RSS every `every` rows while `rows` rows are checked by `abatch`, or by plain checks dropping their reports."""
    import faults

    import veracity

    texts = [text.split(". ")[0].rstrip(".") + "." for text in faults.texts(rows, seed=3)]
    samples: list[tuple[int, float, int]] = [(0, rss_mib(), 0)]
    done = [0]

    def tick() -> None:
        done[0] += 1
        if done[0] % every == 0:
            samples.append((done[0], rss_mib(), embedder_cache_entries()))
            print(f"  {variant}: {done[0]} rows, RSS {samples[-1][1]:.0f} MiB", file=sys.stderr, flush=True)

    checker = scripted_checker()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="veracity-batch-memory-") as folder:
        out = Path(folder) / "out.jsonl"
        if variant == "batch":
            source = Path(folder) / "rows.jsonl"
            with source.open("w", encoding="utf-8") as handle:
                for i, text in enumerate(texts):
                    handle.write(json.dumps({"id": f"r{i}", "text": text}) + "\n")
            summary = asyncio.run(veracity.abatch(source, out, concurrency=concurrency, checker=checker,
                                                  on_row=lambda _row, _record: tick()))
            checked, out_mib = summary.checked, out.stat().st_size / 1_048_576
        else:
            async def run_all() -> int:
                slots = asyncio.Semaphore(concurrency)

                async def one(text: str) -> None:
                    async with slots:
                        await checker.acheck(text)  # the report is dropped
                    tick()

                await asyncio.gather(*(one(text) for text in texts))
                return len(texts)

            checked, out_mib = asyncio.run(run_all()), 0.0
    return {"variant": variant, "checked": checked, "seconds": time.perf_counter() - started, "out_mib": out_mib,
            "samples": samples}


def memory(args: argparse.Namespace) -> None:
    results = {}
    for variant in ("checks", "batch"):
        done = subprocess.run([sys.executable, __file__, "_memory_child", variant, str(args.rows), str(args.every),
                               str(args.concurrency)], stdout=subprocess.PIPE, text=True, check=True)
        results[variant] = json.loads(done.stdout.strip().splitlines()[-1])
    checks, batch = results["checks"], results["batch"]
    print(f"\n{args.rows:,} one-claim rows, concurrency {args.concurrency}, scripted model and search in process; "
          f"each variant in a fresh process. checks: {checks['seconds']:.0f} s, reports dropped; batch: "
          f"{batch['seconds']:.0f} s, output file {batch['out_mib']:.1f} MiB\n")
    print("| rows done | RSS, checks alone (MiB) | RSS, batch (MiB) | batch - checks (MiB) | embedder cache entries "
          "(batch) |")
    print("|---:|---:|---:|---:|---:|")
    for (rows, plain, _), (_, held, entries) in zip(checks["samples"], batch["samples"], strict=True):
        print(f"| {rows:,} | {plain:.0f} | {held:.0f} | {held - plain:+.0f} | {entries:,} |")
    first, last = batch["samples"][1], batch["samples"][-1]
    base_first, base_last = checks["samples"][1], checks["samples"][-1]
    print(f"\nfrom {first[0]:,} to {last[0]:,} rows: batch {first[1]:.0f} -> {last[1]:.0f} MiB "
          f"({last[1] - first[1]:+.0f}), checks alone {base_first[1]:.0f} -> {base_last[1]:.0f} MiB "
          f"({base_last[1] - base_first[1]:+.0f}); the batch's own growth: "
          f"{(last[1] - first[1]) - (base_last[1] - base_first[1]):+.0f} MiB")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "_throughput_child":
        print(json.dumps(throughput_child(int(sys.argv[2]))))
        return
    if len(sys.argv) == 6 and sys.argv[1] == "_memory_child":
        print(json.dumps(memory_child(sys.argv[2], *map(int, sys.argv[3:]))))
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
