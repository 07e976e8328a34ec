"""MCP overhead benchmark: a `check_text` tool call against a direct `veracity.acheck` of the same text.

What is measured
----------------
* **direct**: ``veracity.acheck(text, model="offline", source_text=POLICY)``, in this process.
* **via MCP**: the `check_text` tool with the same arguments, called through the SDK's client on an
  in-memory transport (`mcp.shared.memory.create_connected_server_and_client_session`) to a server
  made by `veracity.mcp_server.create_mcp_server` on the same checker `veracity.acheck` uses (so both
  share the compiled graph and the offline judge's memories). The client asks for progress, so a
  notification per claim is part of the cost; so are the JSON-RPC framing, argument validation, the
  result's structured content and its JSON text, and keeping the report for the session.
* **overhead**: via MCP minus direct, per pair of runs. Pairs are interleaved (direct first, then MCP
  first, in turn) after a warm-up, and each figure is the median over `--runs` pairs.
* **client check**: of that overhead, what the SDK's Python client spends validating the result against
  the tool's output schema (`jsonschema.validate`, which checks the schema itself on every call): the
  same call timed alone on the same result. The rest is the server's and the transport's.

The target is an overhead of at most 50 ms at the median; the exit status is 1 when it is missed.
Every run's verdicts are compared (labels and quotes): a run whose verdicts differ aborts the benchmark.

Run it (from the repository root)::

    .venv/bin/python benchmarks/mcp_overhead.py
    .venv/bin/python benchmarks/mcp_overhead.py --runs 50 --claims 2,20 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any

os.environ.setdefault("LANGSMITH_TRACING", "false")
os.environ.setdefault("VERACITY_CACHE", os.path.join(tempfile.mkdtemp(prefix="veracity-bench-"), "cache.sqlite"))

import jsonschema  # noqa: E402  (after the environment is set)
from mcp import ClientSession  # noqa: E402
from mcp.shared.memory import create_connected_server_and_client_session  # noqa: E402
from referencing import Registry  # noqa: E402

import veracity  # noqa: E402
from veracity.api import shared_checker  # noqa: E402
from veracity.mcp_server.server import create_mcp_server  # noqa: E402

TARGET_MS = 50.0
POLICY = ("The customer may return a package within 14 days of the delivery date. "
          "After that period, returns are not accepted. Refunds are paid within 5 working days.")


def text_of(claims: int) -> str:
    """A text of `claims` sentences, one claim each: every other one stays within the policy."""
    return " ".join(f"Parcel {n + 1} can be returned within {14 if n % 2 == 0 else 30} days of its delivery date."
                    for n in range(claims))


async def direct(text: str) -> tuple[float, list[tuple[str, str | None]]]:
    started = time.perf_counter()
    report = await veracity.acheck(text, model="offline", source_text=POLICY)
    seconds = time.perf_counter() - started
    return seconds, [(v.label, v.quote) for claim in report.claims if (v := report.verdict_for(claim.id))]


async def via_mcp(session: ClientSession, text: str) -> tuple[float, dict[str, Any]]:
    async def heard(progress: float, total: float | None, message: str | None) -> None:
        return None

    started = time.perf_counter()
    result = await session.call_tool("check_text", {"text": text, "source_text": POLICY, "model": "offline"},
                                     progress_callback=heard)
    seconds = time.perf_counter() - started
    if result.isError or result.structuredContent is None:
        raise SystemExit(f"the tool call failed: {result.content}")
    return seconds, result.structuredContent


def verdicts_of(result: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(claim["label"], claim["quote"]) for claim in result["claims"]]


def client_check_seconds(result: dict[str, Any], schema: dict[str, Any]) -> float:
    """How long the SDK's client takes to validate `result` against `schema`, as it does after every call."""
    started = time.perf_counter()
    jsonschema.validate(result, schema, registry=Registry())
    return time.perf_counter() - started


async def measure(claims: int, runs: int, warmup: int) -> dict[str, Any]:
    text = text_of(claims)
    server = create_mcp_server(shared_checker(), local_client=True)
    async with create_connected_server_and_client_session(server) as session:
        schema = next(tool.outputSchema for tool in (await session.list_tools()).tools if tool.name == "check_text")
        assert schema is not None
        for _ in range(warmup):
            await direct(text)
            await via_mcp(session, text)
        directs, tools, overheads, client_checks = [], [], [], []
        for run in range(runs):
            if run % 2:
                tool_seconds, result = await via_mcp(session, text)
                direct_seconds, direct_verdicts = await direct(text)
            else:
                direct_seconds, direct_verdicts = await direct(text)
                tool_seconds, result = await via_mcp(session, text)
            if verdicts_of(result) != direct_verdicts or len(direct_verdicts) != claims:
                raise SystemExit(f"run {run}: the verdicts differ:\n direct {direct_verdicts}\n"
                                 f" MCP    {verdicts_of(result)}")
            directs.append(direct_seconds)
            tools.append(tool_seconds)
            overheads.append(tool_seconds - direct_seconds)
            client_checks.append(client_check_seconds(result, schema))
    return {
        "claims": claims, "runs": runs,
        "direct_ms": 1000 * statistics.median(directs), "mcp_ms": 1000 * statistics.median(tools),
        "overhead_ms": 1000 * statistics.median(overheads),
        "client_check_ms": 1000 * statistics.median(client_checks),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="interleaved pairs per size (default 30)")
    parser.add_argument("--warmup", type=int, default=3, help="pairs run first and not counted (default 3)")
    parser.add_argument("--claims", default="2,10", help="comma-separated claims per text (default 2,10)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    rows = [asyncio.run(measure(int(size), args.runs, args.warmup)) for size in args.claims.split(",")]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"{'claims':>6} {'runs':>5} {'direct ms':>10} {'via MCP ms':>11} {'overhead ms':>12} "
              f"{'of which client check ms':>25}")
        for row in rows:
            print(f"{row['claims']:>6} {row['runs']:>5} {row['direct_ms']:>10.1f} {row['mcp_ms']:>11.1f} "
                  f"{row['overhead_ms']:>12.1f} {row['client_check_ms']:>25.1f}")
        print(f"target: overhead <= {TARGET_MS:.0f} ms at the median")
    return 0 if all(row["overhead_ms"] <= TARGET_MS for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
