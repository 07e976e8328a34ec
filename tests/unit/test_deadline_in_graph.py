"""The graph keeps the check's deadline itself: `graph.ainvoke` (and Studio) end with the deadline report."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult

from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.context import Context
from veracity.contracts import DeadlineFailure, Report
from veracity.graph import build_graph
from veracity.testing import ScriptedChatModel, prompt_text

FAST = "Canberra is the capital of Australia."
SLOW = "The Nile is the longest river in Africa."


def _report(output: dict) -> Report:
    report = output["report"]
    assert isinstance(report, Report)
    return report


class StallsOnTheNile(ScriptedChatModel):
    """A scripted model that never answers the judge prompt about the Nile."""

    async def _agenerate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        if _CLAIM_NILE in prompt_text(messages):
            await asyncio.sleep(3600)
        return await super()._agenerate(messages, *args, **kwargs)


_CLAIM_NILE = f"Claim: {SLOW}"


async def test_a_slow_judge_ends_at_the_deadline_through_graph_ainvoke(world: FakeWorld) -> None:
    world.extract(claims_reply((FAST, FAST), (SLOW, SLOW)))
    world.evidence(FAST, [hit(FAST, url="notes:australia")]).evidence(SLOW, [hit(SLOW, url="notes:nile")])
    world.judge(FAST, verdict_reply("supported", "c1-e1", FAST))
    world.judge(SLOW, verdict_reply("supported", "c2-e1", SLOW))
    graph = build_graph(model=StallsOnTheNile(responder=world.respond), backend=world.backend())
    context = Context(check_deadline=1.5, model_timeout=3600, verify_pages=False)
    started = time.perf_counter()
    output = await graph.ainvoke({"text": f"{FAST} {SLOW}"}, context=context)
    assert time.perf_counter() - started < 30  # a hang guard, not a speed target
    report = _report(output)
    fast, slow = report.claims
    assert report.verdict_for(fast.id).label == "supported"
    assert report.verdict_for(slow.id).label == "unverifiable"
    assert "deadline of 1.5 s" in report.verdict_for(slow.id).reason
    [failure] = report.failures
    assert isinstance(failure, DeadlineFailure)
    assert failure.claims_not_judged == [slow.id] and failure.unfinished == ["check_claim"] and failure.seconds == 1.5
    assert [issue.code for issue in report.evaluation.issues] == ["deadline_exceeded"]
    assert report.outcome == "incomplete" and report.revisions == 0


async def test_a_stalled_extraction_ends_at_the_deadline_without_a_retry(world: FakeWorld) -> None:
    world.extract(claims_reply((FAST, FAST)))
    model = world.model(first_token_delay=3600.0)
    graph = build_graph(model=model, backend=world.backend())
    output = await graph.ainvoke({"text": FAST}, context=Context(check_deadline=0.5, model_timeout=3600))
    report = _report(output)
    assert report.claims == [] and report.outcome == "incomplete"
    [failure] = report.failures
    assert isinstance(failure, DeadlineFailure) and failure.unfinished == ["extract_claims"]
    assert report.message is not None and "did not finish within 0.5 s" in report.message
    assert len(model.calls) == 1  # the gate did not ask again after the deadline


async def test_a_context_reused_for_a_new_check_gets_the_whole_deadline_again(world: FakeWorld) -> None:
    world.extract(claims_reply((FAST, FAST))).evidence(FAST, [hit(FAST)])
    world.judge(FAST, verdict_reply("supported", "c1-e1", FAST))
    graph = build_graph(model=world.model(first_token_delay=1.0), backend=world.backend())
    context = Context(check_deadline=5, verify_pages=False)
    for _ in range(3):  # 3 checks of about 2 s each: only a clock that restarts lets the last one finish
        report = _report(await graph.ainvoke({"text": FAST}, context=context))
        assert report.failures == [] and report.passed

