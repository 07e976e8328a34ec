"""The search timeout, as a clock a backend may stop while it does one-time work that is not the search.

`gather_evidence` gives each search attempt `search_timeout` seconds (`within_search_timeout`). A
backend that must do slow work once, the first time it meets something, runs that work inside
`not_counted()`: the clock stops there and goes on afterwards with the time it had left. The
knowledge base computes a chunk's sentence vectors the first time a search returns the chunk; on a
large new knowledge base under load that takes longer than a search may, and a first check would
otherwise fail its searches. Such work is bounded by the check's deadline instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar

_running: ContextVar[asyncio.Timeout | None] = ContextVar("veracity_search_timeout", default=None)
"""The timeout of the search attempt running in this task, if any."""


@asynccontextmanager
async def within_search_timeout(seconds: float) -> AsyncIterator[None]:
    """Raise `TimeoutError` when the block's counted time passes `seconds` (`not_counted` time is left out)."""
    async with asyncio.timeout(seconds) as timeout:
        token = _running.set(timeout)
        try:
            yield
        finally:
            _running.reset(token)


@contextmanager
def not_counted() -> Iterator[None]:
    """Stop the running search attempt's clock inside this block (in its own task); outside a search, do nothing."""
    timeout = _running.get()
    when = timeout.when() if timeout is not None else None
    if timeout is None or when is None or timeout.expired():
        yield
        return
    loop = asyncio.get_running_loop()
    left = when - loop.time()
    timeout.reschedule(None)
    try:
        yield
    finally:
        timeout.reschedule(loop.time() + max(left, 0.0))
