"""A tiny stopwatch for trace records."""

from __future__ import annotations

import time


class Stopwatch:
    """Measures seconds since it was created."""

    def __init__(self) -> None:
        self._start = time.perf_counter()

    @property
    def seconds(self) -> float:
        """Seconds elapsed, rounded to the microsecond."""
        return round(time.perf_counter() - self._start, 6)
