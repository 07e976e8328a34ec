"""The evaluation as an assertion, for users' own test suites."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from veracity.evaluation.dataset import Dataset
from veracity.evaluation.formats import to_markdown
from veracity.evaluation.runner import run_eval
from veracity.evaluation.summary import DEFAULT_METRIC, EvalResult


def assert_eval(
    dataset: Dataset | str | Path, *, min_score: float, metric: str = DEFAULT_METRIC, **options: Any,
) -> EvalResult:
    """Run `veracity eval` on `dataset` and fail with the full report when `metric` is below `min_score`.

    The metric's mean over `runs` is compared, as on the command line. Other keyword options
    are those of `run_eval` (mode, model, backend, runs, concurrency, Context settings).
    Returns the result when the gate passes, for further assertions::

        from veracity.evaluation import assert_eval

        def test_support_bot_stays_within_policy():
            assert_eval("evals/faithfulness.jsonl", metric="pass_score", min_score=0.9)
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this one
    result = run_eval(dataset, **options)
    gate = result.gate(metric, min_score)
    if not gate.passed:
        raise AssertionError(f"{result.dataset.name}: {gate.describe()}\n\n{to_markdown(result, gate)}")
    return result
