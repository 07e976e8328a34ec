"""How far `veracity kb warm` has got, on stderr: done of total, the rate and the time left.

On a terminal a bar shows it; otherwise (a log, a pipe, a CI job) a line is printed every
`LINE_INTERVAL` seconds, and always when the last vector is stored, so a long warm-up is never
silent.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Console

from veracity.kb import WarmProgress

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

LINE_INTERVAL = 10.0
"""Seconds between two progress lines when stderr is not a terminal."""


def duration(seconds: float) -> str:
    """`seconds` for people: '45 s', '3 min 12 s', '1 h 05 min'."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class WarmBar(WarmProgress):
    """Warm-up progress on stderr: a bar on a terminal, a line every `interval` seconds otherwise."""

    def __init__(self, err: Console, *, clock: Callable[[], float] = time.monotonic,
                 interval: float | None = None) -> None:
        """Report on `err`; `clock` and `interval` (default `LINE_INTERVAL`) pace the lines."""
        self.err = err
        self.clock = clock
        self.interval = LINE_INTERVAL if interval is None else interval
        self.bar: Progress | None = None
        self.task: TaskID | None = None
        self.total = self.done = 0
        self.began = self.last_line = 0.0

    def started(self, sentences: int, missing: int) -> None:
        """Say how much is left to do, and start the bar (or the lines)."""
        self.err.print(f"veracity: {missing:,} of {sentences:,} distinct sentences have no stored vector yet",
                       highlight=False)
        self.total, self.done = missing, 0
        self.began = self.last_line = self.clock()
        if self.err.is_terminal and missing:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress("[bold]warm[/]", BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                                "left", TimeRemainingColumn(), console=self.err, transient=True)
            self.bar.start()
            self.task = self.bar.add_task("", total=missing, rate="")

    def advanced(self, count: int) -> None:
        """Count `count` more stored vectors: advance the bar, or print a line when one is due."""
        self.done += count
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, advance=count, rate=self._rate())
            return
        now = self.clock()
        if self.done >= self.total or now - self.last_line >= self.interval:
            self.last_line = now
            self.err.print(self.line(), highlight=False, markup=False, soft_wrap=True)

    def line(self) -> str:
        """Where the warm-up is: done of total, percentage, rate and time left."""
        share = f"{self.done / self.total:.0%}" if self.total else "100%"
        per_second = self.per_second()
        if self.done >= self.total:
            left = "done"
        elif per_second:
            left = f"about {duration((self.total - self.done) / per_second)} left"
        else:
            left = "time left not known yet"
        return (f"veracity: warm: {self.done:,} of {self.total:,} sentence vectors stored ({share}), "
                f"{self._rate() or 'rate not known yet'}, {left}")

    def per_second(self) -> float | None:
        """Vectors stored per second so far, or None before any time has passed."""
        elapsed = self.clock() - self.began
        return self.done / elapsed if elapsed > 0 and self.done else None

    def _rate(self) -> str:
        per_second = self.per_second()
        return f"{per_second:,.1f} vectors/s" if per_second else ""

    def stop(self) -> None:
        """Remove the bar."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
