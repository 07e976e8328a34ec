"""A byte limit on every chat-model HTTP response, enforced while the response streams in.

The output cap (`max_tokens`) only asks the server to stop. A server that ignores it, or
anything in between, could send megabytes that the client would hold whole in memory. The
HTTP clients made here count each response as it arrives (after decompression, which they do
themselves, chunk by chunk) and abort it once it is longer than its request's cap allows.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

import openai

if TYPE_CHECKING:
    import httpx2 as sdk_httpx
else:  # the HTTP library the installed OpenAI SDK is built on: httpx2 (OpenAI SDK 3), else httpx (same API)
    try:
        import httpx2 as sdk_httpx

        if not issubclass(openai.DefaultAsyncHttpxClient, sdk_httpx.AsyncClient):
            import httpx as sdk_httpx
    except ImportError:
        import httpx as sdk_httpx

ENVELOPE_BYTES = 64 * 1024
"""Room for everything around the answer: ids, usage, finish reason, tool-call wrappers."""

BYTES_PER_TOKEN = 32
"""A token is a few characters; JSON inside a JSON string escapes them twice, and a non-ASCII one
sent as ``\\uXXXX`` takes six bytes or more. 32 bytes a token is several times what any answer needs."""

STREAMED_BYTES_PER_TOKEN = 1024
"""A streamed answer sends each token in its own server-sent event, with the whole envelope again."""

UNCAPPED_RESPONSE_BYTES = 1024 * 1024
"""The limit for a request that names no output cap (every request veracity builds names one)."""

_CAP_FIELDS = ("max_completion_tokens", "max_tokens", "max_output_tokens")
_ENCODINGS = {"gzip", "x-gzip", "deflate"}
ACCEPT_ENCODING = "gzip, deflate"
"""The encodings asked for: the ones decompressed here under the limit."""


class ModelResponseRejected(Exception):  # noqa: N818 (names what happened, like TimeoutError)
    """A chat-model response was aborted while it arrived: longer than its output cap allows, or unreadable."""


def response_limit(body: bytes | None) -> tuple[int, int | None]:
    """The most bytes the answer to the request `body` (JSON) may take, and the output cap it was derived from."""
    try:
        request = json.loads(body) if body else None
    except ValueError:
        request = None
    if not isinstance(request, dict):
        return UNCAPPED_RESPONSE_BYTES, None
    caps = [request[name] for name in _CAP_FIELDS if isinstance(request.get(name), int) and request[name] > 0]
    if not caps:
        return UNCAPPED_RESPONSE_BYTES, None
    tokens = min(caps)
    per_token = STREAMED_BYTES_PER_TOKEN if request.get("stream") is True else BYTES_PER_TOKEN
    return ENVELOPE_BYTES + per_token * tokens, tokens


class _Meter:
    """Counts (and, for gzip or deflate, decompresses) one response's bytes; raises past `limit`."""

    def __init__(self, limit: int, tokens: int | None, encoding: str | None) -> None:
        self.limit = limit
        self.tokens = tokens
        self.seen = 0
        # wbits 32 + 15: a zlib or a gzip header, whichever the server sent
        self._inflate = zlib.decompressobj(32 + zlib.MAX_WBITS) if encoding else None

    def too_large(self) -> ModelResponseRejected:
        cap = f"a {self.tokens}-token answer" if self.tokens else "an answer without an output cap"
        return ModelResponseRejected(
            f"the model's response was longer than {self.limit:,} bytes, far more than {cap} needs; it was cut off "
            "there (the server did not keep to the output cap)"
        )

    def admit(self, chunk: bytes) -> bytes:
        """`chunk` as it should be read on (decompressed), once it is known to fit within the limit."""
        room = self.limit - self.seen
        if self._inflate is not None:
            try:
                chunk = self._inflate.decompress(chunk, room + 1)
            except zlib.error as exc:
                raise ModelResponseRejected(f"the model's compressed response could not be read: {exc}") from exc
        if len(chunk) > room:
            raise self.too_large()
        self.seen += len(chunk)
        return chunk


class _LimitedAsyncStream(sdk_httpx.AsyncByteStream):
    def __init__(self, stream: Any, meter: _Meter) -> None:
        self._stream = stream
        self._meter = meter

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield self._meter.admit(chunk)

    async def aclose(self) -> None:
        await self._stream.aclose()


class _LimitedStream(sdk_httpx.SyncByteStream):
    def __init__(self, stream: Any, meter: _Meter) -> None:
        self._stream = stream
        self._meter = meter

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._stream:
            yield self._meter.admit(chunk)

    def close(self) -> None:
        self._stream.close()


def _meter_for(response: sdk_httpx.Response) -> _Meter:
    """The meter for `response`; refuses at once one whose declared length or encoding cannot be read safely."""
    try:
        body: bytes | None = response.request.content
    except sdk_httpx.RequestNotRead:
        body = None
    limit, tokens = response_limit(body)
    meter = _Meter(limit, tokens, None)
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise meter.too_large()
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        return meter
    if encoding not in _ENCODINGS:
        raise ModelResponseRejected(f"the model's response is encoded as {encoding!r}, which is not accepted "
                                    f"(only {ACCEPT_ENCODING})")
    del response.headers["content-encoding"]  # decompressed by the meter, under the limit
    return _Meter(limit, tokens, encoding)


async def _limit_async(response: sdk_httpx.Response) -> None:
    response.stream = _LimitedAsyncStream(response.stream, _meter_for(response))


def _limit_sync(response: sdk_httpx.Response) -> None:
    response.stream = _LimitedStream(response.stream, _meter_for(response))


def limited_async_client(**settings: Any) -> sdk_httpx.AsyncClient:
    """An async HTTP client for the OpenAI SDK (its defaults, and `settings`) that limits every response."""
    client: sdk_httpx.AsyncClient = openai.DefaultAsyncHttpxClient(
        event_hooks={"response": [_limit_async]}, headers={"Accept-Encoding": ACCEPT_ENCODING}, **settings)
    return client


def limited_client(**settings: Any) -> sdk_httpx.Client:
    """A sync HTTP client for the OpenAI SDK (its defaults, and `settings`) that limits every response."""
    client: sdk_httpx.Client = openai.DefaultHttpxClient(
        event_hooks={"response": [_limit_sync]}, headers={"Accept-Encoding": ACCEPT_ENCODING}, **settings)
    return client
