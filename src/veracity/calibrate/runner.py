"""`veracity calibrate`: judge labelled rows with the configured judge, fit its calibrator, certify its thresholds.

The rows are judged by the judge a check would use (`judging`), then split into halves by claim;
`fitting.fit_and_certify` fits the calibrator on one half and certifies thresholds on the other,
with groups (the rows' ``group``, else one) weighted equally and each held to the target. The
result is a `CalibrationFile` named for the judge, and a card beside it (`card`).
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from veracity.calibrate.fitting import DELTA, LEVELS, Fitted, Table, fit_and_certify, half_of
from veracity.calibrate.judging import JudgedRow, judge_offline, judge_with_chat_model
from veracity.calibration.file import CalibrationFile, check_targets, default_path
from veracity.calibration.identity import JudgeIdentity, judge_identity
from veracity.calibration.schema import signal_names
from veracity.context import CALIBRATION_OFF, Context
from veracity.errors import InputError
from veracity.evaluation.dataset import Dataset, JudgeRow, load_dataset
from veracity.evaluation.rows import FAILED, RowEvaluator
from veracity.evaluation.runner import EvalMode, model_setting
from veracity.mode import OFFLINE, step_model
from veracity.offline.calibration.confidence import Calibrator
from veracity.offline.calibration.risk import DEFAULT_MIN_PRECISION, RiskControl
from veracity.run.checker import Checker

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

MIN_ROWS = 200
"""Judged rows below which no calibration is fitted: each half then holds under a hundred verdicts, and
Learn-then-Test needs dozens of verdicts of a label above a threshold to certify anything."""
ALL_ROWS = "all"
"""The group of rows that name none."""


class TooFewRows(InputError):
    """The labelled data is too small to certify anything; the message says how many rows are needed."""


@dataclass
class Calibrated:
    """What `calibrate` produced: the file, its card and diagram, and the figures behind them."""

    calibration: CalibrationFile
    fitted: Fitted
    judged: list[JudgedRow]
    paths: dict[str, Path] = field(default_factory=dict)


def judge_rows_of(dataset: Dataset) -> tuple[JudgeRow, ...]:
    """The dataset's rows, which must be judge rows ({claim, evidence, label})."""
    if dataset.kind != "judge":
        raise InputError(f"{dataset.path}: calibration needs judge rows {{claim, evidence, label}}; "
                         f"this file holds {dataset.kind} rows")
    return tuple(row for row in dataset.rows if isinstance(row, JudgeRow))


def check_enough(rows: int, what: str = "labelled rows") -> None:
    """Refuse (`TooFewRows`) below `MIN_ROWS`, saying how many are needed."""
    if rows < MIN_ROWS:
        raise TooFewRows(f"{rows} {what}: a calibration needs at least {MIN_ROWS} (half to fit the confidence "
                         f"model, half to certify its thresholds); add {MIN_ROWS - rows} more")


def table_of(judged: list[JudgedRow], names: tuple[str, ...]) -> tuple[Table, np.ndarray, np.ndarray]:
    """The judged rows (failed ones left out) as a `Table`, with each row's group and half."""
    kept = [row for row in judged if row.label != FAILED]
    table = Table("calibration", [row.claim for row in kept], np.array([row.gold for row in kept]),
                  np.array([row.label for row in kept]),
                  np.array([[row.signals[name] for name in names] for row in kept]).reshape(len(kept), len(names)),
                  names)
    groups = np.array([row.group or ALL_ROWS for row in kept])
    halves = np.array([half_of(row.claim) for row in kept])
    return table, groups, halves


def fit(judged: list[JudgedRow], judge: JudgeIdentity, record: dict[str, Any],
        say: Callable[[str], None] | None = None) -> tuple[CalibrationFile, Fitted]:
    """Fit and certify on judged rows; the calibration file (not yet written) and the fit's figures."""
    names = signal_names(judge.kind)
    table, groups, halves = table_of(judged, names)
    check_enough(len(table.raw), "rows with a verdict")
    fitted = fit_and_certify(table, groups, halves, delta=DELTA, default_target=DEFAULT_MIN_PRECISION, say=say)
    risk = RiskControl.from_dict({"delta": DELTA, "levels": list(LEVELS), "thresholds": fitted.thresholds})
    record = {**record, "rows": len(judged), "judged": len(table.raw), "failed": len(judged) - len(table.raw),
              "groups": {str(g): int((groups == g).sum()) for g in np.unique(groups)},
              "fit_rows": int((halves == "fit").sum()), "certify_rows": int((halves == "certify").sum()),
              "signals": list(names), **fitted.report}
    return CalibrationFile(judge, Calibrator(fitted.models), risk, record), fitted


def prepare_judge(mode: EvalMode, model: BaseChatModel | str | None,
                  settings: dict[str, Any]) -> tuple[Context, Checker, JudgeIdentity]:
    """The settings (no calibration applied), the checker and the identity of the judge to calibrate.

    `mode` is 'offline', 'llm' or 'auto' as for `veracity eval`; `model` a name or a chat model object.
    """
    chosen = model_setting(mode, model)
    context = Context.from_settings(**{**settings, "calibration": CALIBRATION_OFF,
                                       **({"model": chosen} if isinstance(chosen, str) else {})})
    checker = Checker(model=None if isinstance(chosen, str) else chosen)
    judge_model = step_model(context, checker.resources.mode(context), "judge")
    return context, checker, judge_identity(context, judge_model)


async def judge_all(rows: tuple[JudgeRow, ...], judge: JudgeIdentity, context: Context, checker: Checker, *,
                    concurrency: int, on_row: Callable[[], None] | None = None) -> list[JudgedRow]:
    """Every row judged by `judge` (see `judging`)."""
    if judge.model == OFFLINE:
        return await asyncio.to_thread(judge_offline, rows, on_row)
    evaluator = RowEvaluator(checker, context, tags=["veracity-calibrate"])
    evaluator.preflight(rows)
    return await judge_with_chat_model(rows, evaluator, concurrency=concurrency, on_row=on_row)


async def acalibrate(dataset: str | Path | Dataset, *, mode: EvalMode = "auto",
                     model: BaseChatModel | str | None = None,
                     out: Path | None = None, concurrency: int = 4,
                     on_progress: Callable[[int, int], None] | None = None,
                     say: Callable[[str], None] | None = None, **settings: Any) -> Calibrated:
    """Calibrate the configured judge on a labelled judge-row file and write the file and its card.

    `out`: the calibration file to write (default: the data folder, named for the judge, where
    checks find it). Raises `TooFewRows` (with how many are needed), `InputError` for a bad file,
    `ConfigurationError` when the judge is not set up, `CalibrationWriteError` when a file to write is a
    symbolic link or no regular file (before any row is judged) or cannot be written.
    """
    data = dataset if isinstance(dataset, Dataset) else load_dataset(dataset)
    rows = judge_rows_of(data)
    check_enough(len(rows))
    context, checker, judge = prepare_judge(mode, model, settings)
    path = out or default_path(judge)
    check_targets(path, path.with_suffix(".md"), path.with_suffix(".png"))
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if on_progress is not None:
            on_progress(done, len(rows))

    judged = await judge_all(rows, judge, context, checker, concurrency=concurrency, on_row=tick)
    record = {"dataset": str(data.path), "sha256": data.sha256,
              "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
              "command": "veracity calibrate"}
    calibration, fitted = fit(judged, judge, record, say)
    calibration = CalibrationFile(calibration.judge, calibration.calibrator, calibration.risk, calibration.record,
                                  calibration.write(path))
    from veracity.calibrate.card import write_card

    table, _, halves = table_of(judged, signal_names(judge.kind))
    paths = {"calibration": path, **write_card(calibration, fitted, table, halves, path)}
    return Calibrated(calibration, fitted, judged, paths)


def calibrate(dataset: str | Path | Dataset, **kwargs: Any) -> Calibrated:
    """Synchronous `acalibrate` (same arguments)."""
    from veracity.run.blocking import run_blocking

    return run_blocking(acalibrate(dataset, **kwargs))

