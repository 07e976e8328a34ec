"""Fault benchmark: checks through the real OpenAI and Tavily clients against loopback servers that misbehave.

What runs
---------
Two stdlib HTTP servers on 127.0.0.1 play the OpenAI Chat Completions API and Tavily's
``/search``. The real ``langchain-openai`` and Tavily clients reach them through
``OPENAI_BASE_URL`` / ``TAVILY_API_BASE_URL``; nothing leaves loopback.

* A good model answer follows the prompt contracts: extraction returns one claim per sentence
  of the text (each `source` verbatim); the judge supports the claim citing the first evidence
  item with a quote copied from it. A good search returns one result whose content holds the
  claim.
* Each request is a fault with probability ``--fault-rate`` (default 0.3). Whether a request is
  a fault, and which one, is a pure function of (seed, server, what is asked, attempt number
  for that ask), so a run is reproducible whatever order concurrent requests arrive in.
  Model faults: HTTP 500, HTTP 429, a stall longer than the per-call timeout, a dropped
  connection, a truncated body, prose instead of JSON, JSON of the wrong shape, an error body
  with HTTP 200, empty content. Search faults: HTTP 500, HTTP 429, a stall, a dropped
  connection, a truncated body, no ``results`` key, an error body with HTTP 200, results with
  blank content, a body that is not JSON.

What is counted (targets: all zero)
-----------------------------------
* **crashes**: `acheck` raised instead of returning a report;
* **hangs**: a check that ran longer than its deadline (``check_deadline``) plus 10 s of grace;
* **claims without an outcome**: a claim with neither a verdict nor a typed failure naming it;
* **ok despite failed evidence**: a report with ``ok=true`` although every search for one of
  its claims was answered by a fault (known from the servers' own records).

Run it (from the repository root)::

    .venv/bin/python benchmarks/faults.py
    .venv/bin/python benchmarks/faults.py --checks 200 --fault-rate 0.3 --seed 7 --concurrency 8

Surfaces
--------
``--only surfaces`` runs the surface cases of ``benchmarks/surface_faults.py`` instead (a
poisoned cache entry, repeated batch ids, cited URL forms, slow-drip and huge pages, tampered
reports, FIFOs, oversized model answers; see its docstring), and ``--only all`` runs both::

    .venv/bin/python benchmarks/faults.py --only surfaces
    .venv/bin/python benchmarks/faults.py --only surfaces --case verify --case pages
    .venv/bin/python benchmarks/faults.py --only all

The exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import socket
import statistics
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from fake_api import (
    CLAIM_LINE,
    EXTRACTION_MARKER,
    LoopbackServer,
    completion,
    good_model_reply,
    prompt_of,
    send,
)

MODEL_FAULTS = ("http_500", "http_429", "stall", "drop", "truncated", "prose", "wrong_shape", "error_200",
                "empty_content")
SEARCH_FAULTS = ("http_500", "http_429", "stall", "drop", "truncated", "no_results_key", "error_200",
                 "blank_content", "not_json")
PLACES = ("Alderbrook", "Bramcote", "Corriehill", "Dunmere", "Elmstead", "Fallowfield", "Glenrock", "Hartwell")
FACTS = ("has {n} public libraries", "opened its railway station in {year}", "lies {n} kilometres from the coast",
         "holds a market every {day}", "has a population of about {n} thousand")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")


def draw(seed: int, *parts: object) -> float:
    """A number in [0, 1) fixed by `seed` and `parts`."""
    digest = hashlib.sha256(repr((seed, *parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass
class FaultPlan:
    """Decides, per request, whether to misbehave and how; records what each ask received."""

    seed: int
    rate: float
    stall_seconds: float
    attempts: Counter[tuple[str, str]] = field(default_factory=Counter)
    outcomes: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def decide(self, server: str, ask: str, faults: tuple[str, ...]) -> str:
        """'ok' or the name of the fault for this request."""
        with self.lock:
            self.attempts[server, ask] += 1
            attempt = self.attempts[server, ask]
        fault = "ok"
        if draw(self.seed, server, ask, attempt, "fault?") < self.rate:
            fault = faults[int(draw(self.seed, server, ask, attempt, "which") * len(faults))]
        with self.lock:
            self.outcomes.setdefault((server, ask), []).append(fault)
        return fault

    def every_answer_failed(self, server: str, ask: str) -> bool:
        """True when `ask` was asked and no answer to it was good."""
        answers = self.outcomes.get((server, ask), [])
        return bool(answers) and all(answer != "ok" for answer in answers)


def common_fault(handler: BaseHTTPRequestHandler, fault: str, stall: float) -> bool:
    """Serve a fault both servers share; False when `fault` is server-specific."""
    if fault == "http_500":
        send(handler, 500, b'{"error": {"message": "internal error"}}')
    elif fault == "http_429":
        send(handler, 429, b'{"error": {"message": "rate limited"}}')
    elif fault == "stall":
        time.sleep(stall)
        handler.close_connection = True
    elif fault == "drop":
        handler.close_connection = True
        handler.connection.shutdown(socket.SHUT_RDWR)
    elif fault == "truncated":
        send(handler, 200, b'{"id": "cut', declared=400)
    else:
        return False
    return True


def model_ask(prompt: str) -> str:
    """What the model is asked, for the fault plan: the claim of a judge prompt, else the whole prompt."""
    claim = CLAIM_LINE.search(prompt)
    return claim.group(1) if claim and EXTRACTION_MARKER not in prompt else prompt


def model_server(plan: FaultPlan) -> LoopbackServer:
    """The OpenAI Chat Completions fake."""

    def answer(path: str, body: Any, handler: BaseHTTPRequestHandler) -> None:
        prompt = prompt_of(body)
        fault = plan.decide("model", model_ask(prompt), MODEL_FAULTS)
        if common_fault(handler, fault, plan.stall_seconds):
            return
        content = {"ok": json.dumps(good_model_reply(prompt)), "prose": "I believe this is probably true.",
                   "wrong_shape": json.dumps({"verdict": "yes", "confidence": 0.9}), "empty_content": ""}.get(fault)
        if fault == "error_200":
            send(handler, 200, b'{"error": {"message": "the model is overloaded", "type": "server_error"}}')
        else:
            send(handler, 200, completion(body, content))

    return LoopbackServer(answer)


def search_server(plan: FaultPlan) -> LoopbackServer:
    """The Tavily ``/search`` fake."""

    def answer(path: str, body: Any, handler: BaseHTTPRequestHandler) -> None:
        query = str(body.get("query", ""))
        fault = plan.decide("search", query, SEARCH_FAULTS)
        if common_fault(handler, fault, plan.stall_seconds):
            return
        result = {"title": "Gazetteer", "url": "https://gazetteer.example/" + hashlib.md5(query.encode()).hexdigest(),
                  "content": f"From the gazetteer: {query} The entry was last reviewed this year.", "score": 0.9}
        payload: Any = {"query": query, "results": [result], "response_time": 0.01}
        if fault == "no_results_key":
            payload = {"query": query, "response_time": 0.01}
        elif fault == "error_200":
            payload = {"detail": {"error": "Unauthorized: missing or invalid API key."}}
        elif fault == "blank_content":
            payload = {"query": query, "results": [{**result, "content": "  "}], "response_time": 0.01}
        send(handler, 200, b"<html>Bad gateway</html>" if fault == "not_json" else json.dumps(payload).encode())

    return LoopbackServer(answer)


def texts(count: int, seed: int) -> list[str]:
    """`count` texts of one to three made-up, unique claims each."""
    out = []
    for i in range(count):
        sentences = []
        for j in range(1 + int(draw(seed, "claims", i) * 3)):
            place = f"{PLACES[int(draw(seed, 'place', i, j) * len(PLACES))]} {i}-{j}"
            fact = FACTS[int(draw(seed, "fact", i, j) * len(FACTS))].format(
                n=2 + int(draw(seed, "n", i, j) * 40), year=1850 + int(draw(seed, "y", i, j) * 100),
                day=DAYS[int(draw(seed, "d", i, j) * len(DAYS))])
            sentences.append(f"{place} {fact}.")
        out.append(" ".join(sentences))
    return out


@dataclass
class Tally:
    """What the checks came to."""

    seconds: list[float] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    hangs: int = 0
    claims: int = 0
    without_outcome: int = 0
    ok_despite_failed_evidence: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    ok_reports: int = 0


async def run(args: argparse.Namespace) -> tuple[Tally, FaultPlan]:
    """Run the checks, `args.concurrency` at a time, and tally them."""
    import veracity

    plan = FaultPlan(seed=args.seed, rate=args.fault_rate, stall_seconds=args.stall)
    model, search = model_server(plan), search_server(plan)
    os.environ.update(OPENAI_API_KEY="fault-key", OPENAI_BASE_URL=model.url + "/v1", TAVILY_API_KEY="tvly-fault",
                      TAVILY_API_BASE_URL=search.url, LANGSMITH_TRACING="false", NO_PROXY="127.0.0.1,localhost")
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        os.environ.pop(name, None)
    # Cited pages are not fetched: this benchmark is about the model and the search; page fetches
    # have their own tests against a loopback web server.
    checker = veracity.Checker(model="openai:gpt-4.1-mini", search="web", model_timeout=args.timeout,
                               search_timeout=args.timeout, check_deadline=args.deadline, search_backoff=0.01,
                               verify_pages=False)
    tally, slots, done = Tally(), asyncio.Semaphore(args.concurrency), [0]
    all_texts = texts(args.checks, args.seed)

    async def one(text: str) -> None:
        async with slots:
            started = time.perf_counter()
            try:
                report = await asyncio.wait_for(checker.acheck(text), args.deadline + 60)
            except Exception as error:  # noqa: BLE001 (every escape is a finding)
                tally.crashes.append(f"{type(error).__name__}: {error}"[:200])
                return
            finally:
                tally.seconds.append(time.perf_counter() - started)
                done[0] += 1
                if done[0] % 20 == 0:
                    print(f"  {done[0]}/{len(all_texts)} checks", file=sys.stderr, flush=True)
        if tally.seconds[-1] > args.deadline + 10:
            tally.hangs += 1
        named = {getattr(f, "claim_id", None) for f in report.failures}
        whole = any(f.kind == "deadline" for f in report.failures)
        tally.claims += len(report.claims)
        tally.ok_reports += report.ok
        tally.failures.update(f"{f.kind}:{getattr(f, 'step', '')}" for f in report.failures)
        for claim in report.claims:
            verdict = report.verdict_for(claim.id)
            tally.labels[verdict.label if verdict else "none"] += 1
            if verdict is None and claim.id not in named and not whole:
                tally.without_outcome += 1
            if report.ok and plan.every_answer_failed("search", claim.text):
                tally.ok_despite_failed_evidence += 1

    try:
        await asyncio.gather(*(one(text) for text in all_texts))
    finally:
        model.close()
        search.close()
    return tally, plan


def network_faults(args: argparse.Namespace) -> bool:
    """Run the network-fault checks and print their table; True when every target is met."""
    started = time.perf_counter()
    tally, plan = asyncio.run(run(args))
    injected = Counter(f"{server}:{fault}" for (server, _), answers in plan.outcomes.items()
                       for fault in answers if fault != "ok")
    requests = sum(len(answers) for answers in plan.outcomes.values())
    figures = {
        "checks": args.checks, "fault_rate": args.fault_rate, "seed": args.seed, "requests": requests,
        "faults_injected": sum(injected.values()), "crashes": len(tally.crashes), "hangs": tally.hangs,
        "claims": tally.claims, "claims_without_outcome": tally.without_outcome,
        "ok_despite_failed_evidence": tally.ok_despite_failed_evidence, "ok_reports": tally.ok_reports,
        "labels": dict(tally.labels), "failures": dict(tally.failures), "faults": dict(sorted(injected.items())),
        "check_seconds_median": round(statistics.median(tally.seconds), 2) if tally.seconds else None,
        "check_seconds_max": round(max(tally.seconds), 2) if tally.seconds else None,
        "wall_seconds": round(time.perf_counter() - started, 1), "crash_samples": tally.crashes[:5],
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"| checks | requests | faults injected | crashes | hangs | claims | without outcome | "
              f"ok despite failed evidence | ok reports | median / max check s |\n|{'---|' * 10}\n"
              f"| {args.checks} | {requests} | {figures['faults_injected']} | {figures['crashes']} | "
              f"{tally.hangs} | {tally.claims} | {tally.without_outcome} | {tally.ok_despite_failed_evidence} | "
              f"{tally.ok_reports} | {figures['check_seconds_median']} / {figures['check_seconds_max']} |")
        print(f"\nverdicts: {dict(tally.labels)}\nfailures: {dict(tally.failures)}\nfaults: {dict(injected)}")
        print(f"wall time {figures['wall_seconds']} s")
        for sample in tally.crashes[:5]:
            print(f"crash: {sample}")
    return not (tally.crashes or tally.hangs or tally.without_outcome or tally.ok_despite_failed_evidence)


def main() -> None:
    """Parse arguments, run, print the table(s), exit 1 when a target is missed."""
    import surface_faults

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", choices=("network", "surfaces", "all"), default="network",
                        help="network: checks through misbehaving model and search servers (the default); "
                             "surfaces: the cases of surface_faults.py; all: both")
    parser.add_argument("--checks", type=int, default=200)
    parser.add_argument("--fault-rate", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=2.0, help="model_timeout and search_timeout, seconds")
    parser.add_argument("--stall", type=float, default=4.0, help="how long a stalled answer takes, seconds")
    parser.add_argument("--deadline", type=float, default=60.0, help="check_deadline, seconds")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    surface_faults.add_arguments(parser)
    args = parser.parse_args()
    met = True
    if args.only in ("network", "all"):
        met = network_faults(args)
    if args.only in ("surfaces", "all"):
        rows, seconds = surface_faults.run_surfaces(args.cases, args.keep)
        if args.json:
            print(json.dumps([vars(row) for row in rows], indent=2))
            met = met and all(row.ok is not False for row in rows)
        else:
            met = surface_faults.print_table(rows, seconds) and met
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
