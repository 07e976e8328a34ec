"""`StalledModels`: a model call past its limit marks the model stalled for the check, unless it answered meanwhile."""

from __future__ import annotations

import asyncio

import pytest

from veracity.llm.stalls import ModelStalled, ModelTimeout, StalledModels
from veracity.run_scope import RunScope as Run

SUBJECT = "the model endpoint http://127.0.0.1:9/v1"
LIMIT = 0.2
HANG = 30.0
"""A call that never answers (the limit ends it long before)."""


class HttpError(Exception):
    """An answer with an error status, as the OpenAI client raises it."""

    status_code = 500


async def test_a_call_past_its_limit_stalls_the_model_for_the_rest_of_the_check() -> None:
    stalls, run, other_run = StalledModels(), Run(), Run()
    with pytest.raises(ModelTimeout, match=r"did not answer within 0.2 s .*not asked again in this check"):
        async with stalls.call(run, "model", subject=SUBJECT, seconds=LIMIT):
            await asyncio.sleep(HANG)
    sent: list[str] = []
    with pytest.raises(ModelStalled, match="earlier in this check") as refused:
        async with stalls.call(run, "model", subject=SUBJECT, seconds=LIMIT):
            sent.append("request")
    assert sent == [] and SUBJECT in str(refused.value)
    async with stalls.call(other_run, "model", subject=SUBJECT, seconds=LIMIT):  # another check asks afresh
        sent.append("request")
    async with stalls.call(run, "other model", subject=SUBJECT, seconds=LIMIT):  # and so does another model
        sent.append("request")
    assert len(sent) == 2


@pytest.mark.parametrize("answer", ["reply", "error status"])
async def test_a_model_that_answers_another_call_meanwhile_is_busy_not_stalled(answer: str) -> None:
    stalls, run = StalledModels(), Run()
    held = asyncio.Event()

    async def held_call() -> None:
        async with stalls.call(run, "model", subject=SUBJECT, seconds=LIMIT):
            held.set()
            await asyncio.sleep(HANG)

    async def answered_call() -> None:
        await held.wait()
        async with stalls.call(run, "model", subject=SUBJECT, seconds=LIMIT):
            if answer == "error status":
                raise HttpError("HTTP 500")

    results = await asyncio.gather(held_call(), answered_call(), return_exceptions=True)
    assert isinstance(results[0], ModelTimeout) and not isinstance(results[0], ModelStalled)
    assert "answered another call meanwhile" in str(results[0])
    assert stalls.stalled(run, "model") is None


async def test_an_error_of_the_call_itself_is_left_as_it_is() -> None:
    stalls, run = StalledModels(), Run()
    with pytest.raises(TimeoutError, match="the client's own") as raised:
        async with stalls.call(run, "model", subject=SUBJECT, seconds=HANG):
            raise TimeoutError("the client's own")
    assert not isinstance(raised.value, ModelTimeout)
    assert stalls.stalled(run, "model") is None
