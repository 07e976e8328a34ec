"""The token bucket both rate limiters keep per client (`RateLimiter` in memory, `SharedRateLimiter` in a file)."""

from __future__ import annotations

import math

DEFAULT_MAX_CLIENTS = 10_000
"""Clients a rate limiter remembers at most; past it the least recently seen are forgotten."""


def charge_bucket(tokens: float, elapsed: float, cost: int, *, size: int, rate: float) -> tuple[float, int | None]:
    """Refill a bucket that held `tokens` `elapsed` seconds ago, then charge it `cost`.

    Returns the tokens it holds now, and None when it paid, else the whole seconds until it
    could (for a cost above `size`, the time a full bucket takes).
    """
    tokens = min(float(size), tokens + elapsed * rate)
    if tokens >= cost:
        return tokens - cost, None
    return tokens, max(1, math.ceil((min(cost, size) - tokens) / rate))
