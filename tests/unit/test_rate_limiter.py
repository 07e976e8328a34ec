"""The server's per-client token buckets: cost per check, and a table that cannot grow without bound."""

from __future__ import annotations

import pytest

from veracity.server.limits import RateLimiter, parse_rate


def test_a_cost_takes_that_many_tokens() -> None:
    limiter = RateLimiter(requests=5, per_seconds=60)
    assert limiter.retry_after("a", cost=4) is None
    assert limiter.retry_after("a", cost=2) is not None
    assert limiter.retry_after("a", cost=1) is None
    assert limiter.retry_after("b", cost=5) is None  # clients do not share a bucket


def test_a_cost_larger_than_the_bucket_is_never_payable() -> None:
    limiter = RateLimiter(requests=3, per_seconds=60)
    assert limiter.too_costly(4) and not limiter.too_costly(3)


def test_rotating_identities_cannot_grow_the_table_past_its_bound() -> None:
    limiter = RateLimiter(requests=10, per_seconds=3600, max_clients=1_000)
    for n in range(20_000):
        limiter.retry_after(f"client-{n}")
    assert limiter.clients == 1_000
    assert limiter.retry_after("client-19999", cost=10) is not None  # the recent ones are remembered


def test_refilled_buckets_are_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    monkeypatch.setattr("veracity.server.limits.time.monotonic", lambda: clock[0])
    limiter = RateLimiter(requests=2, per_seconds=1)
    for n in range(100):
        limiter.retry_after(f"client-{n}")
    clock[0] = 10.0  # every bucket has refilled
    for n in range(100):
        limiter.retry_after(f"later-{n}")
    assert limiter.clients <= 101


def test_parse_rate_reads_units_and_rejects_nonsense() -> None:
    limiter = parse_rate("10/second")
    assert (limiter.requests, limiter.per_seconds) == (10, 1.0)
    with pytest.raises(ValueError, match="60/minute"):
        parse_rate("lots")
