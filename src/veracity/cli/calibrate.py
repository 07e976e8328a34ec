"""Command-line interface: `veracity calibrate`, risk control for the configured judge on the user's labelled rows."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape

from veracity.cli.row_progress import row_progress
from veracity.cli.settings import settings_options
from veracity.context import DEFAULT_MODEL
from veracity.errors import ConfigurationError, InputError

EXIT_USAGE = 2
NEEDED = ("sklearn", "mapie", "matplotlib")
"""What fitting and the card need beyond a plain install (the ``calibrate`` extra)."""

CALIBRATE_HELP_EPILOG = """\b
Rows (JSONL), the judge rows `veracity eval` reads:
  {"claim": ..., "evidence": "..." | ["...", {"text": ..., "title": ...}],
   "label": "supported" | "refuted" | "unverifiable", "group": "..."}
  "group" (optional) names where a row comes from (a dataset, a domain):
  groups weigh the same, and each must reach the target precision.

\b
What it writes (default: the data folder, named for the judge, where
every check of that judge finds it; or --out FILE):
  FILE.json  the calibrator and certified thresholds, with their record
  FILE.md    the card: rows, AUC, ECE, thresholds and coverage per target
  FILE.png   the reliability diagram

\b
Exit codes:
  0  calibration written
  2  bad file, too few rows, missing extra, or the judge is not set up"""


def _fail(err: Console, headline: str, message: str) -> None:
    err.print(f"[bold red]{escape(headline)}:[/] {escape(message)}", highlight=False, soft_wrap=True)
    sys.exit(EXIT_USAGE)


def _missing_extra() -> list[str]:
    import importlib.util

    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


@click.command(epilog=CALIBRATE_HELP_EPILOG)
@click.argument("dataset", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--mode", type=click.Choice(["auto", "offline", "llm"]), default="auto", show_default=True,
              help="offline: the local judge. llm: a chat model (--model, default "
                   f"{DEFAULT_MODEL}; --judge-model for the judge alone). auto: as `veracity check` decides.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Write the calibration here (and FILE.md, FILE.png beside it) instead of the data folder; "
                   "checks then use it with --calibration FILE.")
@click.option("--concurrency", "-j", type=click.IntRange(1, 64), default=4, show_default=True,
              help="Rows a chat model judges at once.")
@settings_options("calibrate")
def calibrate_command(dataset: Path, mode: str, out_path: Path | None, concurrency: int,
                      settings: dict[str, Any]) -> None:
    """Measure how often the configured judge is right on labelled DATASET, and certify when it may be decisive.

    \b
    Examples:
      veracity calibrate my_labels.jsonl --mode offline
      veracity calibrate my_labels.jsonl --model openai:gpt-4.1-mini
      veracity calibrate my_labels.jsonl --mode offline --out domain.json
      veracity check "..." --calibration domain.json

    Runs the judge on every row, fits the probability that each of its labels is right from
    signals of the judgement, and certifies per target precision (Learn-then-Test) the
    confidence a supported or refuted verdict needs. Checks with this judge then show
    confidences and hold uncertain verdicts back as leans. Needs at least 200 rows.
    """
    from veracity.calibrate.runner import acalibrate
    from veracity.calibration.file import CalibrationWriteError

    err = Console(stderr=True)
    missing = _missing_extra()
    if missing:
        _fail(err, "missing packages", f"{', '.join(missing)}: install them with pip install 'veracity[calibrate]'")
    if "calibration" in settings:
        _fail(err, "bad option", "calibrate measures the judge without a calibration: leave calibration unset")
    try:
        with row_progress(err, "veracity calibrate") as on_progress:

            def say(line: str) -> None:
                err.print(f"[dim]{escape(line)}[/]", highlight=False)

            result = asyncio.run(acalibrate(dataset, mode=mode, out=out_path, concurrency=concurrency,  # type: ignore[arg-type]
                                            on_progress=on_progress, say=say, **settings))
    except CalibrationWriteError as exc:
        _fail(err, "cannot write", str(exc))
    except ConfigurationError as exc:
        _fail(err, "not configured", str(exc))
    except InputError as exc:
        _fail(err, "cannot calibrate", str(exc))
    except ValueError as exc:
        _fail(err, "bad option", str(exc))
    calibration = result.calibration
    record = calibration.record
    click.echo(f"calibrated {calibration.judge.describe()} on {record['judged']} rows "
               f"({record['failed']} without a verdict)")
    for target in (0.8, 0.9, 0.95):
        cells = []
        for label in ("supported", "refuted"):
            threshold = calibration.risk.threshold(label, target)
            cells.append(f"{label} needs {'none certified' if threshold is None else f'{threshold:.2f}'}")
        click.echo(f"  precision {target:.2f}: " + ", ".join(cells))
    for kind, path in result.paths.items():
        click.echo(f"{kind}: {path}")
    if out_path is not None:
        click.echo(f"use it: veracity check ... --calibration {out_path}")

