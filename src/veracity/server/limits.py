"""Request limits for the HTTP app: API-key auth, body size and per-client rate."""

from __future__ import annotations

import hmac
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from veracity.server.buckets import DEFAULT_MAX_CLIENTS, charge_bucket
from veracity.server.shared_limits import SharedRateLimiter


def error_response(status: int, message: str, **headers: str) -> JSONResponse:
    """Every error the app returns: ``{"error": message, "status": status}``, never a traceback."""
    return JSONResponse({"error": message, "status": status}, status_code=status, headers=headers or None)


class BodyLimit:
    """ASGI middleware: a request body over `max_bytes` gets 413, whether or not it declares its length.

    The body is read up front (at most `max_bytes` are kept) and replayed to the app, so the
    limit holds for chunked uploads too.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        """`app` is the wrapped ASGI app."""
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Reject by Content-Length at once, else read and count the body before the app sees it."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = error_response(413, f"request body is larger than {self.max_bytes} bytes")
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await too_large(scope, receive, send)
            return
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > self.max_bytes:
                await too_large(scope, receive, send)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def key_matches(given: str | None, expected: str) -> bool:
    """Constant-time comparison of an API key."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def presented_key(headers: Headers) -> str | None:
    """The key from ``X-API-Key`` or ``Authorization: Bearer ...``."""
    key = headers.get("x-api-key")
    if key:
        return key
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


@dataclass
class RateLimiter:
    """A token bucket per client: `requests` per `per_seconds`, refilled continuously.

    The table is bounded: a bucket that has refilled is the same as no bucket and is dropped,
    and past `max_clients` the least recently seen client is forgotten, so rotating client
    identities cannot grow memory without limit.
    """

    requests: int
    per_seconds: float
    max_clients: int = DEFAULT_MAX_CLIENTS
    _buckets: OrderedDict[str, tuple[float, float]] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def clients(self) -> int:
        """How many clients the table holds now."""
        return len(self._buckets)

    def retry_after(self, client: str, cost: int = 1) -> int | None:
        """Take `cost` tokens for `client`; None if allowed, else whole seconds until they are free.

        A cost above the bucket's size can never be paid; it is refused with the time a full
        bucket takes, and the caller should say so (see `too_costly`).
        """
        rate = self.requests / self.per_seconds
        now = time.monotonic()
        with self._lock:
            tokens, then = self._buckets.pop(client, (float(self.requests), now))
            tokens, wait = charge_bucket(tokens, now - then, cost, size=self.requests, rate=rate)
            self._buckets[client] = (tokens, now)
            self._forget(now, rate)
            return wait

    def too_costly(self, cost: int) -> bool:
        """Whether `cost` tokens exceed what a bucket ever holds."""
        return cost > self.requests

    def _forget(self, now: float, rate: float) -> None:
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        oldest = next(iter(self._buckets.items()), None)
        # The least recently seen bucket, once refilled, holds nothing worth keeping.
        if oldest is not None and oldest[1][0] + (now - oldest[1][1]) * rate >= self.requests:
            del self._buckets[oldest[0]]


class Limiter(Protocol):
    """What the app asks of a rate limiter: `RateLimiter` in memory, or `SharedRateLimiter` across processes."""

    requests: int
    per_seconds: float

    def retry_after(self, client: str, cost: int = 1) -> int | None:
        """Take `cost` tokens for `client`; None if allowed, else whole seconds until they are free."""

    def too_costly(self, cost: int) -> bool:
        """Whether `cost` tokens exceed what a bucket ever holds."""


def parse_rate(text: str, *, shared: Path | None = None) -> Limiter:
    """'60/minute', '10/second' or '1000/hour' -> a `RateLimiter`.

    With `shared` (a SQLite file made by `create_bucket_file`): a `SharedRateLimiter`, whose
    buckets every process naming that file shares.
    """
    count, _, unit = text.partition("/")
    seconds = {"second": 1.0, "minute": 60.0, "hour": 3600.0}.get(unit.strip().rstrip("s"))
    if not count.strip().isdigit() or int(count) < 1 or seconds is None:
        raise ValueError(f"rate limit must look like '60/minute' (second, minute or hour), not {text!r}")
    if shared is not None:
        return SharedRateLimiter(int(count), seconds, shared)
    return RateLimiter(int(count), seconds)
