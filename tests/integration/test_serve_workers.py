"""`veracity serve --workers 2`: the real command in a child process, two workers on one port.

Which worker answers a connection is the kernel's choice, so the tests find out from /proc which
worker process holds each connection, and keep one connection per worker.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from veracity.cli.serve import serve_command
from veracity.cores import usable_cores

pytestmark = pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="finds the workers' sockets in /proc")

POLICY = ("The customer may return a package within 14 days of the delivery date. "
          "After that period, returns are not accepted.")
FAITHFUL = "You can return the package within 14 days of the delivery date."
WRONG = "You can return the package within 30 days of the delivery date."


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def children(pid: int) -> set[int]:
    """The processes whose parent is `pid`."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def worker_holding(server_pid: int, port: int, client_port: int) -> int | None:
    """The child of `server_pid` holding the server end of the connection from `client_port`."""
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and int(fields[2].split(":")[1], 16) == client_port:
            inode = fields[9]
    for pid in children(server_pid):
        try:
            if any(os.readlink(fd) == f"socket:[{inode}]" for fd in Path(f"/proc/{pid}/fd").iterdir()):
                return pid
        except OSError:
            continue
    return None


@contextmanager
def veracity_serve(
    folder: Path, *options: str, env: dict[str, str] | None = None,
) -> Iterator[tuple[subprocess.Popen, int]]:
    """`veracity serve --model offline --workers 2 ...` in its own process group; yields it and its port.

    Its temporary files go under `folder`/tmp, its log to `folder`/serve.log.
    """
    port = free_port()
    (folder / "tmp").mkdir()
    command = [str(Path(sys.executable).with_name("veracity")), "serve", "--model", "offline", "--port", str(port),
               "--workers", "2", *options]
    with (folder / "serve.log").open("w") as log:
        server = subprocess.Popen(command, env={**os.environ, "TMPDIR": str(folder / "tmp"), **(env or {})},
                                  stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.2)
        yield server, port
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)


def one_client_per_worker(server: subprocess.Popen, port: int) -> dict[int, httpx.Client]:
    """A kept-alive connection to each of the two workers, found by opening connections until both answered."""
    clients: dict[int, httpx.Client] = {}
    for _ in range(60):
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120)
        response = client.get("/healthz")
        assert response.status_code == 200
        _host, client_port = response.extensions["network_stream"].get_extra_info("client_addr")
        worker = worker_holding(server.pid, port, client_port)
        if worker is not None and worker not in clients:
            clients[worker] = client
            if len(clients) == 2:
                return clients
        else:
            client.close()
    raise AssertionError(f"connections reached {len(clients)} worker(s) only")


def check(client: httpx.Client, text: str, source: str | None = None) -> httpx.Response:
    body = {"text": text} if source is None else {"text": text, "source_text": source}
    return client.post("/factcheck/invoke", json={"input": body})


def verdicts(response: httpx.Response) -> list[tuple[str, str | None]]:
    """Each verdict's label and leaning."""
    assert response.status_code == 200, response.text
    return [(verdict["label"], verdict["leaning"]) for verdict in response.json()["output"]["verdicts"]]


def stopped(server: subprocess.Popen, workers: set[int], within: float = 30) -> int:
    """Wait for the server and its workers to end; its exit status."""
    status = server.wait(timeout=within)
    deadline = time.monotonic() + 5
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers), "a worker outlived the server"
    return status


def test_help_shows_the_default_number_of_workers() -> None:
    result = CliRunner().invoke(serve_command, ["--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "--workers" in result.output and f"[default: {usable_cores()}; x>=1]" in result.output


def test_both_workers_answer_checks_against_a_source_and_the_knowledge_base(tmp_path: Path) -> None:
    # An empty knowledge base is seeded with the demo notes on first use.
    with veracity_serve(tmp_path, "--rate-limit", "1000/minute", "--search", "kb",
                        env={"VERACITY_KB": str(tmp_path / "kb")}) as (server, port):
        assert len(list((tmp_path / "tmp").glob("veracity-serve-*"))) == 1
        clients = one_client_per_worker(server, port)
        with ThreadPoolExecutor(2) as pool:  # both workers open (and the first seeds) the knowledge base at once
            from_kb = list(pool.map(lambda client: check(client, "Sydney is the capital of Australia."),
                                    clients.values()))
        # the demo note on Australia says Canberra
        assert [verdicts(response) for response in from_kb] == [[("unverifiable", "refuted")]] * 2
        for client in clients.values():
            assert verdicts(check(client, FAITHFUL, POLICY)) == [("supported", None)]
            # no offline refutation is certified at 0.90: the 30 days lean refuted
            assert verdicts(check(client, WRONG, POLICY)) == [("unverifiable", "refuted")]
            client.close()
        os.killpg(server.pid, signal.SIGINT)  # Ctrl-C in a terminal reaches the whole group
        assert stopped(server, set(clients)) == 0
    assert list((tmp_path / "tmp").glob("veracity-serve-*")) == []  # the shared rate-limit file is gone
    assert "Traceback" not in (tmp_path / "serve.log").read_text()


def test_the_rate_limit_holds_across_workers_and_sigterm_stops_them_all(tmp_path: Path) -> None:
    with veracity_serve(tmp_path, "--rate-limit", "4/minute") as (server, port):
        clients = one_client_per_worker(server, port)
        first, second = clients.values()
        statuses = [check(client, FAITHFUL, POLICY).status_code for client in (first, second) * 3]
        assert statuses == [200, 200, 200, 200, 429, 429]  # 4 in all, not 4 per worker
        for client in clients.values():
            client.close()
        server.send_signal(signal.SIGTERM)  # to the parent only, as a service manager does
        assert stopped(server, set(clients)) == 0
    assert list((tmp_path / "tmp").glob("veracity-serve-*")) == []
    assert "Traceback" not in (tmp_path / "serve.log").read_text()


def test_a_check_saved_by_one_worker_is_read_back_by_the_other(tmp_path: Path) -> None:
    with veracity_serve(tmp_path, "--checkpoint", str(tmp_path / "checks.sqlite")) as (server, port):
        first, second = one_client_per_worker(server, port).values()
        body = {"input": {"text": FAITHFUL, "source_text": POLICY, "thread_id": "shared-thread"}}
        saved, read_back = (client.post("/factcheck/invoke", json=body) for client in (first, second))
        assert saved.status_code == read_back.status_code == 200
        assert read_back.json()["metadata"]["thread_id"] == "shared-thread"
        assert read_back.json()["output"] == saved.json()["output"]  # step timings too: read back, not run again
        for client in (first, second):
            client.close()
