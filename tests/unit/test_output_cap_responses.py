"""The HTTP clients of created chat models abort a response longer than its output cap allows, while it streams.

A mock transport plays the server (no network): it hands out the body chunk by chunk and counts
how many chunks the client pulled, so "aborted while streaming" is measured, not assumed.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator, Iterator

import httpx2
import pytest

from veracity.llm.response_limit import (
    ENVELOPE_BYTES,
    ModelResponseRejected,
    limited_async_client,
    limited_client,
    response_limit,
)

MEGABYTE = b"x" * (1 << 20)
REQUEST = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_completion_tokens": 512}


class Drip:
    """A 50 MB body, one megabyte per chunk; `pulled` counts the chunks the client asked for."""

    def __init__(self, chunks: int = 50) -> None:
        self.chunks = chunks
        self.pulled = 0

    def sync(self) -> Iterator[bytes]:
        """The body for a sync client."""
        for _ in range(self.chunks):
            self.pulled += 1
            yield MEGABYTE

    async def stream(self) -> AsyncIterator[bytes]:
        """The body for an async client."""
        for chunk in self.sync():
            yield chunk


async def arriving(body: bytes) -> AsyncIterator[bytes]:
    """`body` as it arrives from a network: a stream, not bytes already in memory."""
    yield body


def completion(content: str) -> bytes:
    """A chat completion whose answer is `content`."""
    return json.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": content}}]}).encode()


def test_the_byte_limit_follows_the_requests_output_cap() -> None:
    small, tokens = response_limit(json.dumps(REQUEST).encode())
    assert tokens == 512 and ENVELOPE_BYTES < small < 200_000
    large, _ = response_limit(json.dumps({**REQUEST, "max_completion_tokens": 15_256}).encode())
    assert small < large < 1_000_000  # a few hundred KB even for the longest extraction
    streamed, _ = response_limit(json.dumps({**REQUEST, "stream": True}).encode())
    assert streamed > small
    assert response_limit(json.dumps({"max_tokens": 100}).encode())[1] == 100
    assert response_limit(b"not json")[1] is None


async def test_a_50_mb_response_is_aborted_after_the_first_chunks() -> None:
    drip = Drip()
    transport = httpx2.MockTransport(lambda request: httpx2.Response(200, content=drip.stream()))
    async with limited_async_client(transport=transport) as client:
        with pytest.raises(ModelResponseRejected, match="longer than .* bytes.*512-token answer"):
            await client.post("https://models.example/v1/chat/completions", json=REQUEST)
    assert drip.pulled == 1


def test_the_sync_client_aborts_it_too() -> None:
    drip = Drip()
    with limited_client(transport=httpx2.MockTransport(lambda request: httpx2.Response(200, content=drip.sync()))) \
            as client, pytest.raises(ModelResponseRejected):
        client.post("https://models.example/v1/chat/completions", json=REQUEST)
    assert drip.pulled == 1


async def test_a_declared_length_over_the_limit_is_refused_before_reading() -> None:
    drip = Drip()

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=drip.stream(), headers={"Content-Length": str(50 << 20)})

    async with limited_async_client(transport=httpx2.MockTransport(answer)) as client:
        with pytest.raises(ModelResponseRejected):
            await client.post("https://models.example/v1/chat/completions", json=REQUEST)
    assert drip.pulled == 0


async def test_a_gzip_bomb_is_cut_off_while_it_is_decompressed() -> None:
    bomb = gzip.compress(b"x" * (50 << 20))
    assert len(bomb) < 100_000  # small on the wire: only decompressed bytes show its size

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=arriving(bomb), headers={"Content-Encoding": "gzip"})

    async with limited_async_client(transport=httpx2.MockTransport(answer)) as client:
        with pytest.raises(ModelResponseRejected, match="longer than"):
            await client.post("https://models.example/v1/chat/completions", json=REQUEST)


async def test_a_compressed_answer_within_the_limit_reads_as_usual() -> None:
    body = completion("Paris is the capital of France. " * 100)

    def answer(request: httpx2.Request) -> httpx2.Response:
        assert request.headers["accept-encoding"] == "gzip, deflate"
        return httpx2.Response(200, content=arriving(gzip.compress(body)), headers={"Content-Encoding": "gzip"})

    async with limited_async_client(transport=httpx2.MockTransport(answer)) as client:
        response = await client.post("https://models.example/v1/chat/completions", json=REQUEST)
    assert response.content == body
    assert response.json()["choices"][0]["message"]["content"].startswith("Paris")


async def test_an_encoding_that_cannot_be_read_under_the_limit_is_refused() -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=arriving(b"...."), headers={"Content-Encoding": "br"})

    async with limited_async_client(transport=httpx2.MockTransport(answer)) as client:
        with pytest.raises(ModelResponseRejected, match="'br'"):
            await client.post("https://models.example/v1/chat/completions", json=REQUEST)
