"""The server's per-client token buckets: cost per check, a table that cannot grow without bound, and buckets
shared by worker processes."""

from __future__ import annotations

import multiprocessing
from multiprocessing.queues import Queue
from pathlib import Path

import pytest

from veracity.server.limits import RateLimiter, parse_rate
from veracity.server.shared_limits import TRIM_EVERY, SharedRateLimiter, create_bucket_file


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


# --------------------------------------------------------------------------- buckets shared by worker processes


def shared(path: Path, requests: int = 5, per_seconds: float = 60, **kwargs) -> SharedRateLimiter:
    return SharedRateLimiter(requests, per_seconds, path, **kwargs)


def test_limiters_on_one_file_share_each_client_s_bucket(tmp_path: Path) -> None:
    path = tmp_path / "buckets.sqlite"
    create_bucket_file(path)
    first, second = shared(path), shared(path)  # as two workers hold them
    assert first.retry_after("a", cost=3) is None
    assert second.retry_after("a", cost=3) is not None  # only 2 left, whichever worker asks
    assert second.retry_after("a", cost=2) is None
    assert first.retry_after("b", cost=5) is None  # clients do not share a bucket
    assert first.clients == second.clients == 2


def test_parse_rate_with_a_file_shares_the_buckets(tmp_path: Path) -> None:
    path = tmp_path / "buckets.sqlite"
    create_bucket_file(path)
    limiter = parse_rate("2/minute", shared=path)
    assert isinstance(limiter, SharedRateLimiter) and (limiter.requests, limiter.per_seconds) == (2, 60.0)
    assert limiter.too_costly(3) and not limiter.too_costly(2)


def _charge_many(path: str, client: str, attempts: int, allowed: Queue) -> None:
    limiter = SharedRateLimiter(15, 3600, Path(path))
    allowed.put(sum(limiter.retry_after(client) is None for _ in range(attempts)))


def test_worker_processes_charging_at_once_never_exceed_the_bucket(tmp_path: Path) -> None:
    path = tmp_path / "buckets.sqlite"
    create_bucket_file(path)
    context = multiprocessing.get_context("spawn")  # as uvicorn starts its workers
    allowed = context.Queue()
    workers = [context.Process(target=_charge_many, args=(str(path), "one client", 10, allowed)) for _ in range(4)]
    for worker in workers:
        worker.start()
    counts = [allowed.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
    assert sum(counts) == 15  # 40 attempts on a bucket of 15: exactly 15 pass, however they interleave


def test_the_shared_table_cannot_grow_past_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "buckets.sqlite"
    create_bucket_file(path)
    limiter = shared(path, requests=10, per_seconds=3600, max_clients=100)
    for n in range(1_000):
        limiter.retry_after(f"client-{n}")
    assert limiter.clients <= 100 + TRIM_EVERY
    assert limiter.retry_after("client-999", cost=10) is not None  # the recent ones are remembered


def test_refilled_shared_buckets_are_forgotten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr("veracity.server.shared_limits.time.monotonic", lambda: clock[0])
    path = tmp_path / "buckets.sqlite"
    create_bucket_file(path)
    limiter = shared(path, requests=2, per_seconds=1)
    for n in range(50):
        limiter.retry_after(f"client-{n}")
    clock[0] += 10  # every bucket has refilled
    limiter.retry_after("later")
    assert limiter.clients == 1
