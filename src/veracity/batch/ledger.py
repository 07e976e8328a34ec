"""The bookkeeping of a batch run, whoever does the checks: rows still to do, lines written, the summary.

`abatch` (checks in this process) and `batch_on_ray` (checks on Ray workers) both take rows
from a `Ledger` and hand each finished line back to it, so they skip, write, count and report
progress the same way.

A row is known by its id and its digest (a hash of its text and source, `BatchRow.digest`):
- the same id and digest as a row already in the output: skipped (done by an earlier run);
- the same id and digest as an earlier row of this input: a duplicate, counted, not checked again;
- an id that an earlier row (of this input, or in the output) holds with another digest: the
  row is not checked, and its line is an error saying which line holds the id. Renaming the
  row would hand the user an id they never gave; its report would then be found under no id
  they know, so the clash is reported where they can see it and fix it.
Every row read is counted exactly once: ``rows == checked + skipped + duplicates + missing``.

A row is *not checked* when its line is an error (written now, or by an earlier run: a rerun
skips it as done, but counts it here) or when it was handed out and no line came back
(`missing`); `BatchSummary.unchecked` counts them and `unchecked_lines` names the first few, so
a run that leaves any is never taken for a complete one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any

from veracity.batch.output import OutputFile, WrittenLine, done_rows
from veracity.batch.rows import BatchRow, read_rows


@dataclass
class BatchSummary:
    """What a batch run did. Every row read is counted once: ``rows == checked + skipped + duplicates + missing``."""

    rows: int = 0
    """Rows read from the input."""
    skipped: int = 0
    """Rows already in the output from an earlier run (same id, text and source)."""
    checked: int = 0
    """Rows given a line in the output, with a report or an error."""
    failed: int = 0
    """Rows recorded with an error instead of a report (among `checked`)."""
    duplicates: int = 0
    """Rows repeating an earlier row of the input (same id, text and source): no line of their own."""
    failed_earlier: int = 0
    """Rows skipped as done whose line in the output is an error from an earlier run (among `skipped`)."""
    missing: int = 0
    """Rows handed out for checking that got no line in the output (e.g. their check was lost)."""
    claims: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    """The first few row errors, for the closing message."""
    duplicate_lines: list[str] = field(default_factory=list)
    """The first few duplicates, for the closing message."""
    unchecked_lines: list[str] = field(default_factory=list)
    """The first few rows not checked (failed now or in an earlier run, or missing), for the closing message."""

    @property
    def unchecked(self) -> int:
        """Rows of the input that have no report: they failed in this run or an earlier one, or are missing."""
        return self.failed + self.failed_earlier + self.missing


RowDone = Callable[[BatchRow, dict[str, Any]], None]
"""Called after each row with the line written for it (for progress)."""

MAX_LISTED_FAILURES = 5


@dataclass(frozen=True)
class _Holder:
    """The first row known under an id: its digest and input line, and whether an earlier run wrote it."""

    digest: str | None
    line: int | None
    earlier: bool


class Ledger:
    """Hands out the rows of one run that are not in the output yet and writes their lines as they finish.

    Rows are read as they are asked for; what is kept per row is its id, digest and line. Use
    it as a context manager: leaving the block closes the output file and stops the clock,
    also when the run was interrupted.
    """

    def __init__(self, source: Path | Iterable[BatchRow], out: Path, *, text_field: str = "text",
                 on_row: RowDone | None = None) -> None:
        """Read the rows already in `out` and open it for appending; nothing of `source` is read yet."""
        rows: Iterable[BatchRow] = read_rows(source, text_field=text_field) if isinstance(source, Path) else source
        self._pending: Iterator[BatchRow] = iter(rows)
        self._done = done_rows(out)
        self._holders = {key: _Holder(lines[0].digest, lines[0].line, earlier=True)
                         for key, lines in self._done.items()}
        self._read: dict[tuple[str, str], int] = {}  # (id, digest) of each row read in this run -> its line
        self._handed_out: dict[tuple[str, str], BatchRow] = {}  # rows given to a checker, until their line is written
        self._out_name = out.name
        self._on_row = on_row
        self.summary = BatchSummary()
        self._started = time.perf_counter()
        self._output = OutputFile(out)

    def next_row(self) -> BatchRow | None:
        """The next row to check, or None when the input is done.

        Rows already in the output and repeats of earlier rows are counted and passed over. A
        row whose id an earlier row holds with another text comes back carrying that problem,
        so that its line is an error.
        """
        for row in self._pending:
            self.summary.rows += 1
            key = (row.id, row.digest)
            if (first := self._read.get(key)) is not None:
                self._count_duplicate(row, first)
                continue
            self._read[key] = row.line
            written = [line for line in self._done.get(row.id, ()) if line.digest in (None, row.digest)]
            if written:
                self._count_skipped(row, written)
                continue
            holder = self._holders.setdefault(row.id, _Holder(row.digest, row.line, earlier=False))
            if holder.digest != row.digest and row.problem is None:
                row = replace(row, problem=self._clash(row, holder))
            self._handed_out[key] = row
            return row
        return None

    def _count_skipped(self, row: BatchRow, written: list[WrittenLine]) -> None:
        """Count a row the output already holds; one whose every line there is an error was never checked."""
        self.summary.skipped += 1
        errors = [line.error for line in written]
        if all(error is not None for error in errors):
            self.summary.failed_earlier += 1
            self._note_unchecked(row, f"an error from an earlier run, already in {self._out_name}: {errors[-1]}")

    def _note_unchecked(self, row: BatchRow, why: str) -> None:
        if len(self.summary.unchecked_lines) < MAX_LISTED_FAILURES:
            self.summary.unchecked_lines.append(f"line {row.line} ({row.id}): {why}")

    def _count_duplicate(self, row: BatchRow, first: int) -> None:
        self.summary.duplicates += 1
        if len(self.summary.duplicate_lines) < MAX_LISTED_FAILURES:
            self.summary.duplicate_lines.append(
                f"line {row.line} ({row.id}): the same id, text and source as line {first}; not checked again")

    def _clash(self, row: BatchRow, holder: _Holder) -> str:
        """Why `row` is not checked: `holder`, an earlier row with its id, has another text."""
        line = f"line {holder.line}" if holder.line is not None else "another line"
        if holder.earlier:
            where = f"already in {self._out_name} for a different text or source ({line} of the input)"
            fix = "give this row an id of its own, or write to a new output file"
        else:
            where = f"already used by {line} for a different text or source"
            fix = "give this row an id of its own"
        return f"the id {row.id!r} is {where}; this row was not checked: {fix}"

    def record(self, row: BatchRow, record: dict[str, Any]) -> None:
        """Write `row`'s line, count it, and tell the progress callback."""
        self._output.write(record)
        self._handed_out.pop((row.id, row.digest), None)
        summary = self.summary
        summary.checked += 1
        if "error" in record:
            summary.failed += 1
            if len(summary.failures) < MAX_LISTED_FAILURES:
                summary.failures.append(f"line {row.line} ({row.id}): {record['error']}")
            self._note_unchecked(row, str(record["error"]))
        else:
            summary.claims += len(record["report"]["claims"])
        if self._on_row is not None:
            self._on_row(row, record)

    def close(self) -> BatchSummary:
        """Close the output file and return the summary, its time taken set and rows left without a line counted."""
        self._output.close()
        for row in self._handed_out.values():
            self.summary.missing += 1
            self._note_unchecked(row, f"handed out for checking, but no line for it was written to {self._out_name}")
        self._handed_out.clear()
        self.summary.seconds = time.perf_counter() - self._started
        return self.summary

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def rows_left(source: Path | Iterable[BatchRow], out: Path, *, text_field: str = "text") -> tuple[int, int]:
    """How far a batch has got: (rows of `source` done, rows a rerun would still check).

    Done rows are those `out` already holds, and repeats of them; it is the count a rerun's
    `Ledger` would skip, read the same way.
    """
    with Ledger(source, out, text_field=text_field) as ledger:
        left = sum(1 for _ in iter(ledger.next_row, None))
    return ledger.summary.rows - left, left
