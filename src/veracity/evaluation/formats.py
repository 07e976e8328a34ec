"""An evaluation as Markdown for people and as JSON for machines."""

from __future__ import annotations

import json
from typing import Any

from veracity.evaluation.dataset import KIND_DESCRIPTIONS
from veracity.evaluation.rows import FAILED
from veracity.evaluation.summary import COUNT_METRICS, SCORE_METRICS, EvalResult, Gate, MetricSpread

MAX_LISTED_ROWS = 25

_TITLES = {
    "balanced_accuracy": "balanced accuracy",
    "pass_score": "mean pass score",
    "macro_f1": "macro F1",
    "accuracy": "accuracy (plain; misleading on imbalanced labels)",
    "judge_failures": "judge failures (each scored 0)",
    "tokens_in": "tokens in",
    "tokens_out": "tokens out",
    "wall_seconds": "wall time (s)",
}


def _value(spread: MetricSpread, runs: int, *, integer: bool = False) -> str:
    number = "{:.0f}" if integer else "{:.3f}"
    text = number.format(spread.mean)
    if runs > 1:
        text += f" ± {number.format(spread.std)}"
    return text


def _matrix(labels: tuple[str, ...], matrix: list[list[int]]) -> list[str]:
    shown = [i for i, label in enumerate(labels) if label != FAILED or any(matrix[r][i] for r in range(len(labels)))]
    rows = [i for i in shown if labels[i] != FAILED]
    lines = [
        "| gold \\ predicted | " + " | ".join(labels[j] for j in shown) + " | total |",
        "|---|" + "---:|" * (len(shown) + 1),
    ]
    for i in rows:
        lines.append(f"| {labels[i]} | " + " | ".join(str(matrix[i][j]) for j in shown) + f" | {sum(matrix[i])} |")
    return lines


def _note(detail: dict[str, Any]) -> str:
    if "reason" in detail:
        return str(detail["reason"])
    if detail.get("not_supported"):
        return "; ".join(f"{item['label']}: {item['claim']}" for item in detail["not_supported"])
    mismatched = [m for m in detail.get("matches", []) if m["gold"] != m["predicted"]]
    return "; ".join(f"{m['expected'] or m['extracted']} ({m['gold']} vs {m['predicted']})" for m in mismatched)


def to_markdown(result: EvalResult, gate: Gate | None = None) -> str:
    """The report as Markdown.

    What ran, the scores (mean ± std over runs), per-label scores, the confusion matrix, the
    baselines, the gate, and the rows the judge got wrong.
    """
    runs = len(result.runs)
    spreads = result.aggregate
    dataset = result.dataset
    lines = [
        f"# veracity eval: {dataset.name}",
        "",
        f"- dataset: `{dataset.path}` ({len(dataset.rows)} rows, {KIND_DESCRIPTIONS[dataset.kind]}; "
        f"sha256 {dataset.sha256[:12]})",
        f"- ran as: {result.settings['runs_as']}",
        f"- runs: {runs}" + (" (mean ± sample standard deviation)" if runs > 1 else ""),
        "",
        "## Scores",
        "",
        "| metric | value |",
        "|---|---:|",
    ]
    for name in (*SCORE_METRICS, *COUNT_METRICS):
        if name in spreads:
            integer = runs == 1 and name in ("judge_failures", "tokens_in", "tokens_out")
            lines.append(f"| {_TITLES[name]} | {_value(spreads[name], runs, integer=integer)} |")

    labels = [label for label in result.labels if label != FAILED and f"recall:{label}" in spreads]
    if labels:
        lines += ["", "## Per label", "", "| label | precision | recall | F1 |", "|---|---:|---:|---:|"]
        for label in labels:
            cells = [_value(spreads[f"{kind}:{label}"], runs) for kind in ("precision", "recall", "f1")]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")

    matrix = result.summed_matrix()
    if matrix is not None:
        where = f", summed over {runs} runs" if runs > 1 else ""
        lines += ["", f"## Confusion matrix (rows: gold, columns: predicted{where})", ""]
        lines += _matrix(result.labels, matrix)

    if result.baselines:
        lines += [
            "", "## Similarity-threshold baseline (same rows, same run)", "",
            "| method | balanced accuracy | macro F1 |", "|---|---:|---:|",
        ]
        for name, baseline in result.baselines.items():
            present = [s.f1 for s in baseline.per_label.values() if s.support]
            lines.append(f"| {name} | {baseline.balanced_accuracy:.3f} | {sum(present) / len(present):.3f} |")

    if gate is not None:
        lines += ["", "## Gate", "", gate.describe()]

    wrong = [o for o in result.runs[0].outcomes if o.score < 1.0]
    if wrong:
        lines += [
            "", f"## Rows not fully right (run 1: {len(wrong)} of {len(result.runs[0].outcomes)})", "",
            "| row | gold | predicted | score | note |", "|---|---|---|---:|---|",
        ]
        for outcome in wrong[:MAX_LISTED_ROWS]:
            note = "; ".join(outcome.failures) or _note(outcome.detail)
            note = note.replace("|", "\\|").replace("\n", " ")[:160]
            lines.append(
                f"| {outcome.row_id} | {', '.join(outcome.gold)} | {', '.join(outcome.predicted)} | "
                f"{outcome.score:.2f} | {note} |"
            )
        if len(wrong) > MAX_LISTED_ROWS:
            lines.append(f"\n... and {len(wrong) - MAX_LISTED_ROWS} more (see --json for every row)")
    return "\n".join(lines) + "\n"


def to_dict(result: EvalResult, gate: Gate | None = None) -> dict[str, Any]:
    """Every number and every row outcome, JSON-ready."""
    return {
        "dataset": {
            "path": str(result.dataset.path), "kind": result.dataset.kind, "rows": len(result.dataset.rows),
            "sha256": result.dataset.sha256,
        },
        "settings": result.settings,
        "labels": list(result.labels),
        "aggregate": {
            name: {"mean": s.mean, "std": s.std, "min": s.min, "max": s.max, "values": list(s.values)}
            for name, s in result.aggregate.items()
        },
        "confusion_matrix": result.summed_matrix(),
        "runs": [
            {
                "metrics": run.metrics(),
                "classification": run.classification.to_dict() if run.classification else None,
                "outcomes": [outcome.to_dict() for outcome in run.outcomes],
            }
            for run in result.runs
        ],
        "baselines": {name: baseline.to_dict() for name, baseline in result.baselines.items()},
        "gate": None if gate is None else {
            "metric": gate.metric, "min_score": gate.min_score, "value": gate.value, "std": gate.std,
            "passed": gate.passed,
        },
    }


def to_json(result: EvalResult, gate: Gate | None = None) -> str:
    """`to_dict` as indented JSON."""
    return json.dumps(to_dict(result, gate), indent=2)
