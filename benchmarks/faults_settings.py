"""Settings and the plainest graph call, misused: issue 37's items 1 and 5, each the way a user meets it.

What runs
---------
Every case runs in a fresh subprocess with ``VERACITY_KB``, ``VERACITY_CACHE`` and ``XDG_DATA_HOME`` in a
temporary folder, no API keys (so the offline judge and the knowledge base, which is seeded with the demo
notes on first use) and tracing off. Nothing leaves 127.0.0.1.

1. **The plainest LangGraph calls**: ``veracity.graph`` called with no ``context=`` through ``invoke``,
   ``ainvoke``, ``stream``, ``astream`` and ``batch`` (two texts), and from a node of another graph whose
   context is of another kind. Each must end in a report for every text (no lost row, no traceback).
   A Studio-style context dict with a bad value must end in a typed ``SettingError``.
2. **Bad settings**, the values the audit found accepted (attempts of 0 or below, timeouts of 0, -1 or NaN,
   a negative byte cap, back-offs of -1, NaN and infinity, a NaN temperature, an invalid network list),
   on each surface: ``veracity.check(..., **settings)`` in Python, ``veracity check --set NAME=VALUE``,
   ``veracity batch`` and ``veracity serve`` with ``--set``, and the request settings of a running
   ``veracity serve`` (a bad ``search`` or ``source_text``). Each must be refused before any work with a
   typed error (Python), exit 2 (command line) or HTTP 422 (server), in the words Python uses, with no
   traceback, no report written and no row lost; a good request to the same server must still get its
   report.

Run it (from the repository root; a few minutes on two cores)::

    .venv/bin/python benchmarks/faults_settings.py

An older checkout is measured by putting its ``src`` first on ``PYTHONPATH`` (every subprocess inherits it).
One line per case: the case, what happened, and ``ok`` or ``MISSED``. The exit status is 1 when a case
is missed.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

TEXT = "Canberra is the capital of Australia."
OTHER = "Sydney is the largest city in Australia."
POLICY = "The customer may return a package within 14 days of the delivery date."
ANSWER = "You can return the package within 14 days of the delivery date."
TRACEBACK = "Traceback (most recent call last)"
CLI = "import sys; from veracity.cli import main; sys.argv[0] = 'veracity'; main()"

BAD_SETTINGS: list[tuple[str, str]] = [
    ("max_extraction_attempts", "0"), ("max_judge_attempts", "-1"), ("search_attempts", "0"),
    ("model_timeout", "0"), ("model_timeout", "-1"), ("model_timeout", "nan"),
    ("search_timeout", "0"), ("search_timeout", "-1"), ("search_timeout", "nan"),
    ("page_timeout", "nan"), ("page_timeout", "-1"), ("page_max_bytes", "-1"),
    ("search_backoff", "-1"), ("search_backoff", "nan"), ("search_backoff", "inf"),
    ("temperature", "nan"), ("page_allowed_networks", "intranet,10.0.0.0/33"),
]
"""(setting, value as the command line writes it): what the audit found accepted."""

GRAPH_CALLS = r'''
import asyncio, json, sys
from dataclasses import dataclass
from typing_extensions import TypedDict
import veracity

def labels(state):
    return [v.label for v in state["report"].verdicts]

async def astream():
    last = None
    async for state in veracity.graph.astream({"text": TEXT}, stream_mode="values"):
        last = state
    return labels(last)

@dataclass
class AgentSettings:
    user: str = "someone"

class AgentState(TypedDict, total=False):
    answer: str
    labels: list

def embedded():
    from langgraph.graph import END, START, StateGraph

    async def guard(state):
        return {"labels": labels(await veracity.graph.ainvoke({"text": state["answer"]}))}

    builder = StateGraph(AgentState, context_schema=AgentSettings)
    builder.add_node("guard", guard)
    builder.add_edge(START, "guard")
    builder.add_edge("guard", END)
    return asyncio.run(builder.compile().ainvoke({"answer": TEXT}, context=AgentSettings()))["labels"]

def studio_dict():
    veracity.graph.invoke({"text": TEXT}, context={"search_attempts": 0})

CASES = {
    "graph.invoke, no context": lambda: labels(veracity.graph.invoke({"text": TEXT})),
    "graph.ainvoke, no context": lambda: labels(asyncio.run(veracity.graph.ainvoke({"text": TEXT}))),
    "graph.stream, no context": lambda: labels(list(veracity.graph.stream({"text": TEXT}, stream_mode="values"))[-1]),
    "graph.astream, no context": lambda: asyncio.run(astream()),
    "graph.batch of 2, no context": lambda: [labels(s) for s in veracity.graph.batch([{"text": TEXT},
                                                                                   {"text": OTHER}])],
    "graph inside another graph, no context": embedded,
    "graph.invoke, Studio dict search_attempts=0": studio_dict,
}
for name in sys.argv[1:]:
    try:
        result = {"value": CASES[name]()}
    except Exception as error:
        result = {"error": type(error).__name__, "message": str(error),
                  "typed": any(k.__name__ == "VeracityError" for k in type(error).__mro__)}
    print(json.dumps({"case": name, **result}), flush=True)
'''

PYTHON_SETTINGS = r'''
import json, sys
import veracity
for name, text in json.loads(sys.argv[1]):
    value = {"nan": float("nan"), "inf": float("inf")}.get(text)
    if value is None:
        try:
            value = int(text)
        except ValueError:
            try:
                value = float(text)
            except ValueError:
                value = text
    try:
        report = veracity.check(TEXT, model="offline", **{name: value})
        result = {"report": [v.label for v in report.verdicts]}
    except Exception as error:
        result = {"error": type(error).__name__, "message": str(error),
                  "typed": any(k.__name__ == "VeracityError" for k in type(error).__mro__)}
    print(json.dumps({"setting": name, "text": text, **result}), flush=True)
'''


class Bench:
    """Runs subprocesses in one temporary home and remembers every line it prints."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.env = {key: value for key, value in os.environ.items()
                    if key not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "TAVILY_API_BASE_URL")}
        self.env.update(VERACITY_KB=str(home / "kb"), VERACITY_CACHE=str(home / "cache.sqlite"),
                        VERACITY_KEYS=str(home / "keys"), XDG_DATA_HOME=str(home / "data"),
                        LANGSMITH_TRACING="false", LANGCHAIN_TRACING_V2="false", COLUMNS="400")
        self.missed = 0

    def python(self, code: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        prelude = f"TEXT, OTHER = {TEXT!r}, {OTHER!r}\n"
        return subprocess.run([sys.executable, "-c", prelude + code, *args], capture_output=True, text=True,
                              env=self.env, cwd=self.home, timeout=timeout)

    def veracity(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """`veracity ARGS`; one still running after `timeout` seconds is stopped (exit -9, 'timed out')."""
        try:
            return subprocess.run([sys.executable, "-c", CLI, *args], capture_output=True, text=True, env=self.env,
                                  cwd=self.home, timeout=timeout)
        except subprocess.TimeoutExpired as expired:
            output = expired.stdout.decode() if isinstance(expired.stdout, bytes) else expired.stdout or ""
            return subprocess.CompletedProcess(expired.cmd, -9, output, f"Error: timed out after {timeout:g} s")

    def line(self, case: str, happened: str, ok: bool) -> None:
        self.missed += not ok
        print(f"{case:<58} | {happened:<118} | {'ok' if ok else 'MISSED'}", flush=True)


def results(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def said(error: dict[str, Any]) -> str:
    return f"{error['error']}: {error['message']}"


def graph_calls(bench: Bench) -> None:
    names = ["graph.invoke, no context", "graph.ainvoke, no context", "graph.stream, no context",
             "graph.astream, no context", "graph.batch of 2, no context", "graph inside another graph, no context",
             "graph.invoke, Studio dict search_attempts=0"]
    done = bench.python(GRAPH_CALLS, *names)
    found = {result["case"]: result for result in results(done)}
    traceback = TRACEBACK in done.stderr
    for name in names:
        result = found.get(name)
        if result is None:
            bench.line(name, f"no result (exit {done.returncode}){'; traceback' if traceback else ''}", False)
        elif name.endswith("=0"):  # a bad value: refused, typed
            bench.line(name, said(result) if "error" in result else f"ran: {result['value']}",
                       bool(result.get("typed")) and "search_attempts must" in result.get("message", ""))
        elif "error" in result:
            bench.line(name, f"crashed: {said(result)}", False)
        else:
            rows = result["value"] if name.startswith("graph.batch") else [result["value"]]
            bench.line(name, f"report(s): {rows}", len(rows) == (2 if name.startswith("graph.batch") else 1)
                       and all(rows) and not traceback)


def python_settings(bench: Bench) -> dict[tuple[str, str], str]:
    done = bench.python(PYTHON_SETTINGS, json.dumps(BAD_SETTINGS))
    messages: dict[tuple[str, str], str] = {}
    for result in results(done):
        case = f"veracity.check({result['setting']}={result['text']})"
        if "error" in result:
            messages[result["setting"], result["text"]] = result["message"]
            bench.line(case, said(result), bool(result["typed"]) and result["message"].startswith(result["setting"]))
        else:
            bench.line(case, f"accepted; ran to a report {result['report']}", False)
    if len(messages) + sum("report" in r for r in results(done)) < len(BAD_SETTINGS):
        bench.line("veracity.check (all)", f"results missing (exit {done.returncode})", False)
    return messages


def judged(bench: Bench, case: str, done: subprocess.CompletedProcess[str], expected: str | None) -> None:
    """A command that must end in a usage error (exit 2) that says what Python says, with nothing written."""
    output = " ".join((done.stdout + done.stderr).split())
    error = next((line.strip() for line in done.stderr.splitlines() if line.startswith("Error")), None)
    if error is None:
        error = "ran: a report was written" if '"verdicts"' in done.stdout or "checked" in done.stderr else output[-90:]
    clean = TRACEBACK not in done.stdout + done.stderr and '"verdicts"' not in done.stdout
    same = expected is not None and " ".join(expected.split()) in output
    bench.line(case, f"exit {done.returncode}: {error}"[:118], done.returncode == 2 and clean and same)


def command_line(bench: Bench, python: dict[tuple[str, str], str]) -> None:
    for name, text in BAD_SETTINGS:
        done = bench.veracity("check", TEXT, "--model", "offline", "--json", "--set", f"{name}={text}")
        judged(bench, f"veracity check --set {name}={text}", done, python.get((name, text)))
    rows = bench.home / "rows.jsonl"
    rows.write_text(json.dumps({"id": "a", "text": TEXT}) + "\n" + json.dumps({"id": "b", "text": OTHER}) + "\n")
    out = bench.home / "out.jsonl"
    for name, text in (("search_attempts", "0"), ("search_backoff", "inf")):
        done = bench.veracity("batch", str(rows), "--out", str(out), "--model", "offline", "--set", f"{name}={text}")
        judged(bench, f"veracity batch --set {name}={text}", done, python.get((name, text)))
        if out.exists():
            bench.line(f"veracity batch --set {name}={text} (output)", "an output file was written", False)
    for name, text in (("model_timeout", "nan"), ("page_allowed_networks", "intranet,10.0.0.0/33")):
        done = bench.veracity("serve", "--model", "offline", "--port", str(free_port()), "--set", f"{name}={text}",
                              timeout=60)  # a server that starts is stopped after a minute
        judged(bench, f"veracity serve --set {name}={text}", done, python.get((name, text)))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def post(url: str, body: Any) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def server_requests(bench: Bench) -> None:
    port = free_port()
    log = (bench.home / "serve.log").open("w")
    server = subprocess.Popen([sys.executable, "-c", CLI, "serve", "--model", "offline", "--port", str(port),
                               "--workers", "1", "--rate-limit", "1000/minute"],
                              stdout=log, stderr=subprocess.STDOUT, env=bench.env, cwd=bench.home)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    bench.line("veracity serve", "did not start", False)
                    return
                time.sleep(0.3)
        expected = bench.python(
            "import json, sys\nfrom veracity.context import Context\n"
            "for name, value in json.loads(sys.argv[1]):\n"
            "    try:\n        Context(**{name: value}); print(json.dumps(None))\n"
            "    except ValueError as error:\n        print(json.dumps(str(error)))\n",
            json.dumps([["search", "bogus"], ["search", 5], ["source_text", 5]]))
        messages = [json.loads(line) for line in expected.stdout.splitlines()]
        for (name, value), message in zip([("search", "bogus"), ("search", 5), ("source_text", 5)], messages,
                                          strict=True):
            status, body = post(base + "/factcheck/invoke", {"input": {"text": TEXT, name: value}})
            error = str(body.get("error", body))
            ok = status == 422 and message is not None and error.endswith(message) and TRACEBACK not in error
            bench.line(f"POST /factcheck/invoke {name}={value!r}", f"HTTP {status}: {error}"[:118], ok)
        status, body = post(base + "/factcheck/batch", {"inputs": [{"text": TEXT}, {"text": TEXT, "search": "x"}]})
        bench.line("POST /factcheck/batch, 2nd input search='x'", f"HTTP {status}: {body.get('error', body)}"[:118],
                   status == 422 and "inputs.1.search" in str(body.get("error")))
        status, body = post(base + "/factcheck/invoke", {"input": {"text": ANSWER, "source_text": POLICY}})
        verdicts = [v["label"] for v in body.get("output", {}).get("verdicts", [])]
        bench.line("POST /factcheck/invoke, good settings", f"HTTP {status}: verdicts {verdicts}", status == 200
                   and verdicts == ["supported"])
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    served = (bench.home / "serve.log").read_text()
    bench.line("veracity serve log", "a traceback was logged" if TRACEBACK in served else "no traceback logged",
               TRACEBACK not in served)


def main() -> None:
    started = time.monotonic()
    print(f"{'case':<58} | {'what happened':<118} | result")
    with tempfile.TemporaryDirectory(prefix="veracity-settings-") as folder:
        bench = Bench(Path(folder))
        graph_calls(bench)
        python = python_settings(bench)
        command_line(bench, python)
        server_requests(bench)
    print(f"\n{bench.missed} case(s) missed; wall time {time.monotonic() - started:.0f} s")
    sys.exit(1 if bench.missed else 0)


if __name__ == "__main__":
    main()
