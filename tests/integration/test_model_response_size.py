"""A model server that ignores the output cap and sends 50 MB: the check ends quickly in a typed failure.

The loopback server plays an OpenAI-compatible endpoint through the real OpenAI client. It
writes its answer a megabyte at a time from one block made in advance, so the memory measured
is the client's, and it records how much of each answer it managed to send.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
import tracemalloc
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

import veracity
from tests.integration.conftest import LOOPBACK, OPENAI_KEY
from tests.integration.loopback import LoopbackHTTPServer
from veracity.contracts import GateFailure

pytestmark = pytest.mark.integration

TEXT = "The Sydney Opera House was designed by a Danish architect and opened in 1973."
MEGABYTE = b"x" * (1 << 20)
ANSWER_MEGABYTES = 50


class FloodServer(LoopbackHTTPServer):
    """Answers every chat completion with a 50 MB one: plainly, with its length declared, or as a gzip bomb."""

    def __init__(self, *, declare_length: bool = False, gzip_bomb: bool = False) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.sent: list[int] = []
        self.completed = 0
        self._lock = threading.Lock()
        head = b'{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,' \
               b'"finish_reason":"stop","message":{"role":"assistant","content":"'
        tail = b'"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}'
        self._bomb = gzip.compress(head + MEGABYTE * ANSWER_MEGABYTES + tail, compresslevel=1) if gzip_bomb else None
        self._head, self._tail, self._declare = head, tail, declare_length
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                with server._lock:
                    server.bodies.append(body)
                sent = 0
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    if server._bomb is not None:
                        self.send_header("Content-Encoding", "gzip")
                        self.end_headers()
                        self.wfile.write(server._bomb)
                        sent = len(server._bomb)
                    else:
                        if server._declare:
                            total = len(head) + len(MEGABYTE) * ANSWER_MEGABYTES + len(tail)
                            self.send_header("Content-Length", str(total))
                        self.end_headers()  # otherwise the answer ends when the connection closes
                        for chunk in (head, *([MEGABYTE] * ANSWER_MEGABYTES), tail):
                            self.wfile.write(chunk)
                            sent += len(chunk)
                    with server._lock:
                        server.completed += 1
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading
                finally:
                    with server._lock:
                        server.sent.append(sent)

            def log_message(self, format: str, *args: Any) -> None:
                """Keep test output quiet."""

        super().__init__(Handler)

    @property
    def base_url(self) -> str:
        """What `OPENAI_BASE_URL` should be set to."""
        return self.origin + "/v1"


@pytest.fixture
def point_openai_at(monkeypatch: pytest.MonkeyPatch, loopback_sockets: None) -> Any:
    """Point the real OpenAI client at a loopback server's URL."""

    def point(url: str) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        for name in ("OPENAI_PROXY", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("NO_PROXY", ",".join(LOOPBACK))

    return point


def check() -> veracity.Report:
    return veracity.check(TEXT, model="openai:gpt-4.1-mini", source_text=TEXT, cache=False)


def assert_typed_failure(report: veracity.Report) -> None:
    assert not report.ok and report.claims == []
    [failure] = report.failures
    assert isinstance(failure, GateFailure) and failure.step == "extract" and failure.attempts == 3
    assert all("the model's response was longer than" in error and "bytes" in error for error in failure.errors)


@pytest.fixture
def flood(request: pytest.FixtureRequest, point_openai_at: Any) -> Iterator[FloodServer]:
    with FloodServer(**getattr(request, "param", {})) as server:
        point_openai_at(server.base_url)
        yield server


def test_a_50_mb_answer_is_a_typed_failure_quickly_and_without_holding_it(flood: FloodServer) -> None:
    check()  # loads the client libraries, so the measured run counts only what the answer costs
    tracemalloc.start()
    started = time.monotonic()
    try:
        report = check()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert time.monotonic() - started < 60  # a hang guard: the bytes sent and the memory held are what is tested
    assert_typed_failure(report)
    assert peak < 20 * (1 << 20), f"peak traced memory {peak / (1 << 20):.1f} MB"
    assert len(flood.bodies) == 6  # three extraction attempts per check, none retried inside the client
    assert flood.completed == 0 and max(flood.sent) < ANSWER_MEGABYTES * len(MEGABYTE)


@pytest.mark.parametrize("flood", [{"declare_length": True}], indirect=True)
def test_a_declared_50_mb_length_is_refused_before_the_body_is_read(flood: FloodServer) -> None:
    report = check()

    assert_typed_failure(report)
    assert flood.completed == 0


@pytest.mark.parametrize("flood", [{"gzip_bomb": True}], indirect=True)
def test_a_gzip_bomb_is_cut_off_while_it_is_decompressed(flood: FloodServer) -> None:
    tracemalloc.start()
    try:
        report = check()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert_typed_failure(report)
    assert peak < 60 * (1 << 20), f"peak traced memory {peak / (1 << 20):.1f} MB"  # 50 MB would be twice that
