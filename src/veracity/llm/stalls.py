"""A model call's time limit, and the models of a check that stalled: those are waited for once, not per attempt.

An endpoint can answer the probe's `GET /models` (so it is not dead) and still hold every chat
request open without answering. Each call is cut off after `model_timeout`. When no other call to
the same model answered while the cut-off one waited, the model is taken as stalled for the rest
of the check: its later calls (the gate's retries, other claims, revise rounds) raise
`ModelStalled` at once, without a request. So a stalled endpoint costs a check one
`model_timeout`, however many attempts and rounds it has. A model that answered another call
meanwhile is busy, not stalled (a local server working through a queue), and may be asked again.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from veracity.run_scope import RunKey, RunScope


class ModelTimeout(TimeoutError):
    """The chat model did not answer within the per-call limit (`Context.model_timeout`)."""


class ModelStalled(ModelTimeout):
    """The chat model stalled earlier in this check, so this call was not sent."""


@dataclass
class _CallsOfModel:
    """What one check has seen of one model's calls."""

    last_answer: float = -math.inf
    """When a call last got an answer (an HTTP error status counts), on the `StalledModels` clock."""
    stalled: str | None = None
    """Why the model is not asked again in this check, once a call of it stalled."""


def _answered(exc: BaseException) -> bool:
    """Whether a failed call still got an answer from the server (an HTTP error status, not a lost connection)."""
    return getattr(exc, "status_code", None) is not None


class StalledModels:
    """Per check (kept in the run's `RunScope`): each model's calls, and whether it stalled."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._models: RunKey[dict[object, _CallsOfModel]] = RunKey("calls by model")
        self._lock = threading.Lock()
        self._clock = clock

    def _calls(self, run: RunScope, model: object) -> _CallsOfModel:
        models = run.setdefault(self._models, dict)
        with self._lock:
            return models.setdefault(model, _CallsOfModel())

    def stalled(self, run: RunScope, model: object) -> str | None:
        """Why `model` is not asked again in the check of `run`, or None while it may be asked."""
        return self._calls(run, model).stalled

    @asynccontextmanager
    async def call(self, run: RunScope, model: object, *, subject: str, seconds: float) -> AsyncIterator[None]:
        """One call of `model` in the check of `run`, cut off after `seconds`.

        `subject` names the model in messages ('the model endpoint http://…/v1'). Raises
        `ModelStalled` at once when the model stalled earlier in the check, and `ModelTimeout` past
        `seconds`; the model is then marked stalled unless another of its calls answered meanwhile.
        """
        calls = self._calls(run, model)
        if calls.stalled is not None:
            raise ModelStalled(calls.stalled)
        started = self._clock()
        limit = asyncio.timeout(seconds)
        try:
            async with limit:
                yield
        except TimeoutError:
            if not limit.expired():
                raise  # a timeout of the call's own, not this limit's
            waited = f"{subject} did not answer within {seconds:g} s"
            if calls.last_answer > started:
                raise ModelTimeout(f"{waited} (model_timeout), though it answered another call meanwhile") from None
            calls.stalled = f"{waited} earlier in this check (model_timeout), so it was not asked again"
            raise ModelTimeout(f"{waited} (model_timeout; raise it for a slow model); it is not asked again in "
                               "this check") from None
        except Exception as exc:
            if _answered(exc):
                calls.last_answer = self._clock()
            raise
        calls.last_answer = self._clock()
