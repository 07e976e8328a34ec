"""Per-check engine cost with the graph compiled once (a reused `veracity.Checker`) against compiling per check.

Both arms run the same scripted check in one process, interleaved A B A B, with a scripted chat
model and evidence backend that answer at once, so what is timed is veracity's own work per
check: building resources and compiling the graph (the per-call arm only), then running it.

* **per call**: ``veracity.Checker(model=..., backend=...).acheck(text)``: a new checker, hence a
  new graph, for every check (how `veracity.acheck` worked before `Checker`).
* **reused**: one ``veracity.Checker`` built up front; every check calls its ``acheck``.

Printed: the median and p90 milliseconds per check of each arm over ``--checks`` checks (after
``--warmup`` unrecorded rounds), the ratio of the medians, and the median compile time alone.

Run it (from the repository root)::

    .venv/bin/python benchmarks/compile_once.py
    .venv/bin/python benchmarks/compile_once.py --checks 400 --claims 5
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

from langchain_core.messages import BaseMessage

import veracity
from veracity.contracts import Report, SearchHit
from veracity.testing import Reply, ScriptedBackend, ScriptedChatModel, prompt_text


def scripted(claims: int) -> tuple[str, ScriptedChatModel, ScriptedBackend]:
    """A text of `claims` sentences, a model that extracts and supports each, and a backend that finds each."""
    sentences = [f"Station number {n} opened in {1900 + n}." for n in range(1, claims + 1)]

    def respond(messages: list[BaseMessage]) -> Reply:
        prompt = prompt_text(messages)
        if "Text to split into claims" in prompt:
            return {"claims": [{"claim": s, "source": s} for s in sentences]}
        claim = prompt.split("Claim: ", 1)[1].split("\n", 1)[0]
        number = sentences.index(claim) + 1
        return {"label": "supported", "reason": "stated", "evidence_id": f"c{number}-e1", "quote": claim}

    backend = ScriptedBackend(lambda query: [SearchHit(title="Register", text=query)])
    return " ".join(sentences), ScriptedChatModel(responder=respond), backend


async def timed(check: Callable[[], Awaitable[Report]]) -> float:
    """Milliseconds from calling `check` (building its checker, if it does) to its report."""
    started = time.perf_counter()
    report = await check()
    elapsed = (time.perf_counter() - started) * 1000
    if not report.ok or report.summary.supported != report.summary.claims:
        raise SystemExit(f"a check went wrong: {report.summary}")
    return elapsed


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--checks", type=int, default=200, help="checks per arm (default 200)")
    parser.add_argument("--claims", type=int, default=3, help="claims per text (default 3)")
    parser.add_argument("--warmup", type=int, default=10, help="unrecorded rounds first (default 10)")
    args = parser.parse_args()

    text, model, backend = scripted(args.claims)
    reused = veracity.Checker(model=model, backend=backend, max_revisions=0)
    per_call: list[float] = []
    shared: list[float] = []
    for round_number in range(args.warmup + args.checks):
        fresh_ms = await timed(lambda: veracity.Checker(model=model, backend=backend, max_revisions=0).acheck(text))
        reused_ms = await timed(lambda: reused.acheck(text))
        if round_number >= args.warmup:
            per_call.append(fresh_ms)
            shared.append(reused_ms)
    compile_ms = []
    for _ in range(50):
        started = time.perf_counter()
        veracity.build_graph(model=model, backend=backend)
        compile_ms.append((time.perf_counter() - started) * 1000)

    print(f"{args.checks} checks per arm, {args.claims} claims each, scripted model and backend (no latency)")
    print(f"per call (new Checker each check): median {statistics.median(per_call):.2f} ms, "
          f"p90 {percentile(per_call, 0.9):.2f} ms")
    print(f"reused Checker:                    median {statistics.median(shared):.2f} ms, "
          f"p90 {percentile(shared, 0.9):.2f} ms")
    print(f"ratio reused / per call (medians): {statistics.median(shared) / statistics.median(per_call):.3f}")
    print(f"compiling the graph alone: median {statistics.median(compile_ms):.2f} ms over 50")


if __name__ == "__main__":
    asyncio.run(main())
