"""A transient progress bar over rows, for the commands that judge a file row by row (`eval`, `calibrate`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

OnProgress = Callable[[int, int], None]
"""Called as `on_progress(done, total)` after each row."""


@contextmanager
def row_progress(err: Console, title: str) -> Iterator[OnProgress]:
    """A bar titled `title` on a terminal (nothing elsewhere); yields the `on_progress` to report rows to."""
    if not err.is_terminal:
        yield lambda done, total: None
        return
    with Progress(TextColumn(f"[bold]{title}[/]"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=err, transient=True) as bar:
        task = bar.add_task("rows", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)
