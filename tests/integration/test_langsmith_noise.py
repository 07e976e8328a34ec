"""With LangSmith tracing on, `veracity check` traces to LangSmith and prints nothing of the LangSmith client's.

A loopback LangSmith answers `/info` without announcing compressed ingestion, as servers that do
not offer it answer. The real LangSmith client then logs "Run compression is not enabled" (and
uploads the runs uncompressed); the command line drops that line, and only that line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.integration.loopback import LoopbackHTTPServer

pytestmark = pytest.mark.integration

VERACITY = str(Path(sys.executable).with_name("veracity"))


class FakeLangSmith(LoopbackHTTPServer):
    """Answers `/info` (no compression flag) and accepts run uploads, recording each request's path."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, body: dict[str, Any], status: int = 200) -> None:
                server.paths.append(self.path.split("?")[0])
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 (http.server naming)
                self._answer({"version": "0.10.0", "instance_flags": {}} if self.path.startswith("/info") else {})

            def do_POST(self) -> None:  # noqa: N802
                self._answer({}, status=202)

            def do_PATCH(self) -> None:  # noqa: N802
                self._answer({}, status=202)

            def log_message(self, format: str, *args: Any) -> None:
                """Keep test output quiet."""

        super().__init__(Handler)


def traced_check(langsmith: FakeLangSmith, program: list[str]) -> subprocess.CompletedProcess[str]:
    env = {name: value for name, value in os.environ.items() if "TRACING" not in name}
    env.update(LANGSMITH_TRACING="true", LANGSMITH_ENDPOINT=langsmith.origin, LANGSMITH_API_KEY="lsv2-test",
               COLUMNS="2000")
    return subprocess.run([*program, "Canberra is the capital of Australia."], capture_output=True, text=True,
                          env=env, timeout=300)


def test_a_traced_check_prints_only_veracity_s_own_line_on_stderr(tmp_path: Path) -> None:
    with FakeLangSmith() as langsmith:
        done = traced_check(langsmith, [VERACITY, "check", "--model", "offline", "--search", "kb"])
    assert done.returncode == 0, done.stderr
    [mode_line] = done.stderr.splitlines()
    assert mode_line.startswith("veracity: offline"), done.stderr
    assert "/info" in langsmith.paths and any(path.startswith("/runs") for path in langsmith.paths)


def test_a_program_using_the_library_still_hears_the_langsmith_client() -> None:
    code = ("import sys, veracity\n"
            "veracity.check(sys.argv[1], model='offline', search='kb')")
    with FakeLangSmith() as langsmith:
        done = traced_check(langsmith, [sys.executable, "-c", code])
    assert done.returncode == 0, done.stderr
    assert "Run compression is not enabled" in done.stderr  # the filter belongs to the command line alone
