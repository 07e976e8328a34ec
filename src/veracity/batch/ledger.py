"""The bookkeeping of a batch run, whoever does the checks: rows still to do, lines written, the summary.

`abatch` (checks in this process) and `batch_on_ray` (checks on Ray workers) both take rows
from a `Ledger` and hand each finished line back to it, so they skip, write, count and report
progress the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from veracity.batch.output import OutputFile, done_ids
from veracity.batch.rows import BatchRow, read_rows


@dataclass
class BatchSummary:
    """What a batch run did."""

    rows: int = 0
    skipped: int = 0
    """Rows already in the output from an earlier run."""
    checked: int = 0
    failed: int = 0
    """Rows recorded with an error instead of a report."""
    claims: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    """The first few row errors, for the closing message."""


RowDone = Callable[[BatchRow, dict[str, Any]], None]
"""Called after each row with the line written for it (for progress)."""

MAX_LISTED_FAILURES = 5


class Ledger:
    """Hands out the rows of one run that are not in the output yet and writes their lines as they finish.

    Rows are read as they are asked for, so memory stays flat however long the input. Use it
    as a context manager: leaving the block closes the output file and stops the clock, also
    when the run was interrupted.
    """

    def __init__(self, source: Path | Iterable[BatchRow], out: Path, *, text_field: str = "text",
                 on_row: RowDone | None = None) -> None:
        """Read the ids already in `out` and open it for appending; nothing of `source` is read yet."""
        rows: Iterable[BatchRow] = read_rows(source, text_field=text_field) if isinstance(source, Path) else source
        self._pending: Iterator[BatchRow] = iter(rows)
        self._seen = done_ids(out)
        self._on_row = on_row
        self.summary = BatchSummary()
        self._started = time.perf_counter()
        self._output = OutputFile(out)

    def next_row(self) -> BatchRow | None:
        """The next row to check (rows already in the output, or seen earlier in this run, are skipped), or None."""
        for row in self._pending:
            self.summary.rows += 1
            if row.id in self._seen:
                self.summary.skipped += 1
                continue
            self._seen.add(row.id)
            return row
        return None

    def record(self, row: BatchRow, record: dict[str, Any]) -> None:
        """Write `row`'s line, count it, and tell the progress callback."""
        self._output.write(record)
        summary = self.summary
        summary.checked += 1
        if "error" in record:
            summary.failed += 1
            if len(summary.failures) < MAX_LISTED_FAILURES:
                summary.failures.append(f"line {row.line} ({row.id}): {record['error']}")
        else:
            summary.claims += len(record["report"]["claims"])
        if self._on_row is not None:
            self._on_row(row, record)

    def close(self) -> BatchSummary:
        """Close the output file and return the summary, its time taken set."""
        self._output.close()
        self.summary.seconds = time.perf_counter() - self._started
        return self.summary

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()
