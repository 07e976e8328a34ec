"""Which cited URLs are fetched at all: parsed and normalised once, http(s) with a host only.

A cited URL comes from a search engine's result, so it may be anything: an upper-case scheme,
surrounding whitespace, a ``file:`` or ``javascript:`` link, a relative path, or nothing. It is
read once here: whitespace is trimmed, the scheme lower-cased and the fragment dropped. What is
not an absolute http(s) URL with a host is refused with the reason, so a page check never
silently skips it. Where the host points is the address guard's question (`addresses.py`).
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

FETCHED_SCHEMES = ("http", "https")
_SHOWN = 120
"""Characters of a refused URL quoted in its reason."""


class URLRefused(Exception):
    """The URL is not fetched (not http(s), no host, malformed); the message says why."""


def page_url(raw: str | None) -> str:
    """The normalised URL to fetch for `raw`; raises `URLRefused` when it is not fetched."""
    text = (raw or "").strip()
    if not text:
        raise URLRefused("the cited URL is empty")
    shown = repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "...")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (a port out of range raises here)
    except ValueError as exc:
        raise URLRefused(f"the cited URL {shown} is malformed: {exc}") from exc
    scheme = parts.scheme.lower()
    if not scheme:
        raise URLRefused(f"the cited URL {shown} is relative (it names no scheme or host)")
    if scheme not in FETCHED_SCHEMES:
        raise URLRefused(f"{scheme}: URLs are not fetched, only http and https ({shown})")
    if not parts.hostname:
        raise URLRefused(f"the cited URL {shown} names no host")
    return urlunsplit((scheme, parts.netloc, parts.path, parts.query, ""))
