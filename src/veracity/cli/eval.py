"""Command-line interface: `veracity eval`, the judge's agreement with labelled data, and a CI gate."""

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
from veracity.evidence.capabilities import DEFAULT_SEARCHES

EXIT_GATE_PASSED = 0
EXIT_BELOW_MIN_SCORE = 1
EXIT_USAGE = 2

EVAL_HELP_EPILOG = """\b
Dataset rows (JSONL, one kind per file):
  judge rows       {"claim": ..., "evidence": "..." | [...], "label": L}
                   the judge and its gate rule on the given evidence
  pass rows        {"text": ..., "source": "...", "expected": {"pass": true}}
                   the whole check runs; with a source, against it only
  claims rows      {"text": ..., "expected": [{"claim": ..., "label": L}]}
                   the whole check runs; extracted claims are matched to
                   the expected ones by similarity, and unmatched claims
                   on either side count as errors
  L is supported, refuted or unverifiable. An optional "id" names a row.

\b
Metrics (--metric): balanced_accuracy (default), pass_score (mean row
score; a failed check scores 0), macro_f1, accuracy, and per label
precision:L, recall:L, f1:L (pass rows: L is pass or fail).

\b
Exit codes:
  0  evaluation complete (and the --min-score gate passed, if given)
  1  the metric's mean over runs is below --min-score
  2  bad dataset, option or configuration (each bad line is named)"""


def _fail(err: Console, headline: str, message: str) -> None:
    err.print(f"[bold red]{escape(headline)}:[/] {escape(message)}", highlight=False, soft_wrap=True)
    sys.exit(EXIT_USAGE)


@click.command(epilog=EVAL_HELP_EPILOG)
@click.argument("dataset", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--mode", type=click.Choice(["auto", "offline", "llm"]), default="auto", show_default=True,
              help="offline: the local judge. llm: a chat model (--model, default "
                   f"{DEFAULT_MODEL}). auto: as `veracity check` decides (LLM when OPENAI_API_KEY is set).")
@click.option("--runs", type=click.IntRange(1, 100), default=1, show_default=True,
              help="Repeat the evaluation N times and report mean ± standard deviation per metric.")
@click.option("--concurrency", "-j", type=click.IntRange(1, 64), default=4, show_default=True,
              help="Rows checked at once.")
@click.option("--min-score", type=click.FloatRange(0.0, 1.0), default=None, metavar="X",
              help="Exit 1 when the metric's mean over runs is below X (a CI gate).")
@click.option("--metric", default="balanced_accuracy", show_default=True, metavar="NAME",
              help="Metric for --min-score (see below).")
@click.option("--baseline", is_flag=True,
              help="Also score the similarity-threshold baseline (T=0.5, 0.6) on the same rows (judge rows only).")
@click.option("--match-threshold", type=click.FloatRange(0.0, 1.0), default=None, metavar="S",
              help="Least similarity for an extracted claim to match an expected one (claims rows; default 0.7).")
@settings_options("eval", searches=DEFAULT_SEARCHES, notes={
    "model": "Used with --mode llm or auto.",
    "search": "For end-to-end rows without a source (rows with one use only their source).",
    "cache": "Off anyway with --runs above 1.",
})
@click.option("--json", "as_json", is_flag=True, help="Print the full result as JSON (every row's outcome).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Also write the report to FILE: Markdown, or JSON when FILE ends in .json.")
@click.option("--langsmith", "use_langsmith", is_flag=True,
              help="Record the run as a LangSmith experiment (needs LANGSMITH_API_KEY).")
def eval_command(
    dataset: Path, mode: str, runs: int, concurrency: int, min_score: float | None, metric: str, baseline: bool,
    match_threshold: float | None, settings: dict[str, Any], as_json: bool, out_path: Path | None,
    use_langsmith: bool,
) -> None:
    """Measure the judge against labelled DATASET (JSONL) and optionally gate on a metric.

    \b
    Examples:
      veracity eval ../shared/benchmarks/factcheckgpt_pairs.dev.jsonl --mode offline --baseline
      veracity eval benchmarks/data/faithfulness.jsonl --metric pass_score --min-score 0.9
      veracity eval my_labels.jsonl --mode llm --runs 5 --out report.md

    Prints balanced accuracy, per-label precision/recall/F1, the confusion matrix, the mean
    pass score, judge failures (each scored 0), tokens and wall time, as Markdown (or JSON).
    See docs/calibration.md for choosing a threshold from your own labelled examples.
    """
    from veracity.evaluation.dataset import load_dataset
    from veracity.evaluation.formats import to_json, to_markdown
    from veracity.evaluation.rows import KIND_LABELS
    from veracity.evaluation.summary import gateable, metric_names

    err = Console(stderr=True)
    try:
        data = load_dataset(dataset)
    except InputError as exc:
        _fail(err, "bad dataset", str(exc))
    labels = KIND_LABELS[data.kind]
    if not gateable(metric, labels):
        _fail(err, "bad option", f"--metric {metric!r} is not one of: {', '.join(metric_names(labels))}")
    if baseline and data.kind != "judge":
        _fail(err, "bad option", "--baseline applies to judge rows {claim, evidence, label} only")
    if use_langsmith:
        from veracity.evaluation.langsmith import langsmith_problem

        problem = langsmith_problem()
        if problem:
            _fail(err, "--langsmith is not set up", problem)

    options: dict[str, Any] = dict(
        mode=mode, runs=runs, concurrency=concurrency, baseline=baseline,
        **({"match_threshold": match_threshold} if match_threshold is not None else {}), **settings,
    )
    err.print(f"[dim]veracity eval: {len(data.rows)} rows of {data.kind} data, {runs} run(s)[/]", highlight=False)
    try:
        with row_progress(err, "veracity eval") as on_progress:
            if use_langsmith:
                from veracity.evaluation.langsmith import arun_langsmith_eval

                result = asyncio.run(arun_langsmith_eval(data, on_progress=on_progress, **options))
            else:
                from veracity.evaluation.runner import arun_eval

                result = asyncio.run(arun_eval(data, on_progress=on_progress, **options))
    except ConfigurationError as exc:
        _fail(err, "not configured", str(exc))
    except (InputError, ValueError) as exc:
        _fail(err, "bad option", str(exc))

    try:
        gate = result.gate(metric, min_score) if min_score is not None else None
    except ValueError as exc:
        click.echo(to_json(result) if as_json else to_markdown(result), nl=as_json)
        _fail(err, "cannot gate", str(exc))
    if as_json:
        click.echo(to_json(result, gate))
    else:
        click.echo(to_markdown(result, gate), nl=False)
    if out_path is not None:
        from veracity.user_files import FileRefused, write_atomically

        text = to_json(result, gate) if out_path.suffix.lower() == ".json" else to_markdown(result, gate)
        try:
            write_atomically(out_path, text.encode("utf-8"))
        except FileRefused as exc:
            _fail(err, "cannot write the report", str(exc))
        except OSError as exc:
            _fail(err, "cannot write the report", f"{out_path}: {exc.strerror or exc}")
        err.print(f"[dim]report written to {escape(str(out_path))}[/]", highlight=False)
    if result.settings.get("langsmith_experiment"):
        err.print(f"LangSmith experiment: {result.settings['langsmith_experiment']}", highlight=False)
    if gate is not None:
        err.print(gate.describe(), style="green" if gate.passed else "bold red", highlight=False)
        sys.exit(EXIT_GATE_PASSED if gate.passed else EXIT_BELOW_MIN_SCORE)
