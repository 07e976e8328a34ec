"""Stall faults (issue 37, items 4 and 8): a chat endpoint that never answers a chat, and first checks on a new KB.

What runs
---------
Loopback servers play an OpenAI-compatible endpoint. The real CLI runs in a subprocess with
``--model openai:gpt-4.1-mini``, ``OPENAI_BASE_URL`` pointing at one of them, evidence from a
``--source`` file and otherwise default settings:

* **stalled-chat**: ``GET /v1/models`` is answered at once (the preflight probe finds the endpoint
  alive) and every chat request is held open without a byte. Target: a typed gate failure naming
  the endpoint (exit 3) within 60 s, after one chat request.
* **stalled-judge**: the same endpoint, claims split offline (``--extract-model offline``, two
  claims) and judged by the model. Target: exit 3, each claim unverifiable with a typed judge
  failure naming the endpoint, at most one chat request per claim (not one per attempt and
  revise round), within 60 s.
* **busy-endpoint**: the first chat request is held open, every other one answered at once (a
  server working through a queue). Target: exit 0, both claims supported: the held claim is asked
  again, since the endpoint answered meanwhile.
* **slow-live**: every chat request answered after ``--delay`` seconds (default 20). Target: exit 0.

Then, in a child process:

* **kb-first-touch**: a new knowledge base of about ``--chunks`` chunks (synthetic town facts,
  ingested by the code under test, no sentence vector computed yet) gets ``--checks`` offline checks
  of three claims each, all at once, with ``search_timeout`` ``--search-timeout`` (default 20 s, the
  default setting); then the same checks again on the now filled knowledge base. Target: no search
  failed in the first pass, no claim without a verdict, and every first-pass verdict the same as
  the second pass's (no silently changed verdict).

Each case prints one line: what happened, and whether it ended in a typed failure or a clear
result with no traceback, no lost claim and no silently changed verdict. With ``--old DIR`` (a
``src`` tree, e.g. from ``git archive HEAD src | tar -x -C DIR``) each case also runs on that code
in the same run; an old CLI run still going after ``--old-limit`` seconds is stopped and shown as such.

Run it (from the repository root)::

    .venv/bin/python benchmarks/faults_stalls.py
    .venv/bin/python benchmarks/faults_stalls.py --only chat
    mkdir -p /tmp/old && git archive HEAD src | tar -x -C /tmp/old
    .venv/bin/python benchmarks/faults_stalls.py --old /tmp/old/src --old-limit 420

The exit status is 1 when a target is missed by the current code.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from fake_api import QuietHTTPServer, completion, good_model_reply, prompt_of, send  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ONE_CLAIM = "The Eiffel Tower is in Paris."
TWO_CLAIMS = "The Eiffel Tower is in Paris. The Eiffel Tower was finished in 1889."
SOURCE = "The Eiffel Tower is in Paris. The Eiffel Tower was finished in 1889."
STALL_TARGET_S = 60.0
HELD_S = 900.0
"""How long a held chat request is held at most (each server lets them go when it closes)."""


# ---------------------------------------------------------------------------------------------- the endpoint

@dataclass
class ChatEndpoint:
    """An OpenAI-compatible endpoint on 127.0.0.1: its model list answered; each chat request as `behaviour` says.

    `behaviour` is 'stall' (hold every chat request), 'busy' (hold the first, answer the others at
    once) or 'slow' (answer each after `delay` seconds).
    """

    behaviour: str
    delay: float = 0.0
    gets: int = 0
    posts: int = 0
    _release: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server naming)
                with outer._lock:
                    outer.gets += 1
                send(self, 200, json.dumps({"object": "list", "data": [{"id": "gpt-4.1-mini"}]}).encode())

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")
                with outer._lock:
                    outer.posts += 1
                    number = outer.posts
                if outer.behaviour == "stall" or (outer.behaviour == "busy" and number == 1):
                    outer._release.wait(HELD_S)
                    self.close_connection = True
                    return
                if outer.behaviour == "slow":
                    time.sleep(outer.delay)
                send(self, 200, completion(body, json.dumps(good_model_reply(prompt_of(body)))))

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self._httpd = QuietHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def base_url(self) -> str:
        """What `OPENAI_BASE_URL` is set to."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def close(self) -> None:
        """Let held requests go, and stop serving."""
        self._release.set()
        self._httpd.shutdown()
        self._httpd.server_close()


# ---------------------------------------------------------------------------------------------- CLI cases

@dataclass
class Outcome:
    """One case on one code: what happened, and the targets it met."""

    case: str
    code: str
    seconds: float | None
    happened: str
    ok: bool
    checks: list[str]

    def line(self) -> str:
        """The case's one line."""
        seconds = f"{self.seconds:6.1f} s" if self.seconds is not None else "   n/a  "
        verdict = "MET" if self.ok else "MISSED"
        return f"{self.case:<15} {self.code:<8} {seconds}  {verdict:<6} {self.happened}; {', '.join(self.checks)}"


def run_cli(endpoint: ChatEndpoint, text: str, source: Path, *, pythonpath: str, limit: float,
            extra: tuple[str, ...] = ()) -> tuple[float, int | None, dict[str, Any] | None, str]:
    """`veracity check` against `endpoint`: seconds, exit code (None: stopped), JSON report, stderr."""
    env = {**os.environ, "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": endpoint.base_url,
           "LANGSMITH_TRACING": "false", "NO_PROXY": "127.0.0.1,localhost", "PYTHONPATH": pythonpath}
    for name in ("OPENAI_PROXY", "OPENAI_API_BASE", "TAVILY_API_KEY", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env.pop(name, None)
    command = [sys.executable, "-c", "from veracity.cli import main; main()", "check", text, "--model",
               "openai:gpt-4.1-mini", "--source", str(source), "--no-cache", "--json", *extra]
    started = time.perf_counter()
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=limit,
                              cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return time.perf_counter() - started, None, None, ""
    seconds = time.perf_counter() - started
    report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else None
    return seconds, done.returncode, report, done.stderr


def lost_claims(report: dict[str, Any]) -> list[str]:
    """Claims with neither a verdict nor a failure naming them."""
    verdicts = {verdict["claim_id"] for verdict in report.get("verdicts") or []}
    failed = {failure.get("claim_id") for failure in report.get("failures") or []}
    return [claim["id"] for claim in report.get("claims") or [] if claim["id"] not in verdicts | failed]


def stalled_case(name: str, code: str, pythonpath: str, source: Path, limit: float, *, text: str,
                 extra: tuple[str, ...], claims: int) -> Outcome:
    """A stalled endpoint: a typed failure naming it, quickly, after at most one chat request per claim."""
    endpoint = ChatEndpoint("stall")
    try:
        seconds, exit_code, report, stderr = run_cli(endpoint, text, source, pythonpath=pythonpath, limit=limit,
                                                     extra=extra)
    finally:
        endpoint.close()
    if exit_code is None:
        return Outcome(name, code, None, f"still running after {limit:g} s, {endpoint.posts} chat requests so far",
                       False, ["no report"])
    failures = (report or {}).get("failures") or []
    named = bool(failures) and all(endpoint.base_url in failure["message"] or endpoint.base_url in
                                   " ".join(failure.get("errors") or []) for failure in failures)
    first = failures[0]["message"][:110] if failures else "no failure"
    checks = {
        "typed failure": exit_code == 3 and bool(failures) and all(f["kind"] == "gate" for f in failures),
        "names the endpoint": named,
        f"<= {claims} chat request(s)": endpoint.posts <= claims,
        f"within {STALL_TARGET_S:g} s": seconds <= STALL_TARGET_S,
        "no traceback": "Traceback" not in stderr,
        "no lost claim": report is not None and not lost_claims(report),
    }
    happened = f"exit {exit_code}, {endpoint.posts} chat request(s): {first!r}"
    return Outcome(name, code, seconds, happened, all(checks.values()),
                   [("" if met else "NOT ") + check for check, met in checks.items()])


def answered_case(name: str, behaviour: str, code: str, pythonpath: str, source: Path, limit: float, *,
                  delay: float = 0.0, extra: tuple[str, ...] = ()) -> Outcome:
    """A live endpoint (slow, or busy with a held request): the check ends with its claims supported."""
    endpoint = ChatEndpoint(behaviour, delay=delay)
    try:
        seconds, exit_code, report, stderr = run_cli(endpoint, TWO_CLAIMS, source, pythonpath=pythonpath,
                                                     limit=limit, extra=extra)
    finally:
        endpoint.close()
    if exit_code is None or report is None:
        return Outcome(name, code, None if exit_code is None else seconds,
                       f"exit {exit_code}, {endpoint.posts} chat requests", False, ["no report"])
    labels = [verdict["label"] for verdict in report.get("verdicts") or []]
    checks = {
        "exit 0": exit_code == 0,
        "all supported": bool(labels) and all(label == "supported" for label in labels),
        "no traceback": "Traceback" not in stderr,
        "no lost claim": not lost_claims(report),
    }
    failures = report.get("failures") or []
    note = f": {failures[0]['message'][:90]!r}" if failures else ""
    happened = f"exit {exit_code}, {endpoint.posts} chat requests, verdicts {labels}{note}"
    return Outcome(name, code, seconds, happened, all(checks.values()),
                   [("" if met else "NOT ") + check for check, met in checks.items()])


def chat_cases(versions: list[tuple[str, str]], args: argparse.Namespace) -> list[Outcome]:
    """Every chat-endpoint case on every code version."""
    outcomes = []
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "source.txt"
        source.write_text(SOURCE)
        cases: list[tuple[str, Callable[[str, str, float], Outcome]]] = [
            ("stalled-chat", lambda code, path, limit: stalled_case(
                "stalled-chat", code, path, source, limit, text=ONE_CLAIM, extra=(), claims=1)),
            ("stalled-judge", lambda code, path, limit: stalled_case(
                "stalled-judge", code, path, source, limit, text=TWO_CLAIMS, extra=("--extract-model", "offline"),
                claims=2)),
            ("busy-endpoint", lambda code, path, limit: answered_case(
                "busy-endpoint", "busy", code, path, source, limit, extra=("--extract-model", "offline"))),
            ("slow-live", lambda code, path, limit: answered_case(
                f"slow-live {args.delay:g}s", "slow", code, path, source, limit, delay=args.delay)),
        ]
        for _, run in cases:
            for code, path in versions:
                outcome = run(code, path, args.old_limit if code == "old" else 600.0)
                print(outcome.line(), flush=True)
                outcomes.append(outcome)
    return outcomes


# ---------------------------------------------------------------------------------------------- KB case

SYLLABLES = ("al", "bran", "cor", "dun", "el", "fal", "glen", "har", "ing", "kel", "lor", "mar", "nor", "oak",
             "pen", "quar", "ros", "stan", "tor", "ul", "ven", "wick", "yar", "zel")
ENDINGS = ("brook", "cote", "hill", "mere", "stead", "field", "rock", "well", "ford", "bury", "ton", "wick")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
FACTS = (
    "{town} has {n} public libraries.",
    "{town} opened its railway station in {year}.",
    "{town} lies {n} kilometres from the coast.",
    "{town} holds its market every {day}.",
    "The population of {town} is about {n} thousand.",
    "The old bridge of {town} is {n} metres long.",
    "The town council of {town} meets on the first {day} of each month.",
    "{town} twinned with a harbour town in {year}.",
    "The main school of {town} teaches {n} hundred pupils.",
    "The river through {town} floods about once every {n} years.",
)
SENTENCES_PER_TOWN = 44
"""About two chunks per town (600 tokens each, the default)."""
CHUNKS_PER_TOWN = 2


def towns(count: int, seed: int) -> list[str]:
    """`count` distinct made-up town names."""
    rng = random.Random(seed)
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < count:
        name = (rng.choice(SYLLABLES) + rng.choice(SYLLABLES) + rng.choice(ENDINGS)).capitalize()
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names


def town_facts(town: str, rng: random.Random) -> list[str]:
    """A town's facts, each template filled once and then again with other figures (the page's later years)."""
    facts = []
    for index in range(SENTENCES_PER_TOWN):
        template = FACTS[index % len(FACTS)]
        prefix = "" if index < len(FACTS) else f"In {rng.randint(1950, 2020)}, "
        sentence = template.format(town=town, n=rng.randint(2, 90), year=rng.randint(1830, 1990),
                                   day=rng.choice(DAYS))
        facts.append(prefix + (sentence[0].lower() + sentence[1:] if prefix and not sentence.startswith(town)
                               else sentence))
    return facts


def write_documents(folder: Path, count: int, seed: int) -> dict[str, list[str]]:
    """One Markdown document per town (its facts in paragraphs of four); the facts by town."""
    rng = random.Random(seed)
    by_town = {}
    for town in towns(count, seed):
        facts = town_facts(town, rng)
        by_town[town] = facts
        paragraphs = [" ".join(facts[i:i + 4]) for i in range(0, len(facts), 4)]
        (folder / f"{town.lower()}.md").write_text(f"# {town}\n\n" + "\n\n".join(paragraphs) + "\n")
    return by_town


def check_texts(by_town: dict[str, list[str]], checks: int, seed: int) -> list[str]:
    """`checks` texts of three claims each: a town's first facts, some with a figure changed."""
    rng = random.Random(seed + 1)
    names = sorted(by_town)
    texts = []
    for _ in range(checks):
        claims = []
        for town in rng.sample(names, 3):
            fact = by_town[town][rng.randrange(len(FACTS))]
            if rng.random() < 0.5:
                words = fact.split()
                numbers = [i for i, word in enumerate(words) if word.strip(".").isdigit()]
                if numbers:
                    words[numbers[0]] = str(int(words[numbers[0]].strip(".")) + 3) + (
                        "." if words[numbers[0]].endswith(".") else "")
                fact = " ".join(words)
            claims.append(fact)
        texts.append(" ".join(claims))
    return texts


def kb_child(config: dict[str, Any]) -> dict[str, Any]:
    """In the child: build the knowledge base with the code on the path, then the two passes of checks."""
    import veracity
    from veracity.kb import KnowledgeBase

    kb_path, docs = Path(config["kb"]), Path(config["docs"])
    started = time.perf_counter()
    KnowledgeBase(kb_path).ingest([docs])
    build_s = time.perf_counter() - started
    texts = config["texts"]

    async def one_pass() -> tuple[float, list[dict[str, Any]]]:
        async def one(text: str) -> dict[str, Any]:
            try:
                report = await veracity.acheck(text, model="offline", search="kb", kb_path=str(kb_path),
                                               search_timeout=config["search_timeout"], cache=False)
            except Exception as exc:  # counted: a check must not raise
                return {"crash": f"{type(exc).__name__}: {exc}"}
            failures = [failure.message for failure in report.failures if failure.kind == "tool"]
            verdicts = {verdict.claim_id: (verdict.label, verdict.evidence_id, verdict.quote)
                        for verdict in report.verdicts}
            lost = [claim.id for claim in report.claims if claim.id not in verdicts]
            return {"search_failures": failures, "verdicts": verdicts, "lost": lost,
                    "claims": len(report.claims)}

        began = time.perf_counter()
        results = await asyncio.gather(*(one(text) for text in texts))
        return time.perf_counter() - began, list(results)

    first_s, first = asyncio.run(one_pass())
    second_s, second = asyncio.run(one_pass())
    return {"chunks": KnowledgeBase(kb_path).stats().chunks, "build_s": build_s, "first_s": first_s,
            "second_s": second_s, "first": first, "second": second}


def kb_case(versions: list[tuple[str, str]], args: argparse.Namespace) -> list[Outcome]:
    """The first checks on a new knowledge base, on every code version."""
    outcomes = []
    with tempfile.TemporaryDirectory() as scratch:
        docs = Path(scratch) / "docs"
        docs.mkdir()
        by_town = write_documents(docs, max(3, args.chunks // CHUNKS_PER_TOWN), args.seed)
        texts = check_texts(by_town, args.checks, args.seed)
        for code, path in versions:
            config = {"kb": str(Path(scratch) / f"kb-{code}"), "docs": str(docs), "texts": texts,
                      "search_timeout": args.search_timeout}
            env = {**os.environ, "PYTHONPATH": path, "LANGSMITH_TRACING": "false"}
            env.pop("OPENAI_API_KEY", None)
            env.pop("TAVILY_API_KEY", None)
            done = subprocess.run([sys.executable, __file__, "--child-kb", json.dumps(config)], env=env,
                                  capture_output=True, text=True, cwd=tempfile.gettempdir())
            name = "kb-first-touch"
            if done.returncode != 0 or not done.stdout.strip():
                tail = (done.stderr.strip().splitlines() or ["no output"])[-1][:160]
                outcome = Outcome(name, code, None, f"child failed: {tail}", False, ["no result"])
            else:
                outcome = kb_outcome(name, code, json.loads(done.stdout.strip().splitlines()[-1]), args)
            print(outcome.line(), flush=True)
            outcomes.append(outcome)
    return outcomes


def kb_outcome(name: str, code: str, result: dict[str, Any], args: argparse.Namespace) -> Outcome:
    """The targets of the first-touch case, from the child's figures."""
    first, second = result["first"], result["second"]
    crashes = sum("crash" in check for check in first + second)
    failed_checks = sum(bool(check.get("search_failures")) for check in first)
    failed_searches = sum(len(check.get("search_failures") or []) for check in first)
    lost = sum(len(check.get("lost") or []) for check in first + second)
    changed = sum(1 for a, b in zip(first, second, strict=True) if "verdicts" in a and "verdicts" in b
                  for claim, verdict in a["verdicts"].items() if b["verdicts"].get(claim) != verdict)
    example = next((check["search_failures"][0] for check in first if check.get("search_failures")), "")
    checks = {
        "no search failed": failed_searches == 0,
        "no crash": crashes == 0,
        "no lost claim": lost == 0,
        "no changed verdict": changed == 0,
    }
    happened = (f"{result['chunks']:,} chunks (built in {result['build_s']:.0f} s), {len(first)} first checks at once "
                f"(search_timeout {args.search_timeout:g} s): {failed_checks} with a failed search "
                f"({failed_searches} claims){': ' + repr(example[:80]) if example else ''}; first pass "
                f"{result['first_s']:.0f} s, filled pass {result['second_s']:.0f} s; {changed} verdicts differ "
                "from the filled pass")
    return Outcome(name, code, result["first_s"], happened, all(checks.values()),
                   [("" if met else "NOT ") + check for check, met in checks.items()])


# ---------------------------------------------------------------------------------------------- main

def main() -> None:
    """Run the cases and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=["all", "chat", "kb"], default="all")
    parser.add_argument("--delay", type=float, default=20.0, help="seconds per chat answer of the slow-live case")
    parser.add_argument("--chunks", type=int, default=3243, help="chunks of the new knowledge base (about)")
    parser.add_argument("--checks", type=int, default=16, help="first checks run at once on it")
    parser.add_argument("--search-timeout", type=float, default=20.0, help="search_timeout of those checks")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--old", help="a src tree of the code to compare with (PYTHONPATH for the old runs)")
    parser.add_argument("--old-limit", type=float, default=120.0, help="seconds before an old CLI run is stopped")
    parser.add_argument("--child-kb", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_kb:
        print(json.dumps(kb_child(json.loads(args.child_kb))), flush=True)
        return

    versions = [("current", str(ROOT / "src"))] + ([("old", args.old)] if args.old else [])
    print(f"{'case':<15} {'code':<8} {'time':>8}  target what happened; checks", flush=True)
    outcomes = []
    if args.only in ("all", "chat"):
        outcomes += chat_cases(versions, args)
    if args.only in ("all", "kb"):
        outcomes += kb_case(versions, args)
    missed = [outcome.case for outcome in outcomes if outcome.code == "current" and not outcome.ok]
    if missed:
        print("missed: " + ", ".join(missed))
        sys.exit(1)


if __name__ == "__main__":
    main()
