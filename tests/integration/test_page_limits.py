"""A page fetch stays within its time and memory budget against a real loopback server that misbehaves:
a slow drip, a 60 MB page, a gzip bomb, an unknown character set; and a cited URL in upper case is fetched."""

from __future__ import annotations

import asyncio
import gzip
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

import veracity
from tests.integration.conftest import FakeOpenAI, FakeTavily, Page, PageServer
from tests.integration.loopback import LoopbackHTTPServer
from veracity.contracts import PageCheck, Verdict
from veracity.pages import AddressPolicy, FetchSettings, check_page

CLAIM = "The Sydney Harbour Bridge opened in 1932."
QUOTE = "The Sydney Harbour Bridge opened to traffic on 19 March 1932"
ARTICLE = f"<html><body><article><p>{QUOTE}, after eight years of work.</p></article></body></html>"
LOOPBACK = AddressPolicy.parse("127.0.0.1")
CAP = 5_000_000
FILLER = b"<p>Harbour news of no interest to this claim, repeated to fill a very long page.</p>\n" * 800

Handler = Callable[[BaseHTTPRequestHandler], None]


class MisbehavingServer(LoopbackHTTPServer):
    """A loopback web server whose pages are handlers writing straight to the socket (headers, drips, floods)."""

    def __init__(self) -> None:
        self.routes: dict[str, Handler] = {}
        self.sent: dict[str, int] = {}
        server = self

        class Dispatch(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server naming)
                try:
                    server.routes[self.path](self)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading, as it should

            def log_message(self, format: str, *args: Any) -> None:
                """Keep test output quiet."""

        super().__init__(Dispatch)

    def url(self, path: str) -> str:
        """The URL of `path` on this server."""
        return self.origin + path


@pytest.fixture
def server(loopback_sockets: None) -> Iterator[MisbehavingServer]:
    with MisbehavingServer() as running:
        yield running


def headers(handler: BaseHTTPRequestHandler, length: int, content_type: str = "text/html; charset=utf-8",
            **extra: str) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(length))
    for name, value in extra.items():
        handler.send_header(name.replace("_", "-"), value)
    handler.end_headers()


def drip_body(handler: BaseHTTPRequestHandler) -> None:
    headers(handler, 100_000)
    for _ in range(300):
        handler.wfile.write(b"<")
        handler.wfile.flush()
        time.sleep(0.2)


def drip_headers(handler: BaseHTTPRequestHandler) -> None:
    handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
    for _ in range(300):
        handler.wfile.write(b"X-Slow: a\r\n")
        handler.wfile.flush()
        time.sleep(0.2)


def supported() -> Verdict:
    return Verdict(claim_id="c1", label="supported", reason="r", evidence_id="c1-e1", quote=QUOTE,
                   citation_verified=True)


async def timed_check(url: str, settings: FetchSettings) -> tuple[PageCheck, float]:
    started = time.monotonic()
    page = await asyncio.wait_for(check_page(CLAIM, supported(), url, settings), 20)  # today's code would hang
    return page, time.monotonic() - started


@pytest.mark.parametrize(("handler", "verb"), [(drip_body, "finish"), (drip_headers, "answer")],
                         ids=["body", "headers"])
async def test_a_slow_drip_is_cut_at_the_page_budget(server: MisbehavingServer, handler: Handler, verb: str) -> None:
    server.routes["/drip"] = handler
    settings = FetchSettings(timeout=1.0, policy=LOOPBACK)  # a byte every 0.2 s never trips a 1 s read timeout
    page, seconds = await timed_check(server.url("/drip"), settings)
    assert page.outcome == "fetch_failed" and f"the page did not {verb} within 1 s" in page.reason
    assert seconds < 20  # a hang guard: the drip goes on for 60 s, and the reason says the 1 s budget cut it


def flood(size: int) -> Handler:
    def handler(handle: BaseHTTPRequestHandler) -> None:
        headers(handle, size)
        written = 0
        while written < size:
            handle.wfile.write(FILLER)
            written += len(FILLER)
        handle.wfile.write(f"<p>{QUOTE}.</p>".encode())
    return handler


def gzip_bomb(decoded: int) -> bytes:
    squeezer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b" " * 1_000_000
    return b"".join([*(squeezer.compress(block) for _ in range(decoded // len(block))), squeezer.flush()])


async def traced_check(url: str, settings: FetchSettings) -> tuple[PageCheck, int]:
    await check_page(CLAIM, supported(), url.rsplit("/", 1)[0] + "/small", settings)  # imports and caches warm
    tracemalloc.start()
    try:
        page = await check_page(CLAIM, supported(), url, settings)
        return page, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def small(handler: BaseHTTPRequestHandler) -> None:
    headers(handler, len(ARTICLE))
    handler.wfile.write(ARTICLE.encode())


async def test_a_60_mb_page_is_read_to_the_cap_and_held_no_more_than_a_few_times_over(
        server: MisbehavingServer) -> None:
    server.routes["/small"], server.routes["/huge"] = small, flood(60_000_000)
    page, peak = await traced_check(server.url("/huge"), FetchSettings(timeout=30.0, policy=LOOPBACK))
    assert page.truncated and page.outcome == "not_found" and "first 5,000,000 bytes" in page.reason
    assert peak < 6 * CAP, f"{peak:,} bytes held to check a page cut at {CAP:,}"


async def test_a_gzip_bomb_is_inflated_no_further_than_the_cap(server: MisbehavingServer) -> None:
    bomb = gzip_bomb(1_000_000_000)
    assert len(bomb) < 2_000_000

    def serve_bomb(handler: BaseHTTPRequestHandler) -> None:
        headers(handler, len(bomb), content_encoding="gzip")
        handler.wfile.write(bomb)

    server.routes["/small"], server.routes["/bomb"] = small, serve_bomb
    page, peak = await traced_check(server.url("/bomb"), FetchSettings(timeout=30.0, policy=LOOPBACK))
    assert page.truncated and page.outcome == "not_found"
    assert peak < 6 * CAP, f"{peak:,} bytes held to check a gzip bomb cut at {CAP:,}"


async def test_a_gzipped_page_is_read(server: MisbehavingServer) -> None:
    packed = gzip.compress(ARTICLE.encode())

    def serve(handler: BaseHTTPRequestHandler) -> None:
        headers(handler, len(packed), content_encoding="gzip")
        handler.wfile.write(packed)

    server.routes["/packed"] = serve
    page, _ = await timed_check(server.url("/packed"), FetchSettings(timeout=5.0, policy=LOOPBACK))
    assert page.outcome == "verified_live" and not page.truncated


@pytest.mark.parametrize("content_type", ["text/html; charset=x-no-such-charset", "text/html; charset=undefined",
                                          "text/html"])
async def test_an_unknown_charset_is_read_as_utf8_not_a_lookup_error(server: MisbehavingServer,
                                                                      content_type: str) -> None:
    body = ARTICLE.encode() if "charset" in content_type else (
        b"<html><head><meta charset='x-mystery-8'></head>" + ARTICLE.encode())

    def serve(handler: BaseHTTPRequestHandler) -> None:
        headers(handler, len(body), content_type)
        handler.wfile.write(body)

    server.routes["/charset"] = serve
    page, _ = await timed_check(server.url("/charset"), FetchSettings(timeout=5.0, policy=LOOPBACK))
    assert page.outcome == "verified_live"
    assert "is unknown, so it was read as UTF-8" in page.reason and "LookupError" not in page.reason


OPENED = "The Sydney Harbour Bridge opened in 1932."


@pytest.mark.parametrize("scheme", ["HTTP://", "Http://", " http://"])
def test_a_cited_url_with_an_upper_case_scheme_is_fetched_not_skipped(
        real_clients: None, fake_openai: FakeOpenAI, fake_tavily: FakeTavily, fake_pages: PageServer,
        scheme: str) -> None:
    fake_openai.extractions = [{"claims": [{"claim": OPENED, "source": OPENED}]}]
    fake_openai.judge = lambda claim, evidence, attempt: {
        "label": "supported", "reason": "stated", "evidence_id": next(iter(evidence)),
        "quote": "opened to traffic on 19 March 1932"}
    served = fake_pages.serve_results({OPENED: [{
        "title": "Bridge", "url": "https://example.org/bridge", "score": 0.9,
        "content": "The Sydney Harbour Bridge opened to traffic on 19 March 1932."}]})
    served[OPENED][0]["url"] = served[OPENED][0]["url"].replace("http://", scheme)
    fake_tavily.results = served
    settings = {"model": "openai:gpt-4.1-mini", "search_backoff": 0.01, "page_allowed_networks": "127.0.0.1"}
    report = veracity.check(OPENED, **settings)
    verdict = report.verdict_for("c1")
    assert verdict is not None and verdict.page is not None and verdict.page.outcome == "verified_live"
    assert fake_pages.hits["/bridge"] == 1 and report.passed
    fake_pages.pages["/bridge"] = Page("<html><body><p>Gone.</p></body></html>")
    assert not veracity.check(OPENED, **settings).passed
