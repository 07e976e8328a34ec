"""The model chosen per step: a local splitter with an LLM judge, and an LLM splitter with the offline judge."""

from __future__ import annotations

from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.context import Context
from veracity.contracts import Report
from veracity.graph import build_graph
from veracity.resources import OFFLINE, Mode, models_used

CLAIM = "Canberra is the capital of Australia."


async def _check(world: FakeWorld, context: Context) -> tuple[Report, int, int]:
    model = world.model()
    graph = build_graph(model=model, backend=world.backend())
    output = await graph.ainvoke({"text": CLAIM}, context=context)
    extractions = model.calls_matching("Text to split into claims")
    return output["report"], extractions, len(model.calls) - extractions


async def test_an_offline_splitter_with_an_llm_judge(world: FakeWorld) -> None:
    world.evidence(CLAIM, [hit(CLAIM)]).judge(CLAIM, verdict_reply("supported", "c1-e1", CLAIM))
    report, extractions, judgements = await _check(world, Context(extract_model=OFFLINE, verify_pages=False))
    assert extractions == 0 and judgements == 1
    assert [claim.text for claim in report.claims] == [CLAIM]
    assert report.verdicts[0].label == "supported" and report.verdicts[0].reason == "scripted"
    assert report.model == "extract=offline, judge=custom:ScriptedChatModel"
    assert report.mode.startswith("offline/llm+") and report.judge_version is None


async def test_an_llm_splitter_with_the_offline_judge(world: FakeWorld) -> None:
    world.extract(claims_reply((CLAIM, CLAIM))).evidence(CLAIM, [hit(CLAIM)])
    report, extractions, judgements = await _check(world, Context(judge_model=OFFLINE, verify_pages=False))
    assert extractions == 1 and judgements == 0
    assert [claim.text for claim in report.claims] == [CLAIM]
    assert report.verdicts[0].reason != "scripted"  # the offline judge ruled
    assert report.model == "extract=custom:ScriptedChatModel, judge=offline"
    assert report.mode.startswith("llm/offline+") and report.judge_version is not None


def test_one_model_for_both_steps_reports_as_before() -> None:
    mode = Mode(model="openai:gpt-4.1-mini", search="kb")
    assert models_used(Context(), mode) == ("llm+kb", "openai:gpt-4.1-mini")
    assert models_used(Context(judge_model="openai:gpt-4.1-mini"), mode) == ("llm+kb", "openai:gpt-4.1-mini")
    assert models_used(Context(extract_model=OFFLINE), mode) == (
        "offline/llm+kb", "extract=offline, judge=openai:gpt-4.1-mini")
