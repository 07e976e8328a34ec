"""A chat endpoint that answers its model list but never a chat: one wait per check, a typed failure naming it.

The server plays an OpenAI-compatible endpoint on loopback: `GET /v1/models` is answered at once
(so the preflight probe finds it alive) and every `POST /v1/chat/completions` is held open without a
byte. The real CLI and OpenAI client talk to it. The check waits out `model_timeout` once: the
gate's retries, the other claims and the revise rounds do not ask the stalled model again. A busy
endpoint that answers other calls meanwhile is asked again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import veracity
from tests.integration.conftest import LOOPBACK, OPENAI_KEY, FakeOpenAI, RecordedRequest
from tests.integration.loopback import LoopbackHTTPServer
from veracity.cli import main
from veracity.context import Context
from veracity.contracts import GateFailure
from veracity.llm.probe import ENDPOINT_PROBES

pytestmark = pytest.mark.integration

TEXT = "The Eiffel Tower is in Paris."
TWO_CLAIMS = "The Eiffel Tower is in Paris. The Eiffel Tower was finished in 1889."
SOURCE = "The Eiffel Tower is in Paris. It was finished in 1889."
HELD_S = 600.0
"""How long the server holds a chat request at most (it is released when the test ends)."""
SMALL_TIMEOUT = "2"
"""`model_timeout` for the tests that need not wait out the default."""
HANG_GUARD_S = 180.0
"""A default-settings check is stopped after this long: before, it waited three times 120 s."""


class ModelListOnly:
    """Answers `GET /v1/models`; holds each `POST` open, unanswered, until `close`; counts both."""

    def __init__(self) -> None:
        self.gets: list[str] = []
        self.posts: list[str] = []
        self._release = threading.Event()
        self._server = LoopbackHTTPServer(self._handler()).start()

    @property
    def base_url(self) -> str:
        """What `OPENAI_BASE_URL` should be set to."""
        return f"{self._server.origin}/v1"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server naming)
                outer.gets.append(self.path)
                body = json.dumps({"object": "list", "data": [{"id": "gpt-4.1-mini", "object": "model"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.posts.append(self.path)
                outer._release.wait(HELD_S)  # never answers while the test runs
                self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        return Handler

    def close(self) -> None:
        """Let the held requests go, and stop serving."""
        self._release.set()
        self._server.stop()


@pytest.fixture(autouse=True)
def fresh_probes() -> Iterator[None]:
    """Each test probes its own endpoint afresh."""
    ENDPOINT_PROBES.forget()
    yield
    ENDPOINT_PROBES.forget()


@pytest.fixture
def openai_env(monkeypatch: pytest.MonkeyPatch, loopback_sockets: None) -> pytest.MonkeyPatch:
    """The real OpenAI client's environment, without proxies, web searches or tracing."""
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    for name in ("OPENAI_API_BASE", "OPENAI_PROXY", "TAVILY_API_KEY", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                 "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", ",".join(LOOPBACK))
    return monkeypatch


@pytest.fixture
def stalled(openai_env: pytest.MonkeyPatch) -> Iterator[ModelListOnly]:
    """A running endpoint that answers its model list only, set as `OPENAI_BASE_URL`."""
    endpoint = ModelListOnly()
    openai_env.setenv("OPENAI_BASE_URL", endpoint.base_url)
    yield endpoint
    endpoint.close()


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """The source text file the checks are held to."""
    path = tmp_path / "source.txt"
    path.write_text(SOURCE)
    return path


def check_cli(text: str, source: Path, *extra: str) -> veracity.Report:
    """`veracity check TEXT --model openai:gpt-4.1-mini --source SOURCE --json` (exit 3 expected): its report."""
    result = CliRunner().invoke(main, ["check", text, "--model", "openai:gpt-4.1-mini", "--source", str(source),
                                       "--no-cache", "--json", *extra])
    assert result.exit_code == 3, result.output
    return veracity.Report.model_validate_json(result.stdout)


def test_a_stalled_chat_is_asked_once_and_its_failure_names_the_endpoint(
    stalled: ModelListOnly, source: Path,
) -> None:
    report = check_cli(TEXT, source, "--set", f"model_timeout={SMALL_TIMEOUT}")
    [failure] = report.failures
    assert isinstance(failure, GateFailure) and failure.step == "extract"
    assert stalled.base_url in failure.message
    assert f"did not answer within {SMALL_TIMEOUT} s" in failure.errors[0]
    assert all(stalled.base_url in error for error in failure.errors)
    # One chat request: the gate's retries did not ask the stalled endpoint again (before: one per attempt).
    assert (len(stalled.gets), len(stalled.posts)) == (1, 1)


def test_a_stalled_judge_is_asked_at_most_once_per_claim_across_retries_and_revise_rounds(
    stalled: ModelListOnly, source: Path,
) -> None:
    report = check_cli(TWO_CLAIMS, source, "--extract-model", "offline", "--set", f"model_timeout={SMALL_TIMEOUT}")
    claims = [verdict.claim_id for verdict in report.verdicts]
    assert len(claims) == 2
    assert all(verdict.label == "unverifiable" and verdict.downgraded for verdict in report.verdicts)
    failures = [failure for failure in report.failures if isinstance(failure, GateFailure)]
    assert sorted(failure.claim_id or "" for failure in failures) == sorted(claims)
    assert all(failure.step == "judge" and stalled.base_url in failure.errors[-1] for failure in failures)
    # Before: each claim's judge was asked on each of 3 attempts in each of 3 rounds (18 requests).
    assert 1 <= len(stalled.posts) <= len(claims)


@pytest.fixture
def busy_openai(fake_openai: FakeOpenAI, openai_env: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """The fake OpenAI server, holding its first chat request open and answering every other one at once."""
    answer = fake_openai.server.routes[fake_openai.path]
    release = threading.Event()
    held: list[RecordedRequest] = []
    lock = threading.Lock()

    def first_held(request: RecordedRequest) -> tuple[int, Any]:
        with lock:
            first = not held
            if first:
                held.append(request)
        if first:
            release.wait(HELD_S)
            return 503, {"error": {"message": "released at the end of the test"}}
        return answer(request)

    def judge(claim: str, evidence: dict[str, str], attempt: int) -> dict[str, Any]:
        word = "Paris" if "Paris" in claim else "1889"
        cited, text = next((item_id, text) for item_id, text in evidence.items() if word in text)
        quote = next(sentence for sentence in text.split(". ") if word in sentence).rstrip(".")
        return {"label": "supported", "reason": "The source says so.", "evidence_id": cited, "quote": quote}

    fake_openai.server.routes[fake_openai.path] = first_held
    fake_openai.judge = judge
    openai_env.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    yield fake_openai
    release.set()


def test_a_busy_endpoint_that_answers_other_calls_meanwhile_is_asked_again(busy_openai: FakeOpenAI) -> None:
    report = veracity.check(TWO_CLAIMS, model="openai:gpt-4.1-mini", extract_model="offline", source_text=SOURCE,
                            cache=False, model_timeout=float(SMALL_TIMEOUT))
    # The first judge call was held past model_timeout while the other claim's call was answered: the
    # endpoint is busy, not stalled, so that claim's retry was sent and answered.
    assert report.failures == []
    assert [verdict.label for verdict in report.verdicts] == ["supported", "supported"]
    assert len(busy_openai.requests) == 3


def test_with_default_settings_a_stalled_chat_is_reported_after_one_model_timeout(
    stalled: ModelListOnly, source: Path,
) -> None:
    default = Context().model_timeout
    assert default < 60  # one wait of it, with the start and the probe, stays within a minute
    env = {**os.environ, "PYTHONPATH": str(Path(veracity.__file__).parents[1])}  # the veracity under test
    command = [sys.executable, "-c", "from veracity.cli import main; main()", "check", TEXT,
               "--model", "openai:gpt-4.1-mini", "--source", str(source), "--no-cache", "--json"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=HANG_GUARD_S, cwd=source.parent)
    assert done.returncode == 3, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    [failure] = veracity.Report.model_validate_json(done.stdout).failures
    assert stalled.base_url in failure.message and f"did not answer within {default:g} s" in failure.message
    assert (len(stalled.gets), len(stalled.posts)) == (1, 1)
