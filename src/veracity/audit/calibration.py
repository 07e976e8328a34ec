"""Check the calibration a report names against the file: the one that ruled its verdicts must still be that file.

A report records the calibration that gave its verdicts their confidences and thresholds, with the
SHA-256 of the bytes the check read (`contracts.CalibrationOrigin`). A user's file must still have
that digest where the report says it was: a different one fails (the file changed since the report
was made), and a file no longer there (or that cannot be read) is a warning, since nothing can be
compared. The shipped calibration is compared with the one installed here: another one fails, as
re-judging with another judge version does.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from veracity.audit.findings import Finding
from veracity.calibration.file import MAX_CALIBRATION_BYTES
from veracity.contracts import CalibrationOrigin, Report
from veracity.offline.calibration.confidence import shipped_origin
from veracity.user_files import FileRefused, read_regular_file


def calibration_findings(report: Report) -> list[Finding]:
    """One finding on the calibration the report names; none when it names none."""
    named = report.calibration
    if named is None:
        return []
    if named.origin == "shipped":
        return [_shipped(named)]
    return [_user_file(named)]


def _shipped(named: CalibrationOrigin) -> Finding:
    installed = shipped_origin()
    if installed.sha256 == named.sha256:
        return Finding(None, f"the shipped calibration installed here is the one the report names "
                             f"(sha256 {named.sha256[:12]})", True)
    return Finding(None, f"the report was ruled by a shipped calibration with sha256 {named.sha256[:12]}, but the one "
                         f"installed here has {installed.sha256[:12]} (verify with the veracity that wrote the report)",
                   False)


def _user_file(named: CalibrationOrigin) -> Finding:
    path = Path(named.path)
    try:
        data = read_regular_file(path, MAX_CALIBRATION_BYTES)
    except FileRefused as refused:
        return Finding(None, f"calibration file {path} cannot be compared with the report's digest: it {refused}",
                       True, warning=True)
    digest = hashlib.sha256(data).hexdigest()
    if digest != named.sha256:
        return Finding(None, f"calibration file {path} changed since the report was made (sha256 {digest[:12]}, the "
                             f"report records {named.sha256[:12]})", False)
    return Finding(None, f"calibration file {path} has the digest the report records ({digest[:12]})", True)
