"""A check's total deadline: past it the report keeps what was finished and says what was not."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

import veracity
from tests.fakes import FakeWorld, claims_reply
from veracity.contracts import DeadlineFailure, SearchHit

FAST = "Canberra is the capital of Australia."
SLOW = "The Nile is the longest river in Africa."


class OneSlowSearch:
    """Answers every query at once, except the one about the Nile, which never answers."""

    name = "one-slow"

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        if "Nile" in query:
            await asyncio.sleep(3600)
        return [SearchHit(title="Australia", url="notes:australia", text="Canberra is the capital of Australia.")]


def test_a_stalled_claim_is_unverifiable_and_the_finished_one_keeps_its_verdict() -> None:
    # The offline models load before the clock starts, and the deadline leaves the finished claim far more
    # time than it needs (well under a second once loaded), so a busy machine does not decide the outcome.
    assert veracity.check(FAST, model="offline", backend=OneSlowSearch()).passed
    started = time.perf_counter()
    report = veracity.check(f"{FAST} {SLOW}", model="offline", backend=OneSlowSearch(), search_timeout=3600,
                            check_deadline=10)
    assert time.perf_counter() - started < 120  # a hang guard, not a speed target
    fast, slow = report.claims
    assert report.verdict_for(fast.id).label == "supported"
    assert report.verdict_for(slow.id).label == "unverifiable"
    assert "deadline of 10 s" in report.verdict_for(slow.id).reason
    [failure] = [f for f in report.failures if isinstance(f, DeadlineFailure)]
    assert failure.claims_not_judged == [slow.id] and failure.seconds == 10 and failure.unfinished
    assert not report.ok and not report.passed and report.outcome == "incomplete"
    assert [issue.code for issue in report.evaluation.issues] == ["deadline_exceeded"]
    assert report.summary.failures == len(report.failures)
    assert json.loads(report.model_dump_json())["failures"][-1]["kind"] == "deadline"


def test_a_deadline_during_extraction_gives_a_report_without_claims(world: FakeWorld) -> None:
    world.extract(claims_reply((FAST, FAST)))
    stalled = world.model(first_token_delay=3600.0)
    report = veracity.check(FAST, model=stalled, backend=world.backend(), model_timeout=3600, check_deadline=0.5)
    assert report.claims == [] and report.outcome == "incomplete"
    assert report.message is not None and "did not finish within 0.5 s" in report.message
    [failure] = report.failures
    assert isinstance(failure, DeadlineFailure) and failure.claims_not_judged == []


def test_a_check_within_its_deadline_is_untouched() -> None:
    report = veracity.check(FAST, model="offline", backend=OneSlowSearch(), check_deadline=60)
    assert report.failures == [] and report.passed


@pytest.mark.parametrize("seconds", [0, -1])
def test_the_deadline_must_be_positive(seconds: float) -> None:
    with pytest.raises(ValueError, match="check_deadline must be a positive"):
        veracity.Context(check_deadline=seconds)
