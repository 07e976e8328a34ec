"""`InFlight`: work on keys that threads asking at the same time share instead of repeating.

The claims of one check search the knowledge base side by side, and claims about one topic find
many of the same chunks. On a chunk's first retrieval its sentence vectors are computed; without
sharing, two searches finding it together would both compute them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class InFlight(Generic[K, V]):
    """Computes values for keys, each key once at a time across threads.

    A caller computes the keys nobody is computing now and waits for the others' results; if the
    thread computing a key fails, the callers waiting for it compute that key themselves.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[K, Future[V]] = {}

    def compute(self, keys: Sequence[K], work: Callable[[list[K]], Sequence[V]]) -> dict[K, V]:
        """The value of each of `keys` (distinct); `work(keys)` returns one value per key, in order."""
        with self._lock:
            theirs = {key: self._pending[key] for key in keys if key in self._pending}
            mine: dict[K, Future[V]] = {key: Future() for key in keys if key not in theirs}
            self._pending.update(mine)
        result = self._run(list(mine), work, mine)
        orphaned = []
        for key, future in theirs.items():
            try:
                result[key] = future.result()
            except BaseException:  # the computing thread failed: do it here, and fail here if it fails again
                orphaned.append(key)
        if orphaned:
            result.update(zip(orphaned, work(orphaned), strict=True))
        return result

    def _run(self, keys: list[K], work: Callable[[list[K]], Sequence[V]], futures: dict[K, Future[V]]) -> dict[K, V]:
        """Compute `keys`, hand each value to its waiters, and stop tracking them."""
        try:
            values = dict(zip(keys, work(keys), strict=True)) if keys else {}
        except BaseException as exc:
            for future in futures.values():
                future.set_exception(exc)
            raise
        else:
            for key, value in values.items():
                futures[key].set_result(value)
            return values
        finally:
            with self._lock:
                for key in keys:
                    del self._pending[key]
