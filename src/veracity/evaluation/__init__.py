"""Measure veracity against labelled data: `run_eval` / `arun_eval`, `assert_eval` for tests.

See `veracity eval --help` for the dataset formats and metrics, and docs/calibration.md for
choosing a threshold.
"""

from __future__ import annotations

from veracity.evaluation.dataset import Dataset, DatasetError, load_dataset
from veracity.evaluation.gate import assert_eval
from veracity.evaluation.runner import arun_eval, run_eval
from veracity.evaluation.summary import EvalResult, Gate, MetricSpread, RunResult

__all__ = [
    "Dataset", "DatasetError", "EvalResult", "Gate", "MetricSpread", "RunResult", "arun_eval", "assert_eval",
    "load_dataset", "run_eval",
]
