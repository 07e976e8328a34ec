"""A calibration file: the calibrator and certified thresholds measured for one judge, read and written.

``veracity calibrate`` writes one (JSON) with a card beside it; a check reads it with
``--calibration FILE`` or finds it in the data folder under the name of the judge it measured
(`JudgeIdentity.file_name`). Its sections are the ones the shipped offline calibration has
(``models``: one logistic model per label; ``risk``: thresholds per target precision), plus the
judge it measured and a record of the data and figures behind it.
"""

from __future__ import annotations

import functools
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veracity.calibration.identity import JudgeIdentity, calibration_folder
from veracity.context import CALIBRATION_OFF
from veracity.errors import ConfigurationError
from veracity.offline.calibration.confidence import Calibrator
from veracity.offline.calibration.risk import RiskControl

FORMAT = "veracity-calibration"
VERSION = 1


@dataclass(frozen=True)
class CalibrationFile:
    """One judge's calibration: its identity, the calibrator, the certified thresholds, and their record."""

    judge: JudgeIdentity
    calibrator: Calibrator
    risk: RiskControl
    record: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form `read` takes back."""
        return {
            "format": FORMAT, "version": VERSION, "judge": self.judge.to_dict(),
            "models": {label: model.to_dict() for label, model in self.calibrator.models.items()},
            "risk": {"delta": self.risk.delta, "levels": list(self.risk.levels),
                     "thresholds": {label: list(values) for label, values in self.risk.thresholds.items()}},
            "record": plain_json(self.record),
        }

    def write(self, path: Path) -> Path:
        """Write the file (its folder is made); return the path."""
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(json.dumps(self.to_dict(), indent=1, allow_nan=False) + "\n", encoding="utf-8")
        os.replace(temporary, path)
        return path

    @classmethod
    def from_dict(cls, data: Any, path: Path | None = None) -> CalibrationFile:
        """Read the JSON form; ValueError names what is wrong."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not a calibration file (no \"format\": \"{FORMAT}\"); `veracity calibrate` writes them")
        if data.get("version") != VERSION:
            raise ValueError(f"calibration file version {data.get('version')!r}; this veracity reads version {VERSION}")
        try:
            return cls(JudgeIdentity.from_dict(data.get("judge")), Calibrator.from_dict(data["models"]),
                       RiskControl.from_dict(data["risk"]), dict(data.get("record") or {}), path)
        except (KeyError, TypeError) as exc:
            raise ValueError(f"its calibrator or thresholds are incomplete ({type(exc).__name__}: {exc})") from None

    @classmethod
    def read(cls, path: str | Path) -> CalibrationFile:
        """Read a file; `ConfigurationError` says which file and what is wrong with it."""
        path = Path(path).expanduser()
        try:
            stamp = path.stat().st_mtime_ns
        except FileNotFoundError:
            raise ConfigurationError(f"calibration file {path}: no such file") from None
        except OSError as exc:
            raise ConfigurationError(f"calibration file {path}: {exc.strerror or exc}") from None
        return _read(str(path), stamp)


def plain_json(value: Any) -> Any:
    """`value` with every NaN or infinite number replaced by None (strict JSON has neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: plain_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(item) for item in value]
    return value


@functools.lru_cache(maxsize=16)
def _read(path: str, stamp: int) -> CalibrationFile:
    """One read per file version (`stamp` is its modification time): checks read the file once."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"calibration file {path}: cannot read it ({exc})") from None
    try:
        return CalibrationFile.from_dict(data, Path(path))
    except ValueError as exc:
        raise ConfigurationError(f"calibration file {path}: {exc}") from None


def default_path(judge: JudgeIdentity, folder: Path | None = None) -> Path:
    """Where the calibration of `judge` is kept in the data folder (or `folder`)."""
    return (folder or calibration_folder()) / judge.file_name()


def calibration_for(judge: JudgeIdentity, setting: str | None, folder: Path | None = None) -> CalibrationFile | None:
    """The calibration a check of `judge` uses: the file `setting` names, else the one found for it, else None.

    `setting` 'off' asks for none. A named file measured for another judge is refused
    (`ConfigurationError`): its thresholds say nothing about this one.
    """
    if setting == CALIBRATION_OFF:
        return None
    if setting is not None:
        found = CalibrationFile.read(setting)
        if found.judge != judge:
            raise ConfigurationError(
                f"calibration file {setting} was measured for {found.judge.describe()}, but this check's judge is "
                f"{judge.describe()}; run `veracity calibrate` for this judge, or leave --calibration out")
        return found
    path = default_path(judge, folder)
    return CalibrationFile.read(path) if path.is_file() else None
