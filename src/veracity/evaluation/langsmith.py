"""Record an evaluation as a LangSmith experiment.

The dataset is uploaded once as a LangSmith dataset (named after the file and its content
hash, so an edited file becomes a new dataset). Each row then runs through the same
`RowEvaluator` as a local evaluation, as the experiment's target, so every check's trace
lands in the experiment. Per-row scores are LangSmith feedback; balanced accuracy is a
summary metric. The local report is built from the same outcomes.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever

from veracity.evaluation.dataset import Dataset, JudgeRow, Row
from veracity.evaluation.matching import DEFAULT_MATCH_THRESHOLD
from veracity.evaluation.metrics import balanced_accuracy
from veracity.evaluation.rows import FAILED, KIND_LABELS, RowOutcome, failed_outcome, gold_labels
from veracity.evaluation.runner import (
    DEFAULT_CONCURRENCY,
    EvalMode,
    ProgressCounter,
    baselines_for,
    describe_settings,
    prepare,
)
from veracity.evaluation.summary import EvalResult, RunResult
from veracity.evidence.base import EvidenceBackend

SummaryEvaluator = Callable[[list[dict[str, Any]], list[dict[str, Any]]], dict[str, Any]]
"""A LangSmith summary evaluator: every row's outputs and reference outputs in, one score out."""

NO_OUTPUT = "the experiment recorded no output for this row"


def langsmith_problem() -> str | None:
    """Why `--langsmith` cannot run here, or None when an API key is configured."""
    if os.environ.get("LANGSMITH_API_KEY") or os.environ.get("LANGCHAIN_API_KEY"):
        return None
    return (
        "LANGSMITH_API_KEY is not set. Create an API key in LangSmith (Settings > API Keys) and export it; "
        "for a self-hosted LangSmith also set LANGSMITH_ENDPOINT. Without --langsmith the evaluation "
        "runs locally and needs no account."
    )


def dataset_name(dataset: Dataset) -> str:
    """The LangSmith dataset name for a file: its name and the first 12 hex digits of its hash."""
    return f"veracity-eval {dataset.name} {dataset.sha256[:12]}"


def unsent(row: Row) -> set[str]:
    """The fields of `row` its LangSmith example leaves out: its id (given apart), and an unset judge row group."""
    return {"id", "group"} if isinstance(row, JudgeRow) and not row.group else {"id"}


def upload_dataset(client: Any, dataset: Dataset) -> str:
    """Create the LangSmith dataset for `dataset` unless it exists; return its name."""
    name = dataset_name(dataset)
    if client.has_dataset(dataset_name=name):
        return name
    created = client.create_dataset(name, description=f"veracity eval rows from {dataset.path} ({dataset.kind})")
    examples = [
        {
            "inputs": {"row_id": row.id, **row.model_dump(mode="json", by_alias=True, exclude=unsent(row))},
            "outputs": {"labels": gold},
            "metadata": {"row_id": row.id, "kind": dataset.kind},
        }
        for row, gold in ((row, gold_labels(row, dataset.kind)) for row in dataset.rows)
    ]
    client.create_examples(dataset_id=created.id, examples=examples)
    return name


def _row_score(outputs: dict[str, Any]) -> dict[str, Any]:
    return {"key": "pass_score", "score": outputs.get("score", 0.0)}


def _row_failed(outputs: dict[str, Any]) -> dict[str, Any]:
    return {"key": "judge_failure", "score": int(bool(outputs.get("failed", True)))}


def _summary_balanced_accuracy(labels: tuple[str, ...]) -> SummaryEvaluator:
    def summary(outputs: list[dict[str, Any]], reference_outputs: list[dict[str, Any]]) -> dict[str, Any]:
        gold: list[str] = []
        predicted: list[str] = []
        for out, reference in zip(outputs, reference_outputs, strict=False):
            out = out or {}
            if "predicted" in out and "gold" in out:  # claims rows add unmatched items to the gold side
                gold += out["gold"]
                predicted += out["predicted"]
            else:  # the row produced no output: each expected item is a failure
                expected = reference.get("labels", [])
                gold += expected
                predicted += [FAILED] * len(expected)
        score = balanced_accuracy(gold, predicted, labels) if gold else None
        return {"key": "balanced_accuracy", "score": score}

    return summary


async def arun_langsmith_eval(
    dataset: Dataset,
    *,
    mode: EvalMode = "auto",
    model: BaseChatModel | str | None = None,
    backend: EvidenceBackend | BaseRetriever | None = None,
    runs: int = 1,
    concurrency: int = DEFAULT_CONCURRENCY,
    match_threshold: float = DEFAULT_MATCH_THRESHOLD,
    baseline: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
    tags: list[str] | None = None,
    client: Any = None,
    **settings: Any,
) -> EvalResult:
    """`arun_eval`, with the rows run as a LangSmith experiment (same arguments, plus a `client`)."""
    from langsmith import Client
    from langsmith.evaluation import aevaluate

    problem = langsmith_problem() if client is None else None
    if problem:
        from veracity.errors import ConfigurationError

        raise ConfigurationError(problem)
    dataset, evaluator, description = prepare(
        dataset, mode=mode, model=model, backend=backend, runs=runs, concurrency=concurrency,
        match_threshold=match_threshold, baseline=baseline, tags=tags, settings=settings,
    )
    client = client or Client()
    name = upload_dataset(client, dataset)
    rows = {row.id: row for row in dataset.rows}
    tick = ProgressCounter.for_eval(dataset, runs, baseline, on_progress)

    async def target(inputs: dict[str, Any]) -> dict[str, Any]:
        outcome = await evaluator.evaluate(rows[inputs["row_id"]], dataset.kind)
        tick()
        return outcome.to_dict()

    started = time.perf_counter()
    results = await aevaluate(
        target,
        data=name,
        evaluators=[_row_score, _row_failed],
        # LangSmith also accepts (outputs, reference_outputs) summary evaluators; its stubs list only (runs, examples)
        summary_evaluators=[_summary_balanced_accuracy(KIND_LABELS[dataset.kind])],  # type: ignore[list-item]
        experiment_prefix=f"veracity-{dataset.path.stem}",
        metadata={"veracity_runs_as": description, "veracity_dataset_sha256": dataset.sha256},
        max_concurrency=concurrency,
        num_repetitions=runs,
        client=client,
    )
    by_row: dict[str, list[RowOutcome]] = defaultdict(list)
    async for item in results:
        outputs = item["run"].outputs or {}
        example = item["example"]
        if example is None:
            raise RuntimeError("LangSmith returned an experiment run without its dataset example")
        row_id = (example.inputs or {})["row_id"]
        by_row[row_id].append(_outcome_from_outputs(row_id, outputs, rows[row_id], dataset))
    seconds_per_run = (time.perf_counter() - started) / runs  # repetitions interleave, so only the mean is known
    run_results = [
        RunResult(
            kind=dataset.kind,
            outcomes=[
                by_row[row.id][i] if i < len(by_row[row.id]) else failed_outcome(row, dataset.kind, NO_OUTPUT)
                for row in dataset.rows
            ],
            wall_seconds=seconds_per_run,
        )
        for i in range(runs)
    ]
    recorded = describe_settings(dataset, mode, description, runs, concurrency, match_threshold)
    recorded["langsmith_experiment"] = getattr(results, "experiment_name", None)
    return EvalResult(
        dataset=dataset, settings=recorded, runs=run_results,
        baselines=await baselines_for(dataset, on_row=tick) if baseline else {},
    )


def _outcome_from_outputs(row_id: str, outputs: dict[str, Any], row: Row, dataset: Dataset) -> RowOutcome:
    if "predicted" not in outputs:  # the target raised inside LangSmith's runner
        return failed_outcome(row, dataset.kind, outputs.get("error", NO_OUTPUT))
    fields = {k: outputs[k] for k in ("gold", "predicted", "score", "failures", "tokens_in", "tokens_out",
                                      "seconds", "detail") if k in outputs}
    return RowOutcome(row_id=row_id, **fields)
