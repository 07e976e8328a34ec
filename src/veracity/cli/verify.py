"""Command-line interface: `veracity verify`, re-checking a saved report without a model or a search."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape

VERIFY_EPILOG = """\b
Exit codes:
  0  everything still holds
  1  something no longer holds (each is listed)
  2  the report cannot be read, or bad usage"""


@click.command(epilog=VERIFY_EPILOG)
@click.argument("report_file", metavar="REPORT", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--snapshots", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              metavar="DIR", help="The folder given to `check --snapshots`: each kept page must still match its "
                                  "hash and carry its quote.")
@click.option("--live", is_flag=True, help="Fetch each cited page again; its quote must still be there.")
def verify_command(report_file: Path, snapshots: Path | None, live: bool) -> None:
    """Re-check REPORT (a report.json from `check --out` or `--json`) with no model and no search.

    Every quote must occur in the evidence it cites, every computation must give the same
    result when run again, and the summary must match the verdicts; optionally the kept page
    snapshots and the live pages are checked too. What no longer holds is listed.
    """
    from pydantic import ValidationError

    from veracity.audit.verify import verify_report
    from veracity.contracts import Report

    err, out = Console(stderr=True), Console(highlight=False)
    try:
        report = Report.model_validate_json(report_file.read_bytes())
    except OSError as exc:
        err.print(f"[bold red]error:[/] cannot read {escape(str(report_file))}: {escape(exc.strerror or str(exc))}")
        sys.exit(2)
    except ValidationError as exc:
        err.print(f"[bold red]error:[/] {escape(str(report_file))} is not a veracity report: "
                  f"{exc.error_count()} problem(s), first: {escape(str(exc.errors()[0]['msg']))}")
        sys.exit(2)
    findings = asyncio.run(verify_report(report, snapshots=snapshots, live=live))
    for finding in findings:
        mark = "[green]holds[/]" if finding.holds else "[bold red]FAILS[/]"
        out.print(f"{mark}  {escape(finding.claim_id or 'report')}: {escape(finding.what)}")
    failed = sum(not finding.holds for finding in findings)
    out.print(f"{len(findings)} check(s), {failed} failed")
    sys.exit(1 if failed else 0)
