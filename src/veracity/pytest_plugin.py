"""A pytest plugin (loaded automatically when veracity is installed): the `veracity_eval` fixture."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def veracity_eval() -> Callable[..., Any]:
    """`veracity.evaluation.assert_eval`: run an evaluation and fail the test below a minimum score.

    Example::

        def test_answers_stay_within_policy(veracity_eval):
            veracity_eval("evals/faithfulness.jsonl", metric="pass_score", min_score=0.9, mode="offline")
    """
    from veracity.evaluation.gate import assert_eval

    return assert_eval
