"""Command-line interface: `veracity batch`, many texts in one run."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click
from rich.console import Console
from rich.markup import escape

from veracity.cli.settings import settings_options

if TYPE_CHECKING:
    from veracity.batch import BatchSummary

BATCH_EPILOG = """\b
IN: .jsonl (one object per line) or .csv (with a header); the text is in the
'text' field (--text-field), with an optional 'id' and 'source' (a source text
to check against, as `check --source`; it wins over --search).
\b
OUT: one JSON line per row, {"id", "line", "digest", "report"} or {"id", "line",
"digest", "error"} (digest: a hash of the row's text and source), appended as
rows finish. Rerunning skips the rows already in OUT (same id and digest), so an
interrupted run (Ctrl-C) is finished by running it again; a row whose line in OUT
is an error stays unchecked (each run names it, exit 3) until that line is
removed from OUT. A row without an id gets the hash as its id. A row repeating
an earlier one (same id, text and source) is counted as a duplicate and not
checked twice; a row whose id an earlier row (or OUT) holds with another text
is not checked: its line is an error naming the line that holds the id.
\b
--ray [ADDRESS]: check the rows on Ray workers instead (pip install
'veracity[ray]'); OUT, resume, summary and exit codes stay the same. Without
ADDRESS a local Ray is started (or the one already running here is joined);
'auto' (on a cluster node) or ray://HEAD:10001 reach a cluster started with
`ray start --head`. Write --ray after IN, or as --ray=ADDRESS. Each worker
needs veracity, the knowledge base at the same path and the API keys.
\b
Exit codes:
  0    every row of IN has a report in OUT
  2    bad input or configuration (nothing ran)
  3    some rows have no report: they failed in this run or an earlier
       one (their errors are in OUT), or got no line; they are listed
  130  interrupted (Ctrl-C): the rows done are in OUT; the message gives
       the command that resumes"""

EXIT_INTERRUPTED = 130
"""The exit code of a batch stopped by Ctrl-C (128 + SIGINT, as shells report it)."""


@click.command(epilog=BATCH_EPILOG)
@click.argument("in_file", metavar="IN", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", "out_file", required=True, type=click.Path(dir_okay=False, path_type=Path), metavar="OUT",
              help="JSONL file of reports (appended; rows already there are skipped).")
@click.option("--summary", "summary_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="CSV", help="Also write a CSV with one line per row of OUT: id, outcome and counts.")
@click.option("--concurrency", "-c", type=click.IntRange(1, 64), default=4, show_default=True,
              help="Checks run at the same time.")
@click.option("--text-field", default="text", show_default=True, help="The field (or CSV column) holding the text.")
@settings_options("batch", notes={
    "search": "For rows without a source; a row with a source is always checked against that source alone.",
})
@click.option("--ray", "ray_address", is_flag=False, flag_value="", default=None, metavar="[ADDRESS]",
              help="Check the rows on Ray workers: a local Ray, or the cluster at ADDRESS ('auto', "
                   "ray://HEAD:10001). --concurrency does not apply.")
@click.option("--ray-workers", type=click.IntRange(1), default=None, metavar="N",
              help="Ray workers, each checking one row at a time (default: the cluster's CPU count).")
def batch_command(in_file: Path, out_file: Path, summary_file: Path | None, concurrency: int, text_field: str,
                  settings: dict[str, Any], ray_address: str | None, ray_workers: int | None) -> None:
    """Fact-check every row of IN and write the reports to OUT, a few at a time, resumably."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from veracity.batch import abatch, batch_on_ray, read_rows
    from veracity.errors import ConfigurationError
    from veracity.user_files import refuse_unwritable

    if ray_workers is not None and ray_address is None:
        raise click.UsageError("--ray-workers needs --ray")
    err = Console(stderr=True)
    try:
        for target in (out_file, summary_file):
            if target is not None:
                refuse_unwritable(target)
        total = sum(1 for _ in read_rows(in_file, text_field=text_field))
    except (ValueError, OSError) as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        sys.exit(2)
    claims = [0]
    columns = (TextColumn("[bold]batch[/]"), BarColumn(), TextColumn("{task.completed}/{task.total} rows"),
               TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=False, disable=not err.is_terminal) as progress:
        task = progress.add_task("rows", total=total, rate="")

        def on_row(_row: Any, record: dict[str, Any]) -> None:
            claims[0] += len(record.get("report", {}).get("claims", []))
            elapsed = progress.tasks[0].elapsed or 0.0
            rate = f"{claims[0] / elapsed:.1f} claims/s" if elapsed else ""
            progress.update(task, advance=1, rate=rate)

        try:
            if ray_address is not None:
                summary = batch_on_ray(in_file, out_file, address=ray_address or None, workers=ray_workers,
                                       text_field=text_field, on_row=on_row, **settings)
            else:
                summary = asyncio.run(abatch(in_file, out_file, concurrency=concurrency, text_field=text_field,
                                             on_row=on_row, **settings))
        except ConfigurationError as exc:
            err.print(f"[bold red]not configured:[/] {escape(str(exc))}", highlight=False)
            sys.exit(2)
        except KeyboardInterrupt:
            progress.stop()
            interrupted(err, in_file, out_file, text_field)
        progress.update(task, completed=summary.skipped + summary.checked + summary.duplicates)
    earlier = f" ({summary.failed_earlier} of them with an error)" if summary.failed_earlier else ""
    missing = f", {summary.missing} without a line" if summary.missing else ""
    err.print(f"{summary.rows} row(s): {summary.checked} checked ({summary.failed} failed), {summary.skipped} "
              f"already in {escape(str(out_file))}{earlier}, {summary.duplicates} duplicate(s){missing}; "
              f"{summary.claims} claim(s) in {summary.seconds:.1f} s", highlight=False)
    for duplicate in summary.duplicate_lines:
        err.print(f"  - {escape(duplicate)}", highlight=False)
    if summary.unchecked:
        not_checked(err, summary, out_file)
    if summary_file is not None:
        write_summary(out_file, summary_file)
    sys.exit(3 if summary.unchecked else 0)


def not_checked(err: Console, summary: BatchSummary, out_file: Path) -> None:
    """Name the rows that have no report (the first few), and say how to check them again."""
    more = summary.unchecked - len(summary.unchecked_lines)
    err.print(f"[bold red]not checked:[/] {summary.unchecked} row(s) have no report in {escape(str(out_file))}"
              + (f" (the first {len(summary.unchecked_lines)} are listed)" if more > 0 else "") + ":",
              highlight=False)
    for line in summary.unchecked_lines:
        err.print(f"  - {escape(line)}", highlight=False)
    err.print("  to check them again, remove their lines from OUT (a rerun skips every row OUT holds, errors "
              "included) and run the same command again", highlight=False, markup=False)


def interrupted(err: Console, in_file: Path, out_file: Path, text_field: str) -> NoReturn:
    """Say how far an interrupted batch got and how to resume it, then exit 130."""
    from veracity.batch.ledger import rows_left

    done, left = rows_left(in_file, out_file, text_field=text_field)
    err.print(f"interrupted: {done} of {done + left} row(s) done (in {out_file}), {left} left; "
              "to resume, run the same command again:", highlight=False, markup=False, soft_wrap=True)
    err.print(f"  {resume_command()}", highlight=False, markup=False, soft_wrap=True)
    sys.exit(EXIT_INTERRUPTED)


def resume_command() -> str:
    """This run's command line as it was typed: run again, it skips the rows in OUT and checks the rest."""
    program = click.get_current_context().find_root().info_name or "veracity"
    return f"{program} {shlex.join(sys.argv[1:])}"


SUMMARY_COLUMNS = ("id", "line", "outcome", "claims", "supported", "refuted", "unverifiable", "failures", "error")


def write_summary(out_file: Path, summary_file: Path) -> None:
    """One CSV line per line of the output file: its id, outcome and counts (or its error)."""
    from veracity.contracts import Report
    from veracity.user_files import write_atomically

    table = io.StringIO(newline="")
    writer = csv.DictWriter(table, fieldnames=SUMMARY_COLUMNS)
    writer.writeheader()
    with out_file.open(encoding="utf-8") as lines:
        for raw in lines:
            record = json.loads(raw)
            report = record.get("report")
            counts = report["summary"] if report else {}
            writer.writerow({"id": record["id"], "line": record.get("line"),
                             "outcome": Report.model_validate(report).outcome if report else "error",
                             **{k: counts.get(k, "") for k in ("claims", "supported", "refuted", "unverifiable",
                                                               "failures")},
                             "error": record.get("error", "")})
    write_atomically(summary_file, table.getvalue().encode("utf-8"))
