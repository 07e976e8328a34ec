"""A calibration file: the calibrator and certified thresholds measured for one judge, read and written.

``veracity calibrate`` writes one (JSON) with a card beside it; a check reads it with
``--calibration FILE`` or finds it in the data folder under the name of the judge it measured
(`JudgeIdentity.file_name`). Its sections are the ones the shipped offline calibration has
(``models``: one logistic model per label; ``risk``: thresholds per target precision), plus the
judge it measured and a record of the data and figures behind it.

A file is read as a regular file of at most `MAX_CALIBRATION_BYTES` and checked field by field
(`veracity.calibration.schema`); one found in the folder must also be the user's own
(`veracity.calibration.trust`). Its SHA-256 goes into every report it rules (`origin`). Files are
written whole and never through a symbolic link (`write_file`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from veracity.calibration.identity import JudgeIdentity, calibration_folder
from veracity.calibration.schema import FORMAT, VERSION, CalibrationDocument, ModelSection, problems
from veracity.calibration.trust import read_trusted
from veracity.context import CALIBRATION_OFF
from veracity.contracts import CalibrationOrigin, Label
from veracity.errors import ConfigurationError, VeracityError
from veracity.offline.calibration.confidence import Calibrator, LogisticModel
from veracity.offline.calibration.risk import RiskControl
from veracity.user_files import FileRefused, read_regular_file, refuse_unwritable, write_atomically

MAX_CALIBRATION_BYTES = 4_000_000
"""A calibration file larger than this is refused, not read (`veracity calibrate` writes about 50 kB)."""


class CalibrationWriteError(VeracityError):
    """A calibration file or its card cannot be written: the message says which file and why."""


@dataclass(frozen=True)
class CalibrationFile:
    """One judge's calibration: its identity, the calibrator, the certified thresholds, and their record."""

    judge: JudgeIdentity
    calibrator: Calibrator
    risk: RiskControl
    record: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    sha256: str | None = None
    """The SHA-256 of the bytes it was read from; None for one made in memory."""

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
        """Write the file whole (its folder is made), never through a symbolic link (`write_file`); return the path.

        What is written is checked as a read checks it (a `ValueError` says what is wrong), so no file
        is written that a check would refuse. `CalibrationWriteError` when it cannot be written.
        """
        data = self.to_dict()
        try:
            CalibrationDocument.model_validate(data)
        except ValidationError as exc:
            raise ValueError(f"the calibration to write breaks the file's rules: {problems(exc)}") from None
        return write_file(path, (json.dumps(data, indent=1, allow_nan=False) + "\n").encode("utf-8"))

    def origin(self) -> CalibrationOrigin:
        """Where this calibration was read from, for the reports it rules (a user's file)."""
        if self.path is None or self.sha256 is None:
            raise ValueError("a calibration made in memory has no file to name")
        return CalibrationOrigin(path=str(self.path.absolute()), origin="user", sha256=self.sha256,
                                 judge=self.judge.describe())

    @classmethod
    def from_dict(cls, data: Any, path: Path | None = None, sha256: str | None = None) -> CalibrationFile:
        """Read the JSON form (`veracity.calibration.schema`); ValueError names each field that is wrong."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not a calibration file (no \"format\": \"{FORMAT}\"); `veracity calibrate` writes them")
        if data.get("version") != VERSION or isinstance(data.get("version"), bool):
            raise ValueError(f"calibration file version {data.get('version')!r}; this veracity reads version {VERSION}")
        try:
            document = CalibrationDocument.model_validate(data)
        except ValidationError as exc:
            raise ValueError(problems(exc)) from None
        judge = JudgeIdentity(document.judge.kind, document.judge.model, document.judge.prompt_version,
                              document.judge.judge_version)
        sections = document.models
        models: dict[Label, LogisticModel] = {"supported": _logistic(sections.supported),
                                              "refuted": _logistic(sections.refuted),
                                              "unverifiable": _logistic(sections.unverifiable)}
        thresholds = document.risk.thresholds
        risk = RiskControl(tuple(document.risk.levels),
                           {"supported": tuple(thresholds.supported), "refuted": tuple(thresholds.refuted)},
                           document.risk.delta)
        return cls(judge, Calibrator(models), risk, dict(document.record), path, sha256)

    @classmethod
    def read(cls, path: str | Path, *, found: bool = False) -> CalibrationFile:
        """Read a file; `ConfigurationError` says which file and what is wrong with it.

        `found`: the file was found in the calibration folder, not named, so it must also be the
        user's own (`veracity.calibration.trust`).
        """
        path = Path(path).expanduser()
        if not os.path.lexists(path):
            raise ConfigurationError(f"calibration file {path}: no such file")
        reader = read_trusted if found else read_regular_file
        try:
            data = reader(path, MAX_CALIBRATION_BYTES)
        except FileRefused as exc:
            raise ConfigurationError(f"calibration file {path}: it {exc}") from None
        return parse(path, data)


def _logistic(section: ModelSection) -> LogisticModel:
    return LogisticModel(tuple(section.features), tuple(section.mean), tuple(section.scale), tuple(section.weights),
                         section.bias)


def parse(path: Path, data: bytes) -> CalibrationFile:
    """The calibration in `data`, the bytes read from `path`; `ConfigurationError` names the file and the field."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ConfigurationError(f"calibration file {path}: cannot read it ({type(exc).__name__}: {exc})") from None
    try:
        return CalibrationFile.from_dict(document, path, hashlib.sha256(data).hexdigest())
    except ValueError as exc:
        raise ConfigurationError(f"calibration file {path}: {exc}") from None


def write_file(path: Path, data: bytes) -> Path:
    """Write `data` to `path` whole (its folder is made), never through a symbolic link; return the path.

    `CalibrationWriteError` says which file cannot be written and why.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return write_atomically(path, data)
    except FileRefused as exc:
        raise CalibrationWriteError(f"cannot write the calibration: {exc}") from None
    except OSError as exc:
        raise CalibrationWriteError(f"cannot write {path}: {exc.strerror or exc}") from None


def check_targets(*paths: Path) -> None:
    """`CalibrationWriteError` when any of `paths` could not be written: a symbolic link, a FIFO, a folder.

    Checked before a calibration starts, so that no judging is lost to a file that cannot be written.
    """
    for path in paths:
        try:
            refuse_unwritable(path)
        except FileRefused as exc:
            raise CalibrationWriteError(f"cannot write the calibration: {exc}") from None


def plain_json(value: Any) -> Any:
    """`value` with every NaN or infinite number replaced by None (strict JSON has neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: plain_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(item) for item in value]
    return value


def default_path(judge: JudgeIdentity, folder: Path | None = None) -> Path:
    """Where the calibration of `judge` is kept in the data folder (or `folder`)."""
    return (folder or calibration_folder()) / judge.file_name()


def calibration_for(judge: JudgeIdentity, setting: str | None, folder: Path | None = None) -> CalibrationFile | None:
    """The calibration a check of `judge` uses: the file `setting` names, else the one found for it, else None.

    `setting` 'off' asks for none. A file measured for another judge is refused
    (`ConfigurationError`): its thresholds say nothing about this one. A file found in the folder
    must also be the user's own (`CalibrationFile.read` with `found`).
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
    if not os.path.lexists(path):
        return None
    found = CalibrationFile.read(path, found=True)
    if found.judge != judge:
        raise ConfigurationError(
            f"calibration file {path} in the calibration folder is named for {judge.describe()}, but was measured for "
            f"{found.judge.describe()}; remove it, or run `veracity calibrate` for this judge")
    return found
