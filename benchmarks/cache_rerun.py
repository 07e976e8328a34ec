"""Cache benchmark: the same texts through `veracity batch` twice, against loopback model and search servers.

Two stdlib HTTP servers on 127.0.0.1 play the OpenAI Chat Completions API and Tavily's
``/search`` (the well-behaved answers of ``benchmarks/faults.py``, with no faults), each
answering after a fixed delay (``--model-latency``, ``--search-latency``) so the wall times
resemble a real API's rather than loopback's. The real ``langchain-openai`` and Tavily clients
reach them through ``OPENAI_BASE_URL`` / ``TAVILY_API_BASE_URL``.

Per repetition, with a new empty cache file: ``veracity.abatch`` checks the texts into one
output file (first run), then the same texts into a second output file (second run; a new
file, so resume skips nothing). Counted per run: requests each server received, and the trace's
cache outcomes; timed: the wall time of each ``abatch`` call. The reports of the two runs must
hold the same claims and verdicts. Cited pages are not fetched (``verify_pages=False``): page
checks read the live page on purpose and are never cached.

Run it (from the repository root)::

    .venv/bin/python benchmarks/cache_rerun.py
    .venv/bin/python benchmarks/cache_rerun.py --texts 20 --reps 3 --model-latency 0.3 --search-latency 0.4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import faults  # noqa: E402 (the sibling benchmark's loopback servers)


class CountingDelay:
    """Wraps a server's answer function: counts requests and answers after `delay` seconds."""

    def __init__(self, server: faults.LoopbackServer, delay: float) -> None:
        self.requests = 0
        self._answer = server.answer
        self._delay = delay
        self._lock = threading.Lock()
        server.answer = self  # type: ignore[assignment]

    def __call__(self, path: str, body: Any, handler: Any) -> None:
        with self._lock:
            self.requests += 1
        time.sleep(self._delay)
        self._answer(path, body, handler)


def verdicts(out: Path) -> dict[str, list[tuple[str, str, str | None]]]:
    """Claims and verdicts of every row in an output file, by row id."""
    rows = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        report = record["report"]
        rows[record["id"]] = [(v["claim_id"], v["label"], v.get("quote")) for v in report["verdicts"]]
    return rows


def cache_outcomes(out: Path) -> Counter[str]:
    """Trace cache outcomes (model calls and searches) over every report of an output file."""
    counts: Counter[str] = Counter()
    for line in out.read_text(encoding="utf-8").splitlines():
        for record in json.loads(line)["report"]["trace"]:
            if record.get("cache"):
                counts[f"{record['step']}:{record['cache']}"] += 1
    return counts


async def one_rep(args: argparse.Namespace, folder: Path, model: CountingDelay, search: CountingDelay) -> dict:
    import veracity

    source = folder / "texts.jsonl"
    source.write_text("".join(json.dumps({"id": f"t{i}", "text": text}) + "\n"
                              for i, text in enumerate(faults.texts(args.texts, args.seed))), encoding="utf-8")
    settings = dict(model="openai:gpt-4.1-mini", search="web", verify_pages=False, search_backoff=0.01,
                    cache_path=str(folder / "cache.sqlite"))
    result: dict[str, Any] = {}
    for run in ("first", "second"):
        before = model.requests, search.requests
        out = folder / f"{run}.jsonl"
        started = time.perf_counter()
        summary = await veracity.abatch(source, out, concurrency=args.concurrency, **settings)
        seconds = time.perf_counter() - started
        assert summary.failed == 0, summary.failures
        result[run] = {"seconds": seconds, "model_calls": model.requests - before[0],
                       "searches": search.requests - before[1], "claims": summary.claims,
                       "cache": cache_outcomes(out)}
    result["same_reports"] = verdicts(folder / "first.jsonl") == verdicts(folder / "second.jsonl")
    return result


async def main_async(args: argparse.Namespace) -> int:
    plan = faults.FaultPlan(seed=args.seed, rate=0.0, stall_seconds=0.0)
    model_server, search_server = faults.model_server(plan), faults.search_server(plan)
    model, search = CountingDelay(model_server, args.model_latency), CountingDelay(search_server, args.search_latency)
    os.environ.update(OPENAI_API_KEY="bench-key", OPENAI_BASE_URL=model_server.url + "/v1", TAVILY_API_KEY="tvly-bench",
                      TAVILY_API_BASE_URL=search_server.url, LANGSMITH_TRACING="false",
                      NO_PROXY="127.0.0.1,localhost")
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        os.environ.pop(name, None)
    reps = []
    try:
        for rep in range(args.reps):
            with tempfile.TemporaryDirectory(prefix="veracity-cache-bench-") as folder:
                reps.append(await one_rep(args, Path(folder), model, search))
            first, second = reps[-1]["first"], reps[-1]["second"]
            print(f"rep {rep + 1}: first {first['seconds']:.2f} s ({first['model_calls']} model calls, "
                  f"{first['searches']} searches), second {second['seconds']:.2f} s ({second['model_calls']} model "
                  f"calls, {second['searches']} searches), same reports: {reps[-1]['same_reports']}", file=sys.stderr)
    finally:
        model_server.close()
        search_server.close()

    def med(run: str, key: str) -> float:
        return statistics.median(r[run][key] for r in reps)

    print(f"\n{args.texts} texts, {reps[0]['first']['claims']} claims, concurrency {args.concurrency}, "
          f"model latency {args.model_latency:g} s, search latency {args.search_latency:g} s, {args.reps} reps "
          f"(median)\n")
    print("| run | wall (s) | model calls | searches | cache outcomes in the trace |")
    print("|:---|---:|---:|---:|:---|")
    for run in ("first", "second"):
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(reps[0][run]["cache"].items()))
        print(f"| {run} | {med(run, 'seconds'):.2f} | {med(run, 'model_calls'):.0f} | {med(run, 'searches'):.0f} "
              f"| {outcomes} |")
    ratios = [r["second"]["seconds"] / r["first"]["seconds"] for r in reps]
    print(f"\nwall time second/first: median {statistics.median(ratios):.3f} "
          f"(per rep: {', '.join(f'{r:.3f}' for r in ratios)}); same reports in every rep: "
          f"{all(r['same_reports'] for r in reps)}")
    missed = any(r["second"]["model_calls"] or r["second"]["searches"] or not r["same_reports"] for r in reps)
    return 1 if missed else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--texts", type=int, default=20)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--model-latency", type=float, default=0.3, help="Seconds the model server waits per call.")
    parser.add_argument("--search-latency", type=float, default=0.4, help="Seconds the search server waits per call.")
    sys.exit(asyncio.run(main_async(parser.parse_args())))


if __name__ == "__main__":
    main()
