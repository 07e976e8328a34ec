"""A calibration's card: what was measured, on what, and how well; with a reliability diagram.

Written beside the calibration file (``NAME.md`` and ``NAME.png``, each whole and never through a
symbolic link): the judge, the data (rows, groups, halves, failed rows), per label the out-of-fold
AUC and expected calibration error, the certified thresholds at the usual targets with the coverage
and precision they give on the certify half, and the reliability diagram (matplotlib, of the
``calibrate`` extra).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from veracity.calibrate.fitting import DECISIVE, LABELS, LEVELS, Fitted, Table, coverage_at
from veracity.calibration.file import CalibrationFile, write_file

CARD_TARGETS = (0.8, 0.85, 0.9, 0.95)
"""Target precisions the card lists."""


def _number(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None or value != value else f"{value:.{digits}f}"


def card_text(calibration: CalibrationFile, fitted: Fitted, coverage: dict[float, dict[str, Any]],
              diagram: str | None) -> str:
    """The card as Markdown."""
    record = calibration.record
    judge = calibration.judge
    lines = [
        f"# Calibration card: {judge.describe()}", "",
        "Written by `veracity calibrate`; the figures are its own.", "",
        "## Judge",
        f"- kind: {judge.kind}; model: `{judge.model}`",
        f"- judge prompt version: `{judge.prompt_version or 'n/a'}`; judge version: `{judge.judge_version}`",
        f"- signals: {', '.join(record.get('signals', []))}", "",
        "## Data",
        f"- file: `{record.get('dataset')}` (sha256 {str(record.get('sha256', ''))[:12]}), "
        f"written {record.get('created')}",
        f"- rows: {record.get('rows')}; with a verdict: {record.get('judged')}; the judge gave none: "
        f"{record.get('failed')} (left out)",
        f"- fit half: {record.get('fit_rows')} rows; certify half: {record.get('certify_rows')} rows (split by claim)",
        "- groups (weighted equally): " + ", ".join(f"{g} {n}" for g, n in record.get("groups", {}).items()), "",
        "## Calibration quality (5 folds grouped by claim, out of fold)", "",
        "| label the judge gave | verdicts | share right | AUC | ECE | L2 strength |", "|---|---:|---:|---:|---:|---:|",
    ]
    for label in LABELS:
        entry = fitted.report["calibrator"][label]
        pooled = entry["cross_validation"]["pooled_out_of_fold"]
        lines.append(f"| {label} | {pooled['rows']} | {_number(pooled['base_rate'], 2)} | {_number(pooled['auc'])} | "
                     f"{_number(pooled['ece'])} | {entry['strength']} |")
    lines += ["", "## Certified thresholds and what they leave decisive (certify half)", "",
              "| target precision | supported needs | refuted needs | decisive rows | coverage | precision |",
              "|---:|---:|---:|---:|---:|---:|"]
    for target, figures in coverage.items():
        index = LEVELS.index(target)
        cells = ["none" if fitted.thresholds[label][index] is None
                 else f"{fitted.thresholds[label][index]:.2f}" for label in DECISIVE]
        lines.append(f"| {target:.2f} | {cells[0]} | {cells[1]} | {figures['decisive']} | "
                     f"{figures['coverage']:.3f} | {_number(figures['precision'])} |")
    lines += ["", "\"none\": no threshold is certified at that precision, so that label is never decisive there.",
              f"Each certificate holds with probability {1 - calibration.risk.delta:.0%} for both labels together "
              "(Learn-then-Test, Hoeffding-Bentkus p-values, fixed-sequence testing), on data like these rows.", ""]
    lines += ["## Reliability diagram", "",
              f"![reliability]({diagram})" if diagram else "Not drawn: matplotlib is not installed "
              "(`pip install 'veracity[calibrate]'`).", ""]
    lines += ["## Limits",
              "- The guarantee holds for claims and evidence like these rows; other data may differ.",
              "- It holds for this judge only: another model, prompt or judge version needs its own calibration.",
              "- A lean is never a verdict: an unverifiable verdict that leans supported does not pass a text.", ""]
    return "\n".join(lines)


def draw_reliability(fitted: Fitted, title: str) -> bytes | None:
    """One panel per label: out-of-fold confidence against the share right, as PNG; None when matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(LABELS), figsize=(4.2 * len(LABELS), 4.2), constrained_layout=True)
    for axis, label in zip(axes, LABELS, strict=True):
        cv = fitted.report["calibrator"][label]["cross_validation"]
        bins = [b for b in cv["reliability"] if b["rows"]]
        axis.plot([0, 1], [0, 1], color="grey", linewidth=1, linestyle="--")
        axis.plot([b["confidence"] for b in bins], [b["right"] for b in bins], marker="o")
        for b in bins:
            axis.annotate(str(b["rows"]), (b["confidence"], b["right"]), textcoords="offset points",
                          xytext=(4, -10), fontsize=7)
        pooled = cv["pooled_out_of_fold"]
        axis.set_title(f"{label} (ECE {_number(pooled['ece'])}, {pooled['rows']} verdicts)")
        axis.set_xlabel("confidence (out of fold)")
        axis.set_ylabel("share right")
        axis.set_xlim(0, 1)
        axis.set_ylim(0, 1)
    figure.suptitle(title)
    drawing = io.BytesIO()
    figure.savefig(drawing, format="png", dpi=100)
    plt.close(figure)
    return drawing.getvalue()


def write_card(calibration: CalibrationFile, fitted: Fitted, table: Table, halves: np.ndarray,
               path: Path) -> dict[str, Path]:
    """Write the card (and its diagram) beside the calibration file at `path`; return what was written.

    Each is written whole and never through a symbolic link (`CalibrationWriteError` otherwise).
    """
    coverage = {target: coverage_at(fitted, table, halves, target) for target in CARD_TARGETS}
    diagram = path.with_suffix(".png")
    drawing = draw_reliability(fitted, f"Reliability: {calibration.judge.describe()}")
    if drawing is not None:
        write_file(diagram, drawing)
    card = write_file(path.with_suffix(".md"), card_text(calibration, fitted, coverage,
                                                         diagram.name if drawing is not None else None).encode("utf-8"))
    return {"card": card, **({"diagram": diagram} if drawing is not None else {})}
