"""`BoundedMemory`: the most recently used values by key, at most a fixed number, safe across threads.

The offline parts remember what they computed, since a server or a batch asks for the same work
again and again: the embedder its sentence vectors, the entailment model its scores, the judge
its judgements. Each keeps one of these.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Sequence
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedMemory(Generic[K, V]):
    """At most `size` values; reading or writing a key makes it the most recent, the least recent goes first.

    `size` 0 remembers nothing.
    """

    def __init__(self, size: int) -> None:
        """An empty memory for at most `size` values."""
        self.size = size
        self._values: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        """How many asks found their value (for tests and benchmarks)."""

    def __len__(self) -> int:
        """How many values are remembered now."""
        return len(self._values)

    def get(self, key: K) -> V | None:
        """The value remembered for `key`, or None."""
        return self.get_many([key])[0]

    def get_many(self, keys: Sequence[K]) -> list[V | None]:
        """The value remembered for each key, or None, in one hold of the lock."""
        found: list[V | None] = []
        with self._lock:
            for key in keys:
                value = self._values.get(key)
                if value is not None:
                    self._values.move_to_end(key)
                    self.hits += 1
                found.append(value)
        return found

    def put(self, key: K, value: V) -> None:
        """Remember `value` for `key`."""
        self.put_many([(key, value)])

    def put_many(self, items: Iterable[tuple[K, V]]) -> None:
        """Remember each (key, value), then forget the least recent past the size."""
        if self.size <= 0:
            return
        with self._lock:
            for key, value in items:
                self._values[key] = value
                self._values.move_to_end(key)
            while len(self._values) > self.size:
                self._values.popitem(last=False)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._values.clear()
