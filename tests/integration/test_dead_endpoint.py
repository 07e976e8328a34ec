"""A dead model endpoint fails fast: the preflight probe, through the real CLI and OpenAI client, on loopback.

A stalled endpoint (accepts, never answers) and a refused one end the check with a typed failure
(exit 3) within seconds, not after `model_timeout` per attempt; a live endpoint that is slow to
answer each chat request still gets its check done.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import veracity
from tests.integration.conftest import OPENAI_KEY, FakeOpenAI, RecordedRequest
from veracity.cli import main
from veracity.llm.probe import ENDPOINT_PROBES, PROBE_SECONDS

pytestmark = pytest.mark.integration

TEXT = "The Eiffel Tower is in Paris."
SOURCE = "The Eiffel Tower is in Paris. It was finished in 1889."
STALLED_LIMIT_S = 60.0
"""A hang guard: a stalled endpoint is reported after one probe (`PROBE_SECONDS`) with default settings, which the
single connection asserted below shows; before the probe it took minutes (three tries of the model timeout)."""


class StalledEndpoint:
    """Accepts connections on 127.0.0.1 and never sends a byte; counts the connections."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)  # so that the accept loop sees `close`
        self.connections: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        """What `OPENAI_BASE_URL` should be set to."""
        host, port = self._listener.getsockname()[:2]
        return f"http://{host}:{port}/v1"

    def _accept(self) -> None:
        while self._listener.fileno() != -1:
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections.append(connection)

    def close(self) -> None:
        """Stop listening and drop the held connections."""
        self._listener.close()
        for connection in self.connections:
            connection.close()
        self._thread.join(timeout=5)


@pytest.fixture(autouse=True)
def fresh_probes() -> Iterator[None]:
    """Each test probes its own endpoint afresh."""
    ENDPOINT_PROBES.forget()
    yield
    ENDPOINT_PROBES.forget()


@pytest.fixture
def openai_env(monkeypatch: pytest.MonkeyPatch, loopback_sockets: None) -> pytest.MonkeyPatch:
    """The real OpenAI client's environment, without proxies, searches or tracing."""
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    for name in ("OPENAI_API_BASE", "OPENAI_PROXY", "TAVILY_API_KEY", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                 "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    return monkeypatch


@pytest.fixture
def stalled() -> Iterator[StalledEndpoint]:
    """A running stalled endpoint."""
    endpoint = StalledEndpoint()
    yield endpoint
    endpoint.close()


def check_cli(source: Path, *extra: str) -> tuple[Any, float]:
    """`veracity check TEXT --model openai:gpt-4.1-mini --source SOURCE --json`, and its seconds."""
    started = time.perf_counter()
    result = CliRunner().invoke(main, ["check", TEXT, "--model", "openai:gpt-4.1-mini", "--source", str(source),
                                       "--no-cache", "--json", *extra])
    return result, time.perf_counter() - started


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """The source text file the check is held to."""
    path = tmp_path / "source.txt"
    path.write_text(SOURCE)
    return path


def test_a_stalled_endpoint_is_a_typed_failure_within_seconds(
    openai_env: pytest.MonkeyPatch, stalled: StalledEndpoint, source: Path,
) -> None:
    openai_env.setenv("OPENAI_BASE_URL", stalled.base_url)
    result, seconds = check_cli(source)
    assert result.exit_code == 3, result.output
    assert seconds <= STALLED_LIMIT_S
    report = veracity.Report.model_validate_json(result.stdout)
    [failure] = report.failures
    assert failure.kind == "gate" and failure.step == "extract"
    assert stalled.base_url in failure.message and "not answering" in failure.message
    # One connection: the probe's. No chat request was sent to the silent endpoint.
    assert len(stalled.connections) == 1


def test_a_refused_connection_is_a_typed_failure_at_once(openai_env: pytest.MonkeyPatch, source: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    openai_env.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    result, seconds = check_cli(source)
    assert result.exit_code == 3, result.output
    assert seconds <= PROBE_SECONDS + 30  # a hang guard, not a speed target
    report = veracity.Report.model_validate_json(result.stdout)
    assert f"127.0.0.1:{port}" in report.failures[0].message


def test_the_probe_runs_once_per_endpoint_for_many_checks(
    openai_env: pytest.MonkeyPatch, stalled: StalledEndpoint,
) -> None:
    openai_env.setenv("OPENAI_BASE_URL", stalled.base_url)
    checker = veracity.Checker(model="openai:gpt-4.1-mini", search="source")
    started = time.perf_counter()
    reports = [checker.check(f"{TEXT} ({n})", source_text=SOURCE, cache=False) for n in range(3)]
    assert all(report.outcome == "incomplete" for report in reports)
    assert time.perf_counter() - started <= PROBE_SECONDS + 30  # a hang guard: one probe, not one per check
    assert len(stalled.connections) == 1


SLOW_ANSWER_S = 8.0
"""The slow endpoint's delay per chat answer: more than the probe waits, less than the model timeout below."""


@pytest.fixture
def slow_openai(fake_openai: FakeOpenAI) -> FakeOpenAI:
    """The fake OpenAI server, taking `SLOW_ANSWER_S` per chat answer (its `GET /v1/models` answers at once)."""
    answer = fake_openai.server.routes[fake_openai.path]

    def slowly(request: RecordedRequest) -> tuple[int, Any]:
        time.sleep(SLOW_ANSWER_S)
        return answer(request)

    fake_openai.server.routes[fake_openai.path] = slowly
    fake_openai.extractions = [{"claims": [{"claim": TEXT, "source": TEXT}]}]

    def judge(claim: str, evidence: dict[str, str], attempt: int) -> dict[str, Any]:
        cited = next(item_id for item_id, text in evidence.items() if "Paris" in text)
        return {"label": "supported", "reason": "The source says so.", "evidence_id": cited,
                "quote": "The Eiffel Tower is in Paris."}

    fake_openai.judge = judge
    return fake_openai


def test_a_slow_but_live_endpoint_still_gets_its_check_done(
    openai_env: pytest.MonkeyPatch, slow_openai: FakeOpenAI, source: Path,
) -> None:
    openai_env.setenv("OPENAI_BASE_URL", slow_openai.base_url)
    report = veracity.check(TEXT, model="openai:gpt-4.1-mini", source_text=SOURCE, cache=False,
                            model_timeout=SLOW_ANSWER_S * 2)
    assert report.failures == []
    assert [verdict.label for verdict in report.verdicts] == ["supported"]
    assert len(slow_openai.requests) == 2  # one extraction, one judge answer: each slower than the probe waits
