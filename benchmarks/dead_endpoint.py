"""Dead-endpoint benchmark: how long `veracity check` takes to report a model endpoint that never answers.

What runs
---------
Two loopback servers play an OpenAI-compatible endpoint, and the real CLI runs in a subprocess
with ``--model openai:gpt-4.1-mini`` and ``OPENAI_BASE_URL`` pointing at one of them (evidence
from a ``--source`` file, so nothing else is needed):

* **stalled**: accepts every connection and never sends a byte. Measured: seconds until the
  process exits, and its exit code (target: 3, a typed failure, within 30 s with default settings).
* **slow-live**: answers ``GET /v1/models`` at once but takes ``--delay`` seconds (default 30)
  before each chat answer. Measured: seconds and exit code (target: 0, the check succeeds).

With ``--old DIR`` (a ``src`` tree, e.g. from ``git archive HEAD src | tar -x -C DIR``) each case
also runs on that code, paired in the same run. An old stalled run that has not exited after
``--old-limit`` seconds is stopped and reported as "> limit".

Run it (from the repository root)::

    .venv/bin/python benchmarks/dead_endpoint.py
    mkdir -p /tmp/old && git archive HEAD src | tar -x -C /tmp/old
    .venv/bin/python benchmarks/dead_endpoint.py --old /tmp/old/src --old-limit 420

The exit status is 1 when a target is missed by the current code.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from fake_api import LoopbackServer, completion, good_model_reply, prompt_of, send  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TEXT = "The Eiffel Tower is in Paris."
SOURCE = "The Eiffel Tower is in Paris. It was finished in 1889."
STALL_TARGET_S = 30.0


class StalledEndpoint:
    """Accepts connections on 127.0.0.1 and never answers (holds them open until closed)."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)  # so that the accept loop sees `close`
        self._held: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        """The server's root URL."""
        host, port = self._listener.getsockname()[:2]
        return f"http://{host}:{port}"

    def _accept(self) -> None:
        while not self._closed:
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._held.append(connection)

    def close(self) -> None:
        """Stop accepting, and drop every held connection."""
        self._closed = True
        self._listener.close()
        for connection in self._held:
            connection.close()


def slow_live(delay: float) -> LoopbackServer:
    """Answers `GET /v1/models` at once and each chat completion after `delay` seconds, with a good answer."""

    def answer(path: str, body: Any, handler: BaseHTTPRequestHandler) -> None:
        time.sleep(delay)
        content = json.dumps(good_model_reply(prompt_of(body)))
        send(handler, 200, completion(body, content))

    server = LoopbackServer(answer)
    handler_class = server.httpd.RequestHandlerClass

    def do_get(handler: BaseHTTPRequestHandler) -> None:
        send(handler, 200, json.dumps({"object": "list", "data": [{"id": "gpt-4.1-mini", "object": "model"}]}).encode())

    handler_class.do_GET = do_get  # type: ignore[attr-defined]
    return server


def run_cli(base_url: str, source: Path, *, pythonpath: str | None, limit: float,
            extra: list[str] | None = None) -> dict[str, Any]:
    """Run `veracity check` against `base_url`; its seconds, exit code and last stderr line."""
    env = {**os.environ, "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": f"{base_url}/v1",
           "LANGSMITH_TRACING": "false", "NO_PROXY": "127.0.0.1,localhost"}
    for name in ("OPENAI_PROXY", "TAVILY_API_KEY", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env.pop(name, None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    command = [sys.executable, "-c", "from veracity.cli import main; main()", "check", TEXT,
               "--model", "openai:gpt-4.1-mini", "--source", str(source), "--no-cache", "--json", *(extra or [])]
    started = time.perf_counter()
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=limit,
                              cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return {"seconds": time.perf_counter() - started, "exit": None, "finished": False, "note": f"> {limit:g} s"}
    seconds = time.perf_counter() - started
    note = ""
    if done.stdout.strip().startswith("{"):
        report = json.loads(done.stdout)
        failures = report.get("failures") or []
        verdicts = [verdict.get("label") for verdict in report.get("verdicts") or []]
        note = failures[0]["message"][:160] if failures else f"ok={report.get('ok')}, verdicts {verdicts}"
    elif done.stderr.strip():
        note = done.stderr.strip().splitlines()[-1][:160]
    return {"seconds": seconds, "exit": done.returncode, "finished": True, "note": note}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--delay", type=float, default=30.0, help="seconds per chat answer of the slow-live endpoint")
    parser.add_argument("--old", help="a src tree of the code to compare with (PYTHONPATH for the old runs)")
    parser.add_argument("--old-limit", type=float, default=90.0, help="seconds before an old stalled run is stopped")
    args = parser.parse_args()

    versions = [("current", str(ROOT / "src"))] + ([("old", args.old)] if args.old else [])
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "source.txt"
        source.write_text(SOURCE)
        stalled = StalledEndpoint()
        try:
            for name, path in versions:
                limit = args.old_limit if name == "old" else 600.0
                results.append({"case": "stalled", "code": name, **run_cli(stalled.url, source, pythonpath=path,
                                                                            limit=limit)})
        finally:
            stalled.close()
        live = slow_live(args.delay)
        try:
            for name, path in versions:
                results.append({"case": f"slow-live ({args.delay:g} s/answer)", "code": name,
                                **run_cli(live.url, source, pythonpath=path, limit=600.0)})
        finally:
            live.close()

    print(f"{'case':<26} {'code':<8} {'seconds':>8} {'exit':>5}  note")
    for row in results:
        seconds = f"{row['seconds']:.1f}" if row["finished"] else row["note"]
        note = row["note"] if row["finished"] else ""
        print(f"{row['case']:<26} {row['code']:<8} {seconds:>8} {row['exit']!s:>5}  {note}")
    current = {row["case"].split(" ")[0]: row for row in results if row["code"] == "current"}
    missed = []
    if not (current["stalled"]["exit"] == 3 and current["stalled"]["seconds"] <= STALL_TARGET_S):
        missed.append(f"stalled: exit 3 within {STALL_TARGET_S:g} s")
    if current["slow-live"]["exit"] != 0:
        missed.append("slow-live: exit 0")
    if missed:
        print("missed: " + "; ".join(missed))
        sys.exit(1)


if __name__ == "__main__":
    main()
