"""The graph runs through LangGraph's synchronous API (`invoke`, `stream`, `batch`) as well as the async one.

Each synchronous run must give the report the async run gives for the same input: the same claims,
verdicts, evidence, evaluation and trace (less the seconds each step took).
"""

from __future__ import annotations

import asyncio
import contextvars
import signal
import threading
import time
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver

import veracity
from tests.fakes import FakeWorld, Rendezvous, claims_reply, hit, verdict_reply
from veracity.context import Context
from veracity.contracts import DeadlineFailure, Report
from veracity.graph import FactCheckGraph, build_graph
from veracity.progress import ProgressEvent
from veracity.run.checkpoints import serializer
from veracity.step_support.both_ways import run_on_bridge
from veracity.testing import ScriptedChatModel, prompt_text

CANBERRA = "Canberra is the capital of Australia."
SYDNEY = "Sydney is the capital of Australia."
MOON = "The moon has a library."
POLICY = "Returns within 14 days. Return shipping costs 5 dollars."
ANSWER = "You can return it within 30 days. Return shipping costs 5 dollars."
OFFLINE_SOURCE = Context(model="offline", source_text=POLICY)


def scripted_world() -> FakeWorld:
    """Three claims: one supported, one refuted, one with no evidence at all."""
    world = FakeWorld().extract(claims_reply((CANBERRA, CANBERRA), (SYDNEY, SYDNEY), (MOON, MOON)))
    world.evidence(CANBERRA, [hit(CANBERRA, url="notes:canberra")])
    world.evidence(SYDNEY, [hit(f"Not Sydney: {CANBERRA}", url="notes:sydney")])
    world.judge(CANBERRA, verdict_reply("supported", "c1-e1", CANBERRA))
    world.judge(SYDNEY, verdict_reply("refuted", "c2-e1", CANBERRA))
    return world


def scripted_graph(**model_options: Any) -> FactCheckGraph:
    world = scripted_world()
    return build_graph(model=world.model(**model_options), backend=world.backend())


def comparable(report: Report) -> dict[str, Any]:
    """The report as data, less what differs from run to run (how long each step took)."""
    data = report.model_dump(mode="json")
    for record in data["trace"]:
        record.pop("seconds")
    return data


def report_of(output: dict[str, Any]) -> Report:
    report = output["report"]
    assert isinstance(report, Report)
    return report


SCRIPTED = {"text": f"{CANBERRA} {SYDNEY} {MOON}"}
SCRIPTED_CONTEXT = Context(verify_pages=False)


def test_invoke_gives_the_report_ainvoke_gives() -> None:
    synchronous = report_of(scripted_graph().invoke(SCRIPTED, context=SCRIPTED_CONTEXT))
    asynchronous = report_of(asyncio.run(scripted_graph().ainvoke(SCRIPTED, context=SCRIPTED_CONTEXT)))
    assert [v.label for v in synchronous.verdicts] == ["supported", "refuted", "unverifiable"]
    assert comparable(synchronous) == comparable(asynchronous)


def test_the_package_graph_runs_through_invoke_offline() -> None:
    synchronous = report_of(veracity.graph.invoke({"text": ANSWER}, context=OFFLINE_SOURCE))
    asynchronous = report_of(asyncio.run(veracity.graph.ainvoke({"text": ANSWER}, context=OFFLINE_SOURCE)))
    assert [(v.label, v.leaning) for v in synchronous.verdicts] == [("unverifiable", "refuted"), ("supported", None)]
    assert comparable(synchronous) == comparable(asynchronous)


def test_stream_relays_the_progress_events_astream_relays() -> None:
    modes = ["custom", "values"]

    def kinds(chunks: list[tuple[str, Any]]) -> list[tuple[str, str | None]]:
        events = [chunk for mode, chunk in chunks if mode == "custom"]
        assert all(isinstance(event, ProgressEvent) for event in events)
        return sorted((event.kind, event.claim.text if event.claim else None) for event in events)

    synchronous = list(scripted_graph().stream(SCRIPTED, context=SCRIPTED_CONTEXT, stream_mode=modes))

    async def collect() -> list[tuple[str, Any]]:
        graph = scripted_graph()
        return [chunk async for chunk in graph.astream(SCRIPTED, context=SCRIPTED_CONTEXT, stream_mode=modes)]

    asynchronous = asyncio.run(collect())
    assert ("verdict", SYDNEY) in kinds(synchronous)
    assert kinds(synchronous) == kinds(asynchronous)
    final = [chunk for mode, chunk in synchronous if mode == "values"][-1]
    assert comparable(report_of(final)) == comparable(report_of(asynchronous[-1][1]))


def test_batch_gives_one_report_per_input_as_abatch_does() -> None:
    inputs = [{"text": ANSWER}, {"text": "Return shipping costs 5 dollars."}]
    graph = build_graph()
    synchronous = graph.batch(inputs, context=OFFLINE_SOURCE)
    asynchronous = asyncio.run(graph.abatch(inputs, context=OFFLINE_SOURCE))
    assert [report_of(output).summary.claims for output in synchronous] == [2, 1]
    assert [comparable(report_of(o)) for o in synchronous] == [comparable(report_of(o)) for o in asynchronous]


def test_invoke_judges_claims_in_parallel(world: FakeWorld) -> None:
    claims = [f"Fact number {n} is true." for n in range(1, 7)]
    world.extract(claims_reply(*[(claim, claim) for claim in claims]))
    for number, claim in enumerate(claims, start=1):
        world.evidence(claim, [hit(claim)])
        world.judge(claim, verdict_reply("supported", f"c{number}-e1", claim))
    searches, judgements = Rendezvous(len(claims)), Rendezvous(len(claims))
    graph = build_graph(model=world.model(meeting=judgements), backend=world.backend(meeting=searches))
    report = report_of(graph.invoke({"text": " ".join(claims)}, context=SCRIPTED_CONTEXT))
    assert report.summary.supported == 6
    assert searches.most_in_flight == len(claims), "the claims' searches did not run side by side"
    assert judgements.most_in_flight == len(claims), "the claims' judgements did not run side by side"


class StallsOnTheMoon(ScriptedChatModel):
    """Never answers the judge about the moon (the claim has evidence in this test)."""

    async def _agenerate(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
        if f"Claim: {MOON}" in prompt_text(messages):
            await asyncio.sleep(3600)
        return await super()._agenerate(messages, *args, **kwargs)


def test_invoke_ends_at_the_deadline_with_the_report_ainvoke_gives() -> None:
    def graph() -> FactCheckGraph:
        world = scripted_world().evidence(MOON, [hit(MOON, url="notes:moon")])
        world.judge(MOON, verdict_reply("supported", "c3-e1", MOON))
        return build_graph(model=StallsOnTheMoon(responder=world.respond), backend=world.backend())

    context = Context(check_deadline=2.0, model_timeout=3600, verify_pages=False)
    started = time.perf_counter()
    synchronous = report_of(graph().invoke(SCRIPTED, context=context))
    assert time.perf_counter() - started < 30  # a hang guard, not a speed target
    asynchronous = report_of(asyncio.run(graph().ainvoke(SCRIPTED, context=context)))
    [failure] = synchronous.failures
    assert isinstance(failure, DeadlineFailure) and failure.claims_not_judged == ["c3"]
    assert synchronous.verdict_for("c3").label == "unverifiable"  # type: ignore[union-attr]
    assert comparable(synchronous) == comparable(asynchronous)


def test_invoke_with_a_checkpointer_saves_the_run_and_reads_it_back() -> None:
    world = scripted_world()
    saver = InMemorySaver(serde=serializer())
    graph = build_graph(model=world.model(), backend=world.backend(), checkpointer=saver)
    config: RunnableConfig = {"configurable": {"thread_id": "sync"}}
    report = report_of(graph.invoke(SCRIPTED, config, context=SCRIPTED_CONTEXT))
    saved = graph.get_state(config)
    assert saved.next == () and comparable(saved.values["report"]) == comparable(report)
    fan_out = [step.next for step in graph.get_state_history(config) if "check_claim" in step.next]
    assert fan_out == [("check_claim",) * 3]
    branches = {item.config["configurable"]["checkpoint_ns"].split(":")[0] for item in saver.list(config)}
    assert branches == {"", "check_claim"}  # each claim's branch saved its own steps too


async def test_invoke_from_inside_a_running_event_loop() -> None:
    report = report_of(veracity.graph.invoke({"text": ANSWER}, context=OFFLINE_SOURCE))
    assert report.summary.claims == 2


def test_the_bridge_passes_results_errors_and_context_variables() -> None:
    seen: contextvars.ContextVar[str] = contextvars.ContextVar("seen")
    seen.set("the caller's")

    async def read() -> str:
        await asyncio.sleep(0)
        return seen.get()

    async def fail() -> None:
        raise ValueError("from the node")

    async def nested() -> str:  # a synchronous call made by a coroutine already on the bridge
        return run_on_bridge(read())

    assert run_on_bridge(read()) == "the caller's"
    assert run_on_bridge(nested()) == "the caller's"
    with pytest.raises(ValueError, match="from the node"):
        run_on_bridge(fail())


def test_a_caller_that_stops_waiting_cancels_the_node() -> None:
    cancelled = threading.Event()

    async def forever() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    def interrupt_soon() -> None:  # Ctrl-C: SIGINT to the main thread, blocked waiting for the node
        time.sleep(0.2)
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    threading.Thread(target=interrupt_soon).start()
    with pytest.raises(KeyboardInterrupt):
        run_on_bridge(forever())
    assert cancelled.wait(5)
