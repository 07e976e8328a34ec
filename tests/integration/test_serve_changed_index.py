"""`veracity serve --workers 1` over a knowledge base whose mapped index is changed on disk while it runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.integration.test_serve_workers import children, free_port
from tests.unit.kb_fixtures import AUSTRALIA, write
from veracity.kb import KnowledgeBase

CLAIM = "Canberra is the capital of Australia."


@pytest.fixture
def large_kb(tmp_path: Path) -> Path:
    """A knowledge base whose dense index spans many pages, so that a truncated mapping would fault."""
    facts = "\n\n".join(f"Station {n} lies on line {n % 7} and opened in {1900 + n % 120}." for n in range(1500))
    write(tmp_path / "docs" / "australia.md", AUSTRALIA)
    write(tmp_path / "docs" / "stations.txt", facts)
    KnowledgeBase(tmp_path / "kb").ingest([tmp_path / "docs"])
    return tmp_path / "kb"


@contextmanager
def serving(folder: Path, kb: Path, workers: int = 1) -> Iterator[tuple[subprocess.Popen, httpx.Client]]:
    """`veracity serve --workers N --search kb`, logging to `folder`/serve.log; yields it and a client."""
    port = free_port()
    command = [str(Path(sys.executable).with_name("veracity")), "serve", "--model", "offline", "--workers",
               str(workers), "--port", str(port), "--search", "kb", "--kb", str(kb), "--rate-limit", "1000/minute"]
    with (folder / "serve.log").open("w") as log:
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=300)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if client.get("/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.2)
        yield server, client
    finally:
        client.close()
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=30)


def test_a_truncated_index_fails_the_search_not_the_server_and_a_fatal_signal_is_logged(large_kb: Path,
                                                                                      tmp_path: Path) -> None:
    dense = KnowledgeBase(large_kb).manifest().files(large_kb).dense
    with serving(tmp_path, large_kb) as (server, client):
        before = client.post("/factcheck/invoke", json={"input": {"text": CLAIM}})
        assert before.status_code == 200, before.text
        assert [v["label"] for v in before.json()["output"]["verdicts"]] == ["supported"]

        with open(dense, "r+b") as handle:  # in place, under the running server's mapping
            handle.truncate(4096)
        after = client.post("/factcheck/invoke", json={"input": {"text": CLAIM}})
        assert after.status_code == 200, after.text
        report = after.json()["output"]
        assert [v["label"] for v in report["verdicts"]] == ["unverifiable"]
        failures = [(f["kind"], f["error"]) for f in report["failures"]]
        assert failures == [("tool", "unavailable")]
        assert "dense.faiss is damaged" in report["failures"][0]["message"]
        assert str(large_kb) not in after.text  # the server's paths stay in its log
        assert client.get("/healthz").status_code == 200 and server.poll() is None

        server.send_signal(signal.SIGBUS)  # what a search touching a truncated mapping would raise
        assert server.wait(timeout=60) == -signal.SIGBUS
    log = (tmp_path / "serve.log").read_text()
    assert "changed on disk while in use (dense.faiss changed size" in log
    assert "Fatal Python error: Bus error" in log


def workers_of(server: subprocess.Popen) -> set[int]:
    """The server's worker processes (its children, less multiprocessing's resource tracker)."""
    found = set()
    for pid in children(server.pid):
        try:
            if b"resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.add(pid)
        except OSError:
            continue
    return found


def test_a_worker_killed_by_a_fatal_signal_says_so_and_is_replaced(large_kb: Path, tmp_path: Path) -> None:
    with serving(tmp_path, large_kb, workers=2) as (server, client):
        deadline = time.monotonic() + 120  # a hang guard only
        log_file = tmp_path / "serve.log"
        # Both workers have built their app (and so set up the fatal-signal log) once each says so.
        while ((log_file.read_text().count("Application startup complete") < 2 or len(workers_of(server)) < 2)
               and time.monotonic() < deadline):
            time.sleep(0.2)
        victim = min(workers_of(server))
        os.kill(victim, signal.SIGBUS)
        while (victim in workers_of(server) or len(workers_of(server)) < 2) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert victim not in workers_of(server) and len(workers_of(server)) == 2  # replaced
        assert client.get("/healthz").status_code == 200
    log = (tmp_path / "serve.log").read_text()
    assert "Fatal Python error: Bus error" in log
