"""A real calibration file for the offline judge, written by the code, for tests that edit, move or name one.

It holds the shipped calibrator and thresholds under the offline judge's identity, written by
`CalibrationFile.write` exactly as `veracity calibrate` writes its own, so a check of the offline
judge uses it (from --calibration, or from the calibration folder) without a calibration run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from veracity.calibration.file import CalibrationFile, default_path
from veracity.calibration.identity import JudgeIdentity, calibration_folder
from veracity.offline.calibration.confidence import default_calibrator
from veracity.offline.calibration.risk import default_risk_control
from veracity.offline.judge.version import offline_judge_version

CHECK = {"model": "offline", "search": "kb", "today": "2026-11-24", "counter_search": False, "verify_pages": False}
"""An offline check of the demo knowledge base: quick, and judged by the offline judge."""


def offline_judge() -> JudgeIdentity:
    """The identity of the offline judge installed here."""
    return JudgeIdentity("offline", "offline", "", offline_judge_version())


def write_offline_calibration(path: Path) -> Path:
    """A calibration file for the offline judge at `path`, written by `CalibrationFile.write`."""
    record = {"command": "tests", "rows": 0}
    return CalibrationFile(offline_judge(), default_calibrator(), default_risk_control(), record).write(path)


def kept_path() -> Path:
    """Where the calibration folder (``$VERACITY_CALIBRATIONS``, temporary in tests) keeps the offline judge's."""
    return default_path(offline_judge(), calibration_folder())


def edit(path: Path, change: Any) -> Path:
    """Apply `change` (a function of the parsed JSON) to the file at `path`, written back as JSON."""
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
