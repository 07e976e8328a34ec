"""Run many checks in this process: bounded concurrency, each line appended as it finishes, done rows skipped."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from veracity.batch.ledger import BatchSummary, Ledger, RowDone
from veracity.batch.rows import BatchRow
from veracity.errors import ConfigurationError
from veracity.run.checker import Checker


async def abatch(
    source: Path | Iterable[BatchRow], out: Path, *, concurrency: int = 4, text_field: str = "text",
    on_row: RowDone | None = None, checker: Checker | None = None, **settings: Any,
) -> BatchSummary:
    """Check every row of `source` (a JSONL/CSV file or rows) and append one JSON line per row to `out`.

    A line is ``{"id", "line", "digest", "report"}`` or, when the row could not be checked,
    ``{"id", "line", "digest", "error"}``; the digest is a hash of the row's text and source.
    Rows already in `out` (same id and digest) are skipped, so rerunning after an interruption
    finishes the job. A row repeating an earlier one (same id, text and source) is counted as
    a duplicate and not checked again; a row whose id an earlier row holds with another text
    is written as an error line instead of being checked (see `Ledger`). At most `concurrency`
    checks run at once; rows are read as they are needed. `settings` are
    `veracity.check`'s; a setting that cannot work at all (a missing API key) raises
    `ConfigurationError` before any row runs. `veracity.batch.batch_on_ray` does the same on
    Ray workers.
    """
    checker = checker or Checker(**settings)
    checker.resources.preflight(checker.context())
    with Ledger(source, out, text_field=text_field, on_row=on_row) as ledger:

        async def worker() -> None:
            # next_row does not await, so two workers never take the same row
            while (row := ledger.next_row()) is not None:
                ledger.record(row, await check_row(checker, row))

        await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
    return ledger.summary


async def check_row(checker: Checker, row: BatchRow) -> dict[str, Any]:
    """The output line of one row: its report, or the error that kept it from being checked.

    `ConfigurationError` is raised instead of recorded: it concerns every row, not this one.
    """
    base: dict[str, Any] = {"id": row.id, "line": row.line, "digest": row.digest}
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
