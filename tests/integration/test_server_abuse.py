"""The HTTP server against hostile clients: slow sockets, rotated identities, costly batches, keys.

A real uvicorn server on loopback, configured as `veracity serve` configures it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.integration.app_server import serving
from veracity.server.app import PUBLIC_ROUTES, create_app
from veracity.server.serving import ServeSettings

POLICY = "The customer may return a package within 14 days of the delivery date."
CHECK = {"input": {"text": "You can return the package within 14 days.", "source_text": POLICY}}
KEY = "s3cret-key"
QUICK = ServeSettings(header_timeout=0.5, body_timeout=0.5)


def post(url: str, path: str, body, **headers) -> httpx.Response:
    return httpx.post(url + path, json=body, headers=headers, timeout=60)


def statuses(url: str, path: str, body, header_sets) -> list[int]:
    return [post(url, path, body, **headers).status_code for headers in header_sets]


def open_socket(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=5)


def read_until_closed(connection: socket.socket, within: float) -> tuple[bytes, float]:
    """What the server sent before it closed the socket, and how long that took."""
    start, received = time.monotonic(), b""
    connection.settimeout(within)
    try:
        while chunk := connection.recv(4096):
            received += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return received, time.monotonic() - start


def test_partial_headers_are_dropped_after_the_header_timeout() -> None:
    with serving(create_app(model="offline", api_key=""), QUICK) as url:
        connection = open_socket(url)
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # never finished
        received, took = read_until_closed(connection, within=10)
    assert received.startswith(b"HTTP/1.1 408") and took < 5


def test_a_body_shorter_than_its_length_is_dropped_after_the_body_timeout() -> None:
    with serving(create_app(model="offline", api_key=""), QUICK) as url:
        connection = open_socket(url)
        connection.sendall(b"POST /factcheck/invoke HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
                           b"content-length: 500\r\n\r\n{\"input\": ")
        received, took = read_until_closed(connection, within=10)
        assert post(url, "/factcheck/invoke", CHECK).status_code == 200  # the server is fine
    assert received.startswith(b"HTTP/1.1 408") and took < 5


def test_an_idle_keep_alive_connection_is_not_cut_by_the_header_timeout() -> None:
    with serving(create_app(model="offline", api_key=""), QUICK) as url, httpx.Client(base_url=url) as client:
        assert client.get("/healthz").status_code == 200
        time.sleep(1.0)  # longer than the header timeout, shorter than the keep-alive
        assert client.get("/healthz").status_code == 200
        assert client.get("/healthz").extensions["network_stream"] is not None


SERVER = """
import resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (1024, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
from veracity.cli import main
sys.argv = ["veracity", "serve", "--model", "offline", "--port", sys.argv[1]]
main()
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_healthz_stays_up_under_2000_held_sockets_with_1024_file_descriptors(tmp_path: Path) -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2200:
        if hard != resource.RLIM_INFINITY and hard < 2200:
            pytest.skip(f"this test holds 2,000 sockets; the file-descriptor limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (2200, hard))
    port = free_port()
    env = {**os.environ, "VERACITY_KB": str(tmp_path / "kb")}
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    held: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.2)
        for _ in range(2000):
            try:
                connection = open_socket(url)
                connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
                held.append(connection)
            except OSError:
                pass  # the server closed an old socket under us: that is the cap working
        answers = [httpx.get(url + "/healthz", timeout=5).status_code for _ in range(5)]
        assert answers == [200] * 5
        assert server.poll() is None
    finally:
        for connection in held:
            connection.close()
        server.terminate()
        server.wait(timeout=20)


def test_rotating_x_forwarded_for_does_not_escape_the_rate_limit() -> None:
    with serving(create_app(model="offline", api_key="", rate_limit="2/minute")) as url:
        answers = statuses(url, "/factcheck/invoke", CHECK,
                           [{"x-forwarded-for": f"203.0.113.{n}"} for n in range(4)])
    assert answers == [200, 200, 429, 429]


def test_a_trusted_proxy_s_forwarded_address_is_the_client() -> None:
    settings = ServeSettings(trusted_proxies="127.0.0.1")
    with serving(create_app(model="offline", api_key="", rate_limit="1/minute"), settings) as url:
        answers = statuses(url, "/factcheck/invoke", CHECK,
                           [{"x-forwarded-for": address} for address in ("203.0.113.1", "203.0.113.2",
                                                                         "203.0.113.1")])
    assert answers == [200, 200, 429]


def test_rotating_api_keys_on_an_open_server_does_not_escape_the_rate_limit() -> None:
    with serving(create_app(model="offline", api_key="", rate_limit="2/minute")) as url:
        answers = statuses(url, "/factcheck/invoke", CHECK, [{"x-api-key": f"made-up-{n}"} for n in range(4)])
    assert answers == [200, 200, 429, 429]


def test_failed_authentication_is_rate_limited() -> None:
    with serving(create_app(model="offline", api_key=KEY, rate_limit="3/minute")) as url:
        answers = statuses(url, "/factcheck/invoke", CHECK, [{"x-api-key": f"guess-{n}"} for n in range(5)])
        assert answers == [401, 401, 401, 429, 429]
        assert post(url, "/factcheck/invoke", CHECK, **{"x-api-key": KEY}).status_code == 200


def test_each_check_of_a_batch_counts_against_the_rate() -> None:
    batch = {"inputs": [CHECK["input"]] * 2}
    with serving(create_app(model="offline", api_key="", rate_limit="3/minute")) as url:
        first, second = (post(url, "/factcheck/batch", batch) for _ in range(2))
        too_big = post(url, "/factcheck/batch", {"inputs": [CHECK["input"]] * 4})
    assert first.status_code == 200 and second.status_code == 429
    assert too_big.status_code == 429 and "send at most 3" in too_big.json()["error"]


def test_with_a_key_only_the_public_routes_answer_without_it() -> None:
    app = create_app(model="offline", api_key=KEY)
    routes = {(method, route.path) for route in app.routes for method in getattr(route, "methods", ()) or ()
              if method in {"GET", "POST"}}
    assert {path for _, path in routes} >= PUBLIC_ROUTES - {"/docs/oauth2-redirect"}
    with serving(app) as url:
        for method, path in sorted(routes):
            response = httpx.request(method, url + path, json=CHECK if method == "POST" else None, timeout=60)
            expected = 200 if path in PUBLIC_ROUTES else 401
            assert response.status_code == expected, (method, path, response.text[:200])
        schema = httpx.get(url + "/openapi.json").json()
    # The docs offer the key so that "Try it out" works on a protected server.
    assert {"APIKeyHeader", "HTTPBearer"} <= set(schema["components"]["securitySchemes"])
    assert "security" in schema["paths"]["/factcheck/invoke"]["post"]
    assert "security" not in schema["paths"]["/healthz"]["get"]


def test_a_broken_knowledge_base_does_not_tell_clients_the_server_s_paths(tmp_path: Path) -> None:
    broken = tmp_path / "private" / "kb"
    broken.mkdir(parents=True)
    (broken / "manifest.json").write_text("{not json")
    with serving(create_app(model="offline", api_key="", search="kb", kb_path=str(broken))) as url:
        invoked = post(url, "/factcheck/invoke", {"input": {"text": "Canberra is the capital of Australia."}})
        with httpx.stream("POST", url + "/factcheck/stream", timeout=60,
                          json={"input": {"text": "Canberra is the capital of Australia."}}) as response:
            streamed = response.read().decode()
    assert invoked.status_code == 503 and "server log" in invoked.json()["error"]
    assert '"status": 503' in streamed
    assert str(tmp_path) not in invoked.text and str(tmp_path) not in streamed
