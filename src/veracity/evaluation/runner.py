"""Run an evaluation: every row of a dataset, `runs` times, with bounded concurrency."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever

from veracity.context import DEFAULT_MODEL, Context
from veracity.evaluation.dataset import Dataset, JudgeRow, Row, load_dataset
from veracity.evaluation.matching import DEFAULT_MATCH_THRESHOLD
from veracity.evaluation.metrics import ClassificationResult
from veracity.evaluation.rows import RowEvaluator, RowOutcome
from veracity.evaluation.summary import EvalResult, RunResult
from veracity.evidence.base import EvidenceBackend
from veracity.mode import OFFLINE
from veracity.run.blocking import run_blocking
from veracity.run.checker import Checker

EvalMode = Literal["auto", "offline", "llm"]

DEFAULT_CONCURRENCY = 4

Progress = Callable[[int, int], None]
"""Called as `progress(done, total)` after each row of each run."""


class ProgressCounter:
    """Counts finished rows and reports `(done, total)` to an optional callback; call it once per row."""

    def __init__(self, total: int, on_progress: Progress | None) -> None:
        self.total = total
        self.done = 0
        self.on_progress = on_progress

    @classmethod
    def for_eval(cls, dataset: Dataset, runs: int, baseline: bool, on_progress: Progress | None) -> ProgressCounter:
        """A counter over every row of every run, plus one pass for the baseline when it is computed."""
        return cls(len(dataset.rows) * (runs + int(baseline)), on_progress)

    def __call__(self) -> None:
        """Count one finished row and report the progress."""
        self.done += 1
        if self.on_progress is not None:
            self.on_progress(self.done, self.total)


def model_setting(mode: EvalMode, model: BaseChatModel | str | None) -> BaseChatModel | str | None:
    """The model a run of `mode` uses: 'offline', `model` (default the standard one) for 'llm', or `model` for 'auto'.

    Raises ValueError when `mode` and `model` disagree, or for an unknown mode.
    """
    if mode == "offline":
        if model not in (None, OFFLINE):
            raise ValueError("mode 'offline' runs the local judge; leave the model out or use mode 'llm'")
        return OFFLINE
    if mode == "llm":
        if model == OFFLINE:
            raise ValueError("mode 'llm' needs a chat model, not 'offline'")
        return model or DEFAULT_MODEL
    if mode != "auto":
        raise ValueError(f"unknown mode {mode!r}; choose auto, offline or llm")
    return model


async def run_rows(
    evaluator: RowEvaluator, dataset: Dataset, *, concurrency: int, on_row: Callable[[], None] | None = None,
) -> RunResult:
    """One pass over the dataset; at most `concurrency` rows are checked at once."""
    limit = asyncio.Semaphore(concurrency)

    async def one(row: Row) -> RowOutcome:
        async with limit:
            outcome = await evaluator.evaluate(row, dataset.kind)
        if on_row is not None:
            on_row()
        return outcome

    started = time.perf_counter()
    outcomes = await asyncio.gather(*(one(row) for row in dataset.rows))
    return RunResult(kind=dataset.kind, outcomes=list(outcomes), wall_seconds=time.perf_counter() - started)


async def arun_eval(
    dataset: Dataset | str | Path,
    *,
    mode: EvalMode = "auto",
    model: BaseChatModel | str | None = None,
    backend: EvidenceBackend | BaseRetriever | None = None,
    runs: int = 1,
    concurrency: int = DEFAULT_CONCURRENCY,
    match_threshold: float = DEFAULT_MATCH_THRESHOLD,
    baseline: bool = False,
    on_progress: Progress | None = None,
    tags: list[str] | None = None,
    **settings: Any,
) -> EvalResult:
    """Evaluate veracity on a labelled dataset (a path or a loaded `Dataset`) and return every score.

    `mode`: 'offline' (local judge), 'llm' (a chat model: `model`, default the standard one)
    or 'auto' (as `veracity check` decides). `runs` repeats the whole evaluation to show the
    spread (the cache of model answers and searches is then off, so each run asks the model
    again); `concurrency` bounds rows checked at once. `baseline` adds the similarity-threshold
    baseline (judge datasets only). Other keyword settings are `Context` fields.
    Raises `DatasetError` for a bad file, `ConfigurationError` when a model or backend is not
    set up, and ValueError for bad options.
    """
    dataset, evaluator, description = prepare(
        dataset, mode=mode, model=model, backend=backend, runs=runs, concurrency=concurrency,
        match_threshold=match_threshold, baseline=baseline, tags=tags, settings=settings,
    )
    tick = ProgressCounter.for_eval(dataset, runs, baseline, on_progress)
    results = [await run_rows(evaluator, dataset, concurrency=concurrency, on_row=tick) for _ in range(runs)]
    return EvalResult(
        dataset=dataset,
        settings=describe_settings(dataset, mode, description, runs, concurrency, match_threshold),
        runs=results,
        baselines=await baselines_for(dataset, on_row=tick) if baseline else {},
    )


def prepare(
    dataset: Dataset | str | Path, *, mode: EvalMode, model: BaseChatModel | str | None,
    backend: EvidenceBackend | BaseRetriever | None, runs: int, concurrency: int, match_threshold: float,
    baseline: bool, tags: list[str] | None, settings: dict[str, Any],
) -> tuple[Dataset, RowEvaluator, str]:
    """Validate the options, load the dataset, and build a preflighted `RowEvaluator`.

    Returns the dataset, the evaluator and a description of what runs.
    """
    if runs < 1:
        raise ValueError("runs must be at least 1")
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if not 0.0 <= match_threshold <= 1.0:
        raise ValueError("match_threshold must be between 0 and 1")
    if not isinstance(dataset, Dataset):
        dataset = load_dataset(dataset)
    if baseline and dataset.kind != "judge":
        raise ValueError("the similarity baseline applies to judge datasets ({claim, evidence, label} rows) only")
    if runs > 1:
        settings = {**settings, "cache": False}  # repeated runs measure the model's spread, not the cache's
    chosen = model_setting(mode, model)
    if isinstance(chosen, str):
        settings = {**settings, "model": chosen}
        chosen = None
    context = Context.from_settings(**settings)
    checker = Checker(model=chosen, backend=backend)
    evaluator = RowEvaluator(checker, context, match_threshold=match_threshold, tags=tags)
    return dataset, evaluator, evaluator.preflight(dataset.rows)


def describe_settings(
    dataset: Dataset, mode: EvalMode, description: str, runs: int, concurrency: int, match_threshold: float,
) -> dict[str, Any]:
    """The settings recorded with a result."""
    return {
        "mode": mode, "runs_as": description, "runs": runs, "concurrency": concurrency,
        "match_threshold": match_threshold if dataset.kind == "claims" else None,
    }


async def baselines_for(
    dataset: Dataset, *, on_row: Callable[[], None] | None = None
) -> dict[str, ClassificationResult]:
    """The similarity-threshold baselines on a judge dataset's rows (computed in a worker thread)."""
    from veracity.evaluation.baseline import similarity_baselines

    rows = tuple(row for row in dataset.rows if isinstance(row, JudgeRow))
    return await asyncio.to_thread(similarity_baselines, rows, on_row=on_row)


def run_eval(dataset: Dataset | str | Path, **kwargs: Any) -> EvalResult:
    """Synchronous `arun_eval` (same arguments); runs in a worker thread inside a running event loop."""
    return run_blocking(arun_eval(dataset, **kwargs))
