"""Fetch a cited page, carefully: http(s) only, checked addresses, capped redirects, size and time.

Every hop of a redirect chain is checked again by the `AddressPolicy` and connected to at the
address that was checked (the host name still goes in the Host header and, for https, in the
TLS server name, so virtual hosts and certificates work as usual). A body past `max_bytes` is
cut there and the page is marked truncated. Only the content types in `content_types` are
read; anything else is a failed fetch with the type named.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from veracity.pages.addresses import AddressPolicy, AddressRefused

DEFAULT_CONTENT_TYPES = ("text/html", "application/xhtml+xml", "text/plain")
USER_AGENT = "veracity-citation-check"


class FetchFailed(Exception):
    """The page could not be fetched; the message is the reason shown on the verdict."""


@dataclass(frozen=True)
class FetchSettings:
    """How pages are fetched (limits, address policy) and kept (snapshots folder, archive fallback)."""

    timeout: float = 10.0
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


async def fetch_page(url: str, settings: FetchSettings, client: httpx.AsyncClient) -> FetchedPage:
    """Fetch `url` under `settings` with `client` (which must not follow redirects itself)."""
    chain: list[str] = []
    current = url
    for _ in range(settings.max_redirects + 1):
        request = await _pinned_request(client, current, settings.policy)
        try:
            response = await client.send(request, stream=True)
        except httpx.TimeoutException as exc:
            raise FetchFailed(f"the page did not answer within {settings.timeout:g} s") from exc
        except httpx.HTTPError as exc:
            raise FetchFailed(f"cannot fetch the page: {type(exc).__name__}: {exc}") from exc
        try:
            if response.is_redirect:
                location = response.headers.get("location", "")
                chain.append(current)
                current = urljoin(current, location)
                continue
            if response.status_code != 200:
                raise FetchFailed(f"the page answered HTTP {response.status_code}")
            content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if content_type not in settings.content_types:
                raise FetchFailed(f"the page is {content_type or 'of no stated type'}, not text or HTML")
            raw, truncated = await _read_capped(response, settings.max_bytes)
        except httpx.TimeoutException as exc:
            raise FetchFailed(f"the page did not finish within {settings.timeout:g} s") from exc
        except httpx.HTTPError as exc:
            raise FetchFailed(f"the page broke off: {type(exc).__name__}: {exc}") from exc
        finally:
            await response.aclose()
        body = raw.decode(response.charset_encoding or "utf-8", errors="replace")
        return FetchedPage(url=current, content_type=content_type, body=body, raw=raw,
                           sha256=hashlib.sha256(raw).hexdigest(), truncated=truncated, redirects=tuple(chain))
    raise FetchFailed(f"more than {settings.max_redirects} redirects")


def page_client(settings: FetchSettings) -> httpx.AsyncClient:
    """An HTTP client for `fetch_page`: no redirects of its own, no proxies from the environment."""
    return httpx.AsyncClient(timeout=settings.timeout, follow_redirects=False, trust_env=False,
                             headers={"user-agent": USER_AGENT, "accept": ", ".join(settings.content_types)})


async def _pinned_request(client: httpx.AsyncClient, url: str, policy: AddressPolicy) -> httpx.Request:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchFailed(f"only http and https pages are fetched, not {url!r}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        address = await policy.checked_address(parts.hostname, port)
    except AddressRefused as exc:
        raise FetchFailed(str(exc)) from exc
    shown = f"[{address}]" if ":" in address else address
    pinned = urlunsplit((parts.scheme, f"{shown}:{port}", parts.path or "/", parts.query, ""))
    host = parts.netloc.rsplit("@", 1)[-1]
    extensions = {"sni_hostname": parts.hostname} if parts.scheme == "https" else {}
    return client.build_request("GET", pinned, headers={"host": host}, extensions=extensions)


async def _read_capped(response: httpx.Response, limit: int) -> tuple[bytes, bool]:
    chunks, size = [], 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            return b"".join(chunks)[:limit], True
    return b"".join(chunks), False
