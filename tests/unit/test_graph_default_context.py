"""The plainest LangGraph calls, with no `context=`, run with `Context()`'s defaults (issue 37, item 1).

Studio, the LangGraph SDK and plain Python all may call the compiled graph without a context. Each run
then gets one `Context()`, seen by every node and subgraph of that run; a given context is kept, in the
per-claim branch too.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from tests.unit.kb_fixtures import demo_kb, demo_template  # noqa: F401  (fixtures)
from veracity.context import Context
from veracity.contracts import Report
from veracity.graph import build_graph
from veracity.kb import KnowledgeBase

CANBERRA = "Canberra is the capital of Australia."


@pytest.fixture
def default_kb(demo_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> KnowledgeBase:  # noqa: F811
    """The demo knowledge base on disk, where `Context()`'s default `kb_path` points ($VERACITY_KB)."""
    monkeypatch.setenv("VERACITY_KB", str(demo_kb.path))
    return demo_kb


def assert_supported(report: Any) -> None:
    assert isinstance(report, Report)
    assert [verdict.label for verdict in report.verdicts] == ["supported"], report.verdicts


def test_invoke_without_a_context_runs_offline_with_the_defaults(default_kb: KnowledgeBase) -> None:
    assert_supported(veracity.graph.invoke({"text": CANBERRA})["report"])


def test_ainvoke_without_a_context_runs_offline_with_the_defaults(default_kb: KnowledgeBase) -> None:
    assert_supported(asyncio.run(veracity.graph.ainvoke({"text": CANBERRA}))["report"])


def test_stream_without_a_context_ends_in_the_report(default_kb: KnowledgeBase) -> None:
    last = list(veracity.graph.stream({"text": CANBERRA}, stream_mode="values"))[-1]
    assert_supported(last["report"])


def rejected_quote_world() -> FakeWorld:
    """One claim whose every judge answer cites a quote the evidence lacks, so the gate asks again."""
    world = FakeWorld().extract(claims_reply((CANBERRA, CANBERRA)))
    world.evidence(CANBERRA, [hit(CANBERRA)])
    world.judge(CANBERRA, verdict_reply("supported", "c1-e1", "words that are nowhere in the evidence"))
    return world


def test_a_given_context_reaches_the_claim_branch_unchanged() -> None:
    world = rejected_quote_world()
    graph = build_graph(model=world.model(), backend=world.backend())
    graph.invoke({"text": CANBERRA}, context=Context(max_judge_attempts=1, max_revisions=0, verify_pages=False))
    assert world.judge_calls[CANBERRA] == 1  # the defaults (3 attempts) would have asked three times


def test_a_run_without_a_context_uses_the_defaults_in_the_claim_branch_too() -> None:
    world = rejected_quote_world()
    graph = build_graph(model=world.model(), backend=world.backend())
    graph.invoke({"text": CANBERRA})
    defaults = Context()
    assert world.judge_calls[CANBERRA] == defaults.max_judge_attempts * (1 + defaults.max_revisions)


@dataclass
class AgentSettings:
    """The settings of someone else's graph, which embeds the fact-check graph in one of its nodes."""

    user: str = "someone"


class AgentState(TypedDict, total=False):
    answer: str
    labels: list[str]


def test_the_graph_inside_another_graph_gets_its_own_defaults() -> None:
    world = FakeWorld().extract(claims_reply((CANBERRA, CANBERRA)))
    world.evidence(CANBERRA, [hit(CANBERRA)])
    world.judge(CANBERRA, verdict_reply("supported", "c1-e1", CANBERRA))
    factcheck = build_graph(model=world.model(), backend=world.backend())

    async def guard(state: AgentState, runtime: Runtime[AgentSettings]) -> AgentState:
        assert runtime.context.user == "someone"
        report = (await factcheck.ainvoke({"text": state["answer"]}))["report"]
        return {"labels": [verdict.label for verdict in report.verdicts]}

    builder = StateGraph(AgentState, context_schema=AgentSettings)
    builder.add_node("guard", guard)
    builder.add_edge(START, "guard")
    builder.add_edge("guard", END)
    agent = builder.compile()
    result = asyncio.run(agent.ainvoke({"answer": CANBERRA}, context=AgentSettings()))
    assert result["labels"] == ["supported"]
