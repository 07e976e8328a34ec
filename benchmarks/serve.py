"""HTTP throughput and latency of `veracity serve` in offline mode, at several concurrency levels.

Starts ``veracity serve --model offline`` in a child process on a free loopback port (rate
limit raised out of the way), warms it up, then for each concurrency level sends `--requests`
POST /factcheck/invoke requests with at most that many in flight. Each request checks a
5-claim support answer against its return policy (source mode: no knowledge base, no
network). Reports throughput, p50/p99 latency and errors (any non-200 or transport error),
which should be zero.

Run it (repository root)::

    .venv/bin/python benchmarks/serve.py
    .venv/bin/python benchmarks/serve.py --concurrency 8,32 --requests 128
"""

from __future__ import annotations

import argparse
import asyncio
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


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(port: int) -> subprocess.Popen:
    """`veracity serve` in a child process; returns once /healthz answers."""
    veracity = Path(sys.executable).with_name("veracity")
    process = subprocess.Popen(
        [str(veracity), "serve", "--model", "offline", "--port", str(port), "--rate-limit", "1000000/second"],
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


async def run_level(url: str, concurrency: int, requests: int) -> dict:
    """Send `requests` invokes with at most `concurrency` in flight; latencies in ms."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    body = {"input": {"text": ANSWER, "source_text": POLICY}}
    gate = asyncio.Semaphore(concurrency)
    latencies: list[float] = []
    errors: list[str] = []

    async with httpx.AsyncClient(limits=limits, timeout=600) as client:
        async def one() -> None:
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
    """Start the server, run every level, print a Markdown table; exit 1 if any request failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", default="8,32,128", help="comma-separated levels")
    parser.add_argument("--requests", type=int, default=256, help="requests per level")
    parser.add_argument("--warmup", type=int, default=8, help="untimed requests first")
    args = parser.parse_args(argv)
    levels = [int(level) for level in args.concurrency.split(",")]

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = start_server(port)
    try:
        asyncio.run(run_level(url, min(4, args.warmup), args.warmup))
        results = []
        for level in levels:
            print(f"concurrency {level}: {args.requests} requests…", file=sys.stderr, flush=True)
            results.append(asyncio.run(run_level(url, level, args.requests)))
    finally:
        process.terminate()
        process.wait(timeout=30)

    command = " ".join(["python benchmarks/serve.py", *(argv if argv is not None else sys.argv[1:])])
    print(f"Command: `{command}`")
    print(f"Python {platform.python_version()} on {platform.platform()}, {os.cpu_count()} CPUs; server: "
          f"`veracity serve --model offline` (one uvicorn worker), client in another process on loopback. "
          f"Each request: a 5-claim answer checked against its policy (source mode).")
    print()
    print("| concurrency | requests | wall (s) | requests/s | p50 (ms) | p99 (ms) | errors |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        kinds = f" ({', '.join(r['error_kinds'])})" if r["errors"] else ""
        print(f"| {r['concurrency']} | {r['requests']} | {r['wall_s']:.1f} | {r['throughput']:.1f} | "
              f"{r['p50_ms']:.0f} | {r['p99_ms']:.0f} | {r['errors']}{kinds} |")
    return 1 if any(r["errors"] for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
