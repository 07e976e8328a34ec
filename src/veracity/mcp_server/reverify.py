"""`verify_report` for a tool call: a saved report checked again, as `veracity verify` checks it.

The report comes from a path (read only as `veracity verify` reads it: a regular file, under the
same size cap; its signature beside it is checked against the local key) or inline as JSON, whose
signature cannot be checked (a warning says so). Paths are read for a client on stdio only.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from mcp.server.fastmcp.exceptions import ToolError
from pydantic import ValidationError

from veracity.audit.findings import Finding
from veracity.audit.signing import SigningKeyError, check_signature, local_verifying_key, signature_path
from veracity.audit.verify import MAX_REPORT_BYTES, verify_report
from veracity.contracts import Report
from veracity.mcp_server.outputs import FindingResult, VerifyResult
from veracity.user_files import FileRefused, read_regular_file

MAX_INLINE_REPORT_BYTES = 16_000_000
"""The largest report taken inline, as JSON (a report file may be as large as `veracity verify` reads)."""

INLINE_UNSIGNED = Finding(None, "given inline, so no signature was checked and an edit to it cannot be detected; "
                                "give the path of a signed report.json to check its signature", True, warning=True)


async def reverify(*, path: str | None, report: dict[str, Any] | None, local_client: bool) -> VerifyResult:
    """Every finding for the report at `path` or the `report` given as a JSON object (exactly one of the two)."""
    if path is not None and report is None:
        if not local_client:
            raise ToolError("path is not accepted over HTTP: this server reads no file a client names; "
                            "send the report as report_json")
        raw, signature = await asyncio.to_thread(_read_signed, path)
    elif report is not None and path is None:
        raw, signature = json.dumps(report, ensure_ascii=False).encode("utf-8", errors="replace"), INLINE_UNSIGNED
        if len(raw) > MAX_INLINE_REPORT_BYTES:
            raise ToolError(f"the report is {len(raw):,} bytes of JSON; the limit inline is "
                            f"{MAX_INLINE_REPORT_BYTES:,} (give its path instead)")
    else:
        raise ToolError("give the report as path (a report.json) or as report (a JSON object), one of the two")
    try:
        parsed = Report.model_validate_json(raw)
    except ValidationError as exc:
        raise ToolError(f"not a veracity report: {exc.error_count()} problem(s), first: "
                        f"{exc.errors()[0]['msg']}") from None
    findings = [signature, *await verify_report(parsed, raw=raw)]
    return VerifyResult(
        holds=all(finding.holds for finding in findings), checks=len(findings),
        failed=sum(not finding.holds for finding in findings), warnings=sum(finding.warning for finding in findings),
        findings=[FindingResult(claim_id=finding.claim_id, what=finding.what, holds=finding.holds,
                                warning=finding.warning) for finding in findings],
    )


def _read_signed(name: str) -> tuple[bytes, Finding]:
    """The report file's bytes, and the signature finding `veracity verify` makes with no --key for it.

    A signed report is checked against the local key; an unsigned one is a warning.
    """
    path = Path(name).expanduser()
    try:
        raw = read_regular_file(path, MAX_REPORT_BYTES)
        key = local_verifying_key() if signature_path(path).exists() else None
    except FileRefused as exc:
        raise ToolError(f"cannot read {path}: it {exc}") from None
    except SigningKeyError as exc:
        raise ToolError(str(exc)) from None
    return raw, check_signature(path, raw, key)
