"""Loopback HTTP servers that play the OpenAI and Tavily APIs for the real client libraries.

Each fake is a stdlib `ThreadingHTTPServer` on 127.0.0.1 (port 0, so the OS picks a free
one) served from a background thread. It records every request it receives and answers
from a small script the test sets. Sockets are allowed for these tests, but connections
only to the loopback interface, whatever pytest-socket was told on the command line.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from pytest_socket import enable_socket, socket_allow_hosts

from tests.integration.loopback import LoopbackHTTPServer

LOOPBACK = ["127.0.0.1", "127.0.0.2", "localhost"]
"""Where tests may connect: the loopback interface (127.0.0.2 hosts a second web server for the address guard)."""

OPENAI_KEY = "test-key"
TAVILY_KEY = "tvly-test"

EXTRACTION_MARKER = "Text to split into claims"
"""Text in the extraction prompt that tells the fake model which step is asking."""

_CLAIM_LINE = re.compile(r"^Claim: (.*)$", re.MULTILINE)
_EVIDENCE_ITEM = re.compile(r"^<<<evidence (c\d+-e\d+) (\w+)>>>[^\n]*\n(.*?)\n<<<end of evidence \1 \2>>>",
                            re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request a fake server received: path, headers (names lower-cased) and JSON body."""

    path: str
    headers: dict[str, str]
    body: Any


Route = Callable[[RecordedRequest], tuple[int, Any]]
"""Answers a request with an HTTP status and a JSON-serialisable body."""


class ScriptedServer(LoopbackHTTPServer):
    """A threaded HTTP server on 127.0.0.1 that answers POSTs from `routes` and records them.

    A route that raises is answered with HTTP 500 and its exception is kept in `errors`,
    so a broken script fails the test at teardown instead of hiding behind a retry.
    """

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.requests: list[RecordedRequest] = []
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()
        super().__init__(self._handler_class())

    @property
    def base_url(self) -> str:
        """The server's root URL, e.g. 'http://127.0.0.1:54321'."""
        return self.origin

    def received(self, path: str) -> list[RecordedRequest]:
        """The requests received on `path`, in arrival order."""
        with self._lock:
            return [request for request in self.requests if request.path == path]

    def _answer(self, request: RecordedRequest) -> tuple[int, Any]:
        with self._lock:
            self.requests.append(request)
        route = self.routes.get(request.path)
        if route is None:
            return 404, {"error": f"no route for {request.path}"}
        try:
            return route(request)
        except Exception as exc:  # reported at teardown; the client just sees a server error
            with self._lock:
                self.errors.append(exc)
            return 500, {"error": f"fake server script failed: {exc!r}"}

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                request = RecordedRequest(
                    path=self.path,
                    headers={name.lower(): value for name, value in self.headers.items()},
                    body=json.loads(raw) if raw else None,
                )
                status, body = server._answer(request)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                """Keep test output quiet."""

        return Handler


def message_text(message: dict) -> str:
    """The text of one chat message from a request body (string or content-part list)."""
    content = message.get("content") or ""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def prompt_evidence(prompt: str) -> dict[str, str]:
    """The evidence items a judge prompt lists, as {id: text}, each fenced by its id and the prompt's boundary."""
    return {match.group(1): match.group(3).strip() for match in _EVIDENCE_ITEM.finditer(prompt)}


Judge = Callable[[str, dict[str, str], int], Any]
"""Scripts the judge: (claim, evidence {id: text} seen in the prompt, attempt for this claim) -> reply."""


class FakeOpenAI:
    """Plays `POST /v1/chat/completions` for the extraction and judge steps.

    The step is read from the prompt, as a real model would: the extraction prompt holds the
    text to split; the judge prompt holds a 'Claim: ...' line and the evidence items. The n-th
    extraction request gets `extractions[n]` (the last one repeats); judge replies come from
    `judge`. A dict reply is sent as JSON message content, or as tool-call arguments when the
    request asked for tools instead of a `response_format`. Every reply carries a `usage`
    object, also kept in `usages` so token accounting can be checked.

    Two faults of real servers can be played: the first `cut_off` replies (and, with
    `cut_off_judge`, every judge reply) stop at the token limit (half the JSON,
    ``finish_reason: length``), and with `refuse_schema` a request with a `response_format` is
    answered 400, as by a server without structured output.
    """

    path = "/v1/chat/completions"

    def __init__(self) -> None:
        self.extractions: list[Any] = []
        self.judge: Judge | None = None
        self.usages: list[dict[str, int]] = []
        self.extraction_attempts = 0
        self.judge_attempts: Counter[str] = Counter()
        self.cut_off = 0
        self.cut_off_judge = False
        self.refuse_schema = False
        self.server = ScriptedServer({self.path: self._complete})
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """What `OPENAI_BASE_URL` should be set to."""
        return f"{self.server.base_url}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """All chat-completion requests received."""
        return self.server.received(self.path)

    def prompts(self, *, extraction: bool) -> list[str]:
        """The full prompt text of each extraction (or each judge) request, in arrival order."""
        prompts = [self._prompt(request.body) for request in self.requests]
        return [prompt for prompt in prompts if (EXTRACTION_MARKER in prompt) == extraction]

    @staticmethod
    def _prompt(body: dict) -> str:
        return "\n".join(message_text(message) for message in body.get("messages", []))

    def _reply_for(self, prompt: str) -> Any:
        with self._lock:
            if EXTRACTION_MARKER in prompt:
                self.extraction_attempts += 1
                return self.extractions[min(self.extraction_attempts, len(self.extractions)) - 1]
            claim = _CLAIM_LINE.search(prompt)
            if claim is None or self.judge is None:
                raise AssertionError(f"unexpected prompt: {prompt[:300]!r}")
            self.judge_attempts[claim.group(1)] += 1
            attempt = self.judge_attempts[claim.group(1)]
        return self.judge(claim.group(1), prompt_evidence(prompt), attempt)

    def _complete(self, request: RecordedRequest) -> tuple[int, Any]:
        body = request.body
        if self.refuse_schema and "response_format" in body:
            return 400, {"error": {"message": "response_format with a json_schema is not supported by this server",
                                   "type": "invalid_request_error", "code": None, "param": "response_format"}}
        prompt = self._prompt(body)
        reply = self._reply_for(prompt)
        text = reply if isinstance(reply, str) else json.dumps(reply)
        finish_reason = "stop"
        with self._lock:
            cut = self.cut_off > 0 or (self.cut_off_judge and EXTRACTION_MARKER not in prompt)
            self.cut_off = max(0, self.cut_off - 1)
        if cut:
            text, finish_reason = text[: len(text) // 2], "length"
        usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": len(text.split())}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        with self._lock:
            self.usages.append(usage)
            number = len(self.usages)
        message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
        if body.get("tools") and "response_format" not in body:
            function = {"name": body["tools"][0]["function"]["name"], "arguments": text}
            call = {"id": f"call_{number}", "type": "function", "function": function}
            message.update(content=None, tool_calls=[call])
            finish_reason = "tool_calls" if finish_reason == "stop" else finish_reason
        return 200, {
            "id": f"chatcmpl-fake-{number}",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
            "usage": usage,
        }


class FakeTavily:
    """Plays Tavily's `POST /search`: results per query from `results` (else `lookup`), or an error `status`."""

    path = "/search"

    def __init__(self) -> None:
        self.results: dict[str, list[dict[str, Any]]] = {}
        self.lookup: Callable[[str], list[dict[str, Any]]] | None = None
        """Answers any query not in `results` (e.g. ranks a fixed set of pages by the query's words)."""
        self.status = 200
        self.server = ScriptedServer({self.path: self._search})

    @property
    def base_url(self) -> str:
        """What `TAVILY_API_BASE_URL` should be set to."""
        return self.server.base_url

    @property
    def requests(self) -> list[RecordedRequest]:
        """All search requests received."""
        return self.server.received(self.path)

    def queries(self) -> Counter[str]:
        """How many searches were made for each query."""
        return Counter(request.body["query"] for request in self.requests)

    def _search(self, request: RecordedRequest) -> tuple[int, Any]:
        query = request.body["query"]
        if self.status != 200:
            return self.status, {"detail": {"error": f"scripted HTTP {self.status}"}}
        results = self.results.get(query)
        if results is None:
            results = self.lookup(query) if self.lookup else []
        return 200, {"query": query, "results": results, "response_time": 0.1}


@pytest.fixture(autouse=True)
def loopback_sockets() -> Iterator[None]:
    """Allow sockets, but connections only to 127.0.0.1/localhost; restore the previous guards after."""
    saved = socket.socket, socket.getaddrinfo, socket.gethostbyname
    enable_socket()
    real_connect = socket.socket.connect
    socket_allow_hosts(LOOPBACK, allow_unix_socket=True)
    yield
    socket.socket.connect = real_connect
    socket.socket, socket.getaddrinfo, socket.gethostbyname = saved


@contextmanager
def serving(server: ScriptedServer) -> Iterator[ScriptedServer]:
    """Run `server` for the duration of the block; then fail if its script raised."""
    server.start()
    try:
        yield server
    finally:
        server.stop()
    assert not server.errors, f"the fake server's script failed: {server.errors!r}"


@pytest.fixture
def fake_openai(loopback_sockets: None) -> Iterator[FakeOpenAI]:
    """A running fake OpenAI Chat Completions server."""
    fake = FakeOpenAI()
    with serving(fake.server):
        yield fake


@pytest.fixture
def fake_tavily(loopback_sockets: None) -> Iterator[FakeTavily]:
    """A running fake Tavily search server."""
    fake = FakeTavily()
    with serving(fake.server):
        yield fake


@pytest.fixture
def real_clients(monkeypatch: pytest.MonkeyPatch, fake_openai: FakeOpenAI, fake_tavily: FakeTavily) -> None:
    """Point the real OpenAI and Tavily clients at the fakes through their environment variables."""
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("TAVILY_API_KEY", TAVILY_KEY)
    monkeypatch.setenv("TAVILY_API_BASE_URL", fake_tavily.base_url)
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    for name in ("OPENAI_API_BASE", "OPENAI_PROXY", "OPENAI_ORG_ID", "OPENAI_ORGANIZATION", "TAVILY_HTTP_PROXY"):
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", ",".join(LOOPBACK))


@dataclass
class Page:
    """One page a `PageServer` serves: status, content type, body, extra headers, delay before answering."""

    body: str = ""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] | None = None
    delay: float = 0.0


class PageServer(LoopbackHTTPServer):
    """A threaded web server on loopback (127.0.0.1 unless `host` says) serving `pages` by path (GET)."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.pages: dict[str, Page] = {}
        self.hits: Counter[str] = Counter()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server naming)
                server.hits[self.path] += 1
                page = server.pages.get(self.path, Page("not here", status=404, content_type="text/plain"))
                if page.delay:
                    time.sleep(page.delay)
                data = page.body.encode()
                try:
                    self.send_response(page.status)
                    self.send_header("Content-Type", page.content_type)
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in (page.headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first (a timeout test)

            def log_message(self, format: str, *args: Any) -> None:
                """Keep test output quiet."""

        super().__init__(Handler, host)

    @property
    def base_url(self) -> str:
        """The server's root URL."""
        return self.origin

    def serve_results(self, results: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
        """Serve each search result's content as an article page; the results, pointing at those pages."""
        served: dict[str, list[dict[str, Any]]] = {}
        for query, items in results.items():
            served[query] = []
            for item in items:
                path = "/" + item["url"].split("://", 1)[-1].split("/", 1)[-1]
                self.pages[path] = Page(f"<html><head><title>{item['title']}</title></head><body><nav>Home</nav>"
                                        f"<article><h1>{item['title']}</h1><p>{item['content']}</p></article>"
                                        f"<footer>Contact</footer></body></html>")
                served[query].append({**item, "url": self.base_url + path})
        return served



@pytest.fixture
def fake_pages(loopback_sockets: None) -> Iterator[PageServer]:
    """A running loopback web server for cited pages."""
    with PageServer() as pages:
        yield pages
