"""Fetch a cited page, carefully: http(s) only, checked addresses, capped redirects, size and time.

The cited URL is normalised once (`urls.page_url`), and every hop of a redirect chain is
normalised and checked again by the `AddressPolicy` and connected to at the address that was
checked (the host name still goes in the Host header and, for https, in the TLS server name,
so virtual hosts and certificates work as usual). A refused URL or address is `NotFetched`.

The whole fetch, redirects and all, has one time budget (`FetchSettings.timeout`), so a server
that drips a byte now and then cannot hold it. The body is read a chunk at a time and cut at
`max_bytes` of decoded bytes, never held whole (`body.read_capped`); the page is then marked
truncated. Only the content types in `content_types` are read; anything else is a failed fetch
with the type named.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from veracity.pages.addresses import AddressPolicy, AddressRefused
from veracity.pages.body import ACCEPTED_ENCODINGS, BodyRefused, decode_page, read_capped
from veracity.pages.urls import URLRefused, page_url

DEFAULT_CONTENT_TYPES = ("text/html", "application/xhtml+xml", "text/plain")
USER_AGENT = "veracity-citation-check"


class FetchFailed(Exception):
    """The page could not be fetched; the message is the reason shown on the verdict."""


class NotFetched(FetchFailed):
    """The URL, or the address it points at, is refused: no request was sent to it."""


@dataclass(frozen=True)
class FetchSettings:
    """How pages are fetched (limits, address policy) and kept (snapshots folder, archive fallback)."""

    timeout: float = 10.0
    """Seconds the whole fetch may take, redirects and body included (also the limit on each network read)."""
    max_bytes: int = 5_000_000
    max_redirects: int = 5
    content_types: tuple[str, ...] = DEFAULT_CONTENT_TYPES
    policy: AddressPolicy = field(default_factory=AddressPolicy)
    archive_url: str | None = None
    """A URL template with ``{url}`` (the cited URL, percent-encoded) tried when the live page fails."""
    snapshots: Path | None = None
    """A folder where each page is kept as read, named by its SHA-256, so a report verifies offline later."""


@dataclass(frozen=True)
class FetchedPage:
    """A fetched page: where it ended up, what it said, and the digest of the bytes read."""

    url: str
    content_type: str
    body: str
    raw: bytes
    sha256: str
    truncated: bool
    redirects: tuple[str, ...] = ()
    note: str | None = None
    """Something the reader should know about how the page was read (an unknown character set)."""


async def fetch_page(url: str, settings: FetchSettings, client: httpx.AsyncClient) -> FetchedPage:
    """Fetch `url` under `settings` with `client` (which must not follow redirects itself).

    Raises `NotFetched` when the URL or its address is refused, `FetchFailed` for any other failure.
    """
    progress = _Progress()
    try:
        async with asyncio.timeout(settings.timeout):
            return await _follow(url, settings, client, progress)
    except (TimeoutError, httpx.TimeoutException) as exc:
        verb = "finish" if progress.answered else "answer"
        raise FetchFailed(f"the page did not {verb} within {settings.timeout:g} s") from exc


@dataclass
class _Progress:
    """How far one fetch got, for the message when its time runs out."""

    answered: bool = False
    """The page's headers have come; only its body is awaited."""


async def _follow(url: str, settings: FetchSettings, client: httpx.AsyncClient, progress: _Progress) -> FetchedPage:
    chain: list[str] = []
    current = _normalised(url)
    for _ in range(settings.max_redirects + 1):
        request = await _pinned_request(client, current, settings.policy)
        try:
            response = await client.send(request, stream=True)
        except httpx.TimeoutException:
            raise
        except httpx.HTTPError as exc:
            raise FetchFailed(f"cannot fetch the page: {type(exc).__name__}: {exc}") from exc
        try:
            if response.is_redirect:
                chain.append(current)
                current = _normalised(urljoin(current, response.headers.get("location", "")))
                continue
            if response.status_code != 200:
                raise FetchFailed(f"the page answered HTTP {response.status_code}")
            content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if content_type not in settings.content_types:
                raise FetchFailed(f"the page is {content_type or 'of no stated type'}, not text or HTML")
            progress.answered = True
            raw, truncated = await read_capped(response.aiter_raw(), response.headers.get("content-encoding", ""),
                                               settings.max_bytes)
        except BodyRefused as exc:
            raise FetchFailed(str(exc)) from exc
        except httpx.TimeoutException:
            raise
        except httpx.HTTPError as exc:
            raise FetchFailed(f"the page broke off: {type(exc).__name__}: {exc}") from exc
        finally:
            await response.aclose()
        decoded = decode_page(raw, response.charset_encoding)
        return FetchedPage(url=current, content_type=content_type, body=decoded.text, raw=raw,
                           sha256=hashlib.sha256(raw).hexdigest(), truncated=truncated, redirects=tuple(chain),
                           note=decoded.note)
    raise FetchFailed(f"more than {settings.max_redirects} redirects")


def page_client(settings: FetchSettings) -> httpx.AsyncClient:
    """An HTTP client for `fetch_page`: no redirects of its own, no proxies from the environment."""
    return httpx.AsyncClient(timeout=settings.timeout, follow_redirects=False, trust_env=False,
                             headers={"user-agent": USER_AGENT, "accept": ", ".join(settings.content_types),
                                      "accept-encoding": ACCEPTED_ENCODINGS})


def _normalised(url: str) -> str:
    try:
        return page_url(url)
    except URLRefused as exc:
        raise NotFetched(f"not fetched: {exc}") from exc


async def _pinned_request(client: httpx.AsyncClient, url: str, policy: AddressPolicy) -> httpx.Request:
    parts = urlsplit(url)
    assert parts.hostname is not None  # `page_url` made sure
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        address = await policy.checked_address(parts.hostname, port)
    except AddressRefused as exc:
        raise NotFetched(str(exc)) from exc
    shown = f"[{address}]" if ":" in address else address
    pinned = urlunsplit((parts.scheme, f"{shown}:{port}", parts.path or "/", parts.query, ""))
    host = parts.netloc.rsplit("@", 1)[-1]
    extensions = {"sni_hostname": parts.hostname} if parts.scheme == "https" else {}
    return client.build_request("GET", pinned, headers={"host": host}, extensions=extensions)
