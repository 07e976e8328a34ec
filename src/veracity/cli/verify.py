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
  2  the report or the key cannot be read, or bad usage"""


@click.command(epilog=VERIFY_EPILOG)
@click.argument("report_file", metavar="REPORT", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--key", "key_file", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              metavar="PUBLIC_KEY", help="The signer's public key (a PEM file); the report must carry a signature "
                                         "that holds under it. Default: the local key, when the report is signed.")
@click.option("--snapshots", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              metavar="DIR", help="The folder given to `check --snapshots`: each kept page must still match its "
                                  "hash and carry its quote.")
@click.option("--live", is_flag=True, help="Fetch each cited page again; its quote must still be there.")
def verify_command(report_file: Path, key_file: Path | None, snapshots: Path | None, live: bool) -> None:
    """Re-check REPORT (a report.json from `check --out` or `--json`) with no model and no search.

    The report must be whole (one verdict per claim) and consistent: its counts, evaluation,
    ok, passed and risk must follow from its verdicts. Every supported or refuted verdict needs
    a quote found in the evidence it cites, every computation must give the same result when
    run again, and an offline report's verdicts must come out the same from the offline judge.
    A report written by `check --out` is signed (REPORT.sig): the signature must hold, so any
    edit shows. Optionally the kept page snapshots and the live pages are checked too. What no
    longer holds is listed.
    """
    from pydantic import ValidationError

    from veracity.audit.signing import (
        SigningKeyError,
        VerifyingKey,
        check_signature,
        load_public_key,
        local_verifying_key,
        signature_path,
    )
    from veracity.audit.verify import MAX_REPORT_BYTES, verify_report
    from veracity.contracts import Report
    from veracity.user_files import FileRefused, read_regular_file

    err, out = Console(stderr=True), Console(highlight=False)
    try:
        raw = read_regular_file(report_file, MAX_REPORT_BYTES)
        report = Report.model_validate_json(raw)
    except FileRefused as exc:
        err.print(f"[bold red]error:[/] cannot read {escape(str(report_file))}: it {escape(str(exc))}")
        sys.exit(2)
    except ValidationError as exc:
        err.print(f"[bold red]error:[/] {escape(str(report_file))} is not a veracity report: "
                  f"{exc.error_count()} problem(s), first: {escape(str(exc.errors()[0]['msg']))}")
        sys.exit(2)
    key: VerifyingKey | None
    try:
        if key_file is not None:
            key = load_public_key(key_file)
        else:
            key = local_verifying_key() if signature_path(report_file).exists() else None
    except SigningKeyError as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}")
        sys.exit(2)
    findings = [check_signature(report_file, raw, key, required=key_file is not None)]
    findings += asyncio.run(verify_report(report, raw=raw, snapshots=snapshots, live=live))
    for finding in findings:
        mark = "[yellow]warning[/]" if finding.warning else "[green]holds[/]" if finding.holds else "[bold red]FAILS[/]"
        out.print(f"{mark}  {escape(finding.claim_id or 'report')}: {escape(finding.what)}")
    failed = sum(not finding.holds for finding in findings)
    warned = sum(finding.warning for finding in findings)
    out.print(f"{len(findings)} check(s), {failed} failed" + (f", {warned} warning(s)" if warned else ""))
    sys.exit(1 if failed else 0)
