"""Run many checks: bounded concurrency, each result appended as it finishes, rows already done skipped."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veracity.batch.output import OutputFile, done_ids
from veracity.batch.rows import BatchRow, read_rows
from veracity.checker import Checker
from veracity.errors import ConfigurationError


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


async def abatch(
    source: Path | Iterable[BatchRow], out: Path, *, concurrency: int = 4, text_field: str = "text",
    on_row: RowDone | None = None, checker: Checker | None = None, **settings: Any,
) -> BatchSummary:
    """Check every row of `source` (a JSONL/CSV file or rows) and append one JSON line per row to `out`.

    A line is ``{"id", "line", "report"}`` or, when the row could not be checked, ``{"id",
    "line", "error"}``. Rows whose id is already in `out` are skipped, so rerunning after an
    interruption finishes the job. At most `concurrency` checks run at once; rows are read as
    they are needed, so memory stays flat however long the input. `settings` are
    `veracity.check`'s; a setting that cannot work at all (a missing API key) raises
    `ConfigurationError` before any row runs.
    """
    checker = checker or Checker(**settings)
    checker.resources.preflight(checker.context())
    rows: Iterable[BatchRow] = read_rows(source, text_field=text_field) if isinstance(source, Path) else source
    seen = done_ids(out)
    summary, started = BatchSummary(), time.perf_counter()
    output = OutputFile(out)
    pending: Iterator[BatchRow] = iter(rows)
    lock = asyncio.Lock()

    async def next_row() -> BatchRow | None:
        async with lock:
            for row in pending:
                summary.rows += 1
                if row.id in seen:
                    summary.skipped += 1
                    continue
                seen.add(row.id)
                return row
            return None

    async def worker() -> None:
        while (row := await next_row()) is not None:
            record = await _check_row(checker, row)
            output.write(record)
            summary.checked += 1
            if "error" in record:
                summary.failed += 1
                if len(summary.failures) < 5:
                    summary.failures.append(f"line {row.line} ({row.id}): {record['error']}")
            else:
                summary.claims += len(record["report"]["claims"])
            if on_row is not None:
                on_row(row, record)

    try:
        await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
    finally:
        output.close()
        summary.seconds = time.perf_counter() - started
    return summary


async def _check_row(checker: Checker, row: BatchRow) -> dict[str, Any]:
    base: dict[str, Any] = {"id": row.id, "line": row.line}
    if row.problem is not None:
        return {**base, "error": row.problem}
    # A row with a source text is checked against it alone, whatever the run's search setting.
    extra: dict[str, Any] = {"source_text": row.source, "search": "source"} if row.source else {}
    try:
        report = await checker.acheck(row.text, **extra)
    except ConfigurationError:
        raise  # concerns every row, not this one
    except Exception as error:  # one row's failure is recorded; the run goes on
        return {**base, "error": f"{type(error).__name__}: {error}"}
    return {**base, "report": report.model_dump(mode="json")}
