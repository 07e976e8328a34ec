"""HTTP throughput and latency of `veracity serve` in offline mode, by worker count and concurrency level.

For each worker count (``--workers``, e.g. ``1,2``) starts ``veracity serve --model offline
--workers N`` in a child process on a free loopback port (rate limit raised out of the way),
warms it up, then for each concurrency level sends `--requests` POST /factcheck/invoke requests
with at most that many in flight. Each request checks a 5-claim support answer against its
return policy (source mode: no knowledge base, no network). By default every request sends the
same answer, as a server answering one policy's questions sees again and again (its judge
remembers judgements and scores); with ``--vary`` each request's answer has its own numbers
(`varied_answer`), so every claim is new to the server and the judge scores every passage.
Reports throughput, p50/p99 latency, the server's CPU per request (the whole process tree, read
from /proc; Linux only) and errors (any non-200 or transport error), which should be zero.

Run it (repository root)::

    .venv/bin/python benchmarks/serve.py --workers 1,2
    .venv/bin/python benchmarks/serve.py --workers 1,2 --vary
    .venv/bin/python benchmarks/serve.py --concurrency 8,32 --requests 128

An older checkout is measured by putting its ``src`` first on ``PYTHONPATH`` (the server inherits
it); one without ``--workers`` is measured with ``--workers 1``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

POLICY = (
    "Items may be returned within 30 days of delivery for a full refund. Items must be unused and in their "
    "original packaging. Refunds are issued to the original payment method within 5 business days of "
    "receiving the return. Sale items are final and cannot be returned. Return shipping is free for orders "
    "over $50."
)
ANSWER = (
    "You can return items within 30 days of delivery. They need to be unused and in the original packaging. "
    "Your refund reaches your original payment method within 5 business days. Sale items can be returned "
    "too. Return shipping is free on orders over $50."
)


def varied_answer(n: int) -> str:
    """`ANSWER` with every claim carrying numbers of its own for request `n`: no claim repeats across requests."""
    days, refund, spend = 30 + n, 5 + n, 50 + n
    return (f"You can return items within {days} days of delivery. Items returned within {days} days need to be "
            f"unused and in the original packaging. Your refund reaches your original payment method within "
            f"{refund} business days. Sale items bought in the last {days} days can be returned too. Return "
            f"shipping is free on orders over ${spend}.")


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def knows_workers() -> bool:
    """Whether the `veracity serve` measured has ``--workers`` (an older checkout on PYTHONPATH may not)."""
    veracity = Path(sys.executable).with_name("veracity")
    shown = subprocess.run([str(veracity), "serve", "--help"], capture_output=True, text=True, check=True)
    return "--workers" in shown.stdout


def start_server(port: int, workers: int | None) -> subprocess.Popen:
    """`veracity serve --workers N` (None: without the option) in a child process; returns once /healthz answers."""
    veracity = Path(sys.executable).with_name("veracity")
    process = subprocess.Popen(
        [str(veracity), "serve", "--model", "offline", "--port", str(port), "--rate-limit", "1000000/second",
         *([] if workers is None else ["--workers", str(workers)])],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "LANGSMITH_TRACING": "false"},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the server did not start within 60 s")


def tree_cpu_seconds(pid: int) -> float | None:
    """CPU seconds (user + system) used so far by process `pid` and its children; None without /proc."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total, found = 0.0, False
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry.name) == pid or int(fields[1]) == pid:  # the server, or one of its workers
            total += (int(fields[11]) + int(fields[12])) / tick
            found = True
    return total if found else None


async def run_level(url: str, concurrency: int, requests: int, answers: itertools.count | None) -> dict:
    """Send `requests` invokes with at most `concurrency` in flight; latencies in ms.

    `answers` numbers the varied answers (None: the same answer every time).
    """
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    gate = asyncio.Semaphore(concurrency)
    latencies: list[float] = []
    errors: list[str] = []

    async with httpx.AsyncClient(limits=limits, timeout=600) as client:
        async def one() -> None:
            text = ANSWER if answers is None else varied_answer(next(answers))
            body = {"input": {"text": text, "source_text": POLICY}}
            async with gate:
                started = time.perf_counter()
                try:
                    response = await client.post(url + "/factcheck/invoke", json=body)
                    if response.status_code != 200:
                        errors.append(f"HTTP {response.status_code}")
                except httpx.HTTPError as error:
                    errors.append(type(error).__name__)
                latencies.append((time.perf_counter() - started) * 1000)

        started = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(requests)))
        wall = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "concurrency": concurrency, "requests": requests, "wall_s": wall, "throughput": requests / wall,
        "p50_ms": statistics.median(ordered), "p99_ms": ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
        "errors": len(errors), "error_kinds": sorted(set(errors)),
    }


def main(argv: list[str] | None = None) -> int:
    """Start a server per worker count, run every level, print a Markdown table; exit 1 if any request failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts (one server each)")
    parser.add_argument("--concurrency", default="8,32,128", help="comma-separated levels")
    parser.add_argument("--requests", type=int, default=256, help="requests per level")
    parser.add_argument("--warmup", type=int, default=8, help="untimed requests first, per server")
    parser.add_argument("--vary", action="store_true", help="a different answer in every request (no memory helps)")
    args = parser.parse_args(argv)
    levels = [int(level) for level in args.concurrency.split(",")]
    worker_counts = [int(count) for count in args.workers.split(",")]
    answers = itertools.count() if args.vary else None
    has_workers = knows_workers()
    if not has_workers:
        if worker_counts != [1]:
            parser.error("this veracity serve has no --workers (one worker only): pass --workers 1")
        print("veracity serve has no --workers: measuring its one worker", file=sys.stderr)

    results = []
    for workers in worker_counts:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        process = start_server(port, workers if has_workers else None)
        try:
            asyncio.run(run_level(url, min(4, args.warmup), args.warmup, answers))
            for level in levels:
                print(f"{workers} worker(s), concurrency {level}: {args.requests} requests…", file=sys.stderr,
                      flush=True)
                cpu_before = tree_cpu_seconds(process.pid)
                result = asyncio.run(run_level(url, level, args.requests, answers))
                cpu_after = tree_cpu_seconds(process.pid)
                result["workers"] = workers
                result["cpu_ms"] = (None if cpu_before is None or cpu_after is None
                                    else (cpu_after - cpu_before) * 1000 / args.requests)
                results.append(result)
        finally:
            process.terminate()
            process.wait(timeout=30)

    command = " ".join(["python benchmarks/serve.py", *(argv if argv is not None else sys.argv[1:])])
    if os.environ.get("PYTHONPATH"):
        command += f"` with `PYTHONPATH={os.environ['PYTHONPATH']}"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"Command: `{command}`")
    print(f"Python {platform.python_version()} on {platform.platform()}, {os.cpu_count()} CPUs ({cores} usable); "
          f"server: `veracity serve --model offline --workers N`, client in another process on loopback. "
          f"Each request: a 5-claim answer checked against its policy (source mode), "
          f"{'a different answer each time (--vary)' if args.vary else 'the same answer each time'}. "
          f"CPU: the server's processes, per request.")
    print()
    print("| workers | concurrency | requests | wall (s) | requests/s | p50 (ms) | p99 (ms) | CPU/req (ms) | errors |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        kinds = f" ({', '.join(r['error_kinds'])})" if r["errors"] else ""
        cpu = "n/a" if r["cpu_ms"] is None else f"{r['cpu_ms']:.0f}"
        print(f"| {r['workers']} | {r['concurrency']} | {r['requests']} | {r['wall_s']:.1f} | {r['throughput']:.1f} | "
              f"{r['p50_ms']:.0f} | {r['p99_ms']:.0f} | {cpu} | {r['errors']}{kinds} |")
    return 1 if any(r["errors"] for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
