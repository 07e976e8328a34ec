"""`PerRun`: a value kept for the run a `Context` object belongs to, and dropped with that object.

LangGraph hands the same `Context` object to every node and subgraph of one run, and each check
gets its own, so that object is the run's identity. `Context` is a mutable dataclass (not
hashable), so values are keyed by its id, and each entry is removed when the object is collected,
before its id can be reused.
"""

from __future__ import annotations

import weakref
from typing import Generic, TypeVar

T = TypeVar("T")


class PerRun(Generic[T]):
    """Values by run: `get` and `set` take the run's context object."""

    def __init__(self) -> None:
        self._values: dict[int, T] = {}

    def get(self, context: object) -> T | None:
        """The value kept for the run of `context`, or None."""
        return self._values.get(id(context))

    def set(self, context: object, value: T) -> T:
        """Keep `value` for the run of `context` (replacing any) until that object is collected; return it."""
        key = id(context)
        if key not in self._values:
            weakref.finalize(context, self._values.pop, key, None)
        self._values[key] = value
        return value
