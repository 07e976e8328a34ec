"""`both_ways`: a coroutine node that runs under `invoke` and `ainvoke`, built on public LangChain and LangGraph names.

What it must keep: the node gets the `config` and `runtime` it asks for, a trace names each step once
(the node adds no run of its own, as a plain function node does not), and LangGraph still finds a subgraph
the node holds. No module of the package imports a private LangGraph name.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

import veracity
from veracity.step_support.both_ways import both_ways

SOURCE = Path(veracity.__file__).parent


class Count(TypedDict, total=False):
    count: int
    seen: str


@dataclass
class Settings:
    step: int = 1


class RunNames(BaseCallbackHandler):
    """The name of every chain run started, with its parent's id."""

    def __init__(self) -> None:
        self.runs: dict[UUID, tuple[UUID | None, str]] = {}

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
                       **kwargs: Any) -> None:
        self.runs[run_id] = (parent_run_id, kwargs.get("name") or "")

    def paths(self) -> list[str]:
        """Each run as the names from the root down to it, sorted."""
        def path(run_id: UUID | None) -> str:
            parent, name = self.runs[run_id] if run_id else (None, "")
            return f"{path(parent)}/{name}" if parent else name
        return sorted(path(run_id) for run_id in self.runs)


async def counting(state: Count, runtime: Runtime[Settings], config: RunnableConfig) -> Count:
    await asyncio.sleep(0)
    return {"count": state["count"] + runtime.context.step, "seen": config["metadata"]["langgraph_node"]}


def one_node_graph(node: Any) -> Any:
    builder = StateGraph(Count, context_schema=Settings)
    builder.add_node("count", node)
    builder.add_edge(START, "count")
    builder.add_edge("count", END)
    return builder.compile()


def test_a_node_runs_under_invoke_and_ainvoke_with_the_runtime_and_config_it_asks_for() -> None:
    graph = one_node_graph(both_ways(counting, name="count"))
    expected = {"count": 4, "seen": "count"}
    assert graph.invoke({"count": 1}, context=Settings(step=3)) == expected
    assert asyncio.run(graph.ainvoke({"count": 1}, context=Settings(step=3))) == expected


def test_a_node_that_asks_for_nothing_gets_the_state_only() -> None:
    async def plain(state: Count) -> Count:
        return {"count": state["count"] * 2}

    node = both_ways(plain, name="plain")
    assert node.invoke({"count": 2}) == {"count": 4}
    assert asyncio.run(node.ainvoke({"count": 2})) == {"count": 4}


def test_a_synchronous_node_is_left_as_it_is() -> None:
    def sync(state: Count) -> Count:
        return state

    assert both_ways(sync) is sync


def test_the_trace_names_each_step_once_as_for_a_plain_async_node() -> None:
    plain, bridged = RunNames(), RunNames()
    asyncio.run(one_node_graph(counting).ainvoke({"count": 1}, {"callbacks": [plain]}, context=Settings()))
    asyncio.run(one_node_graph(both_ways(counting, name="count")).ainvoke({"count": 1}, {"callbacks": [bridged]},
                                                                         context=Settings()))
    synchronous = RunNames()
    one_node_graph(both_ways(counting, name="count")).invoke({"count": 1}, {"callbacks": [synchronous]},
                                                              context=Settings())
    assert bridged.paths() == plain.paths() == synchronous.paths()
    assert "LangGraph/count" in plain.paths() and "LangGraph/count/count" not in plain.paths()


def test_langgraph_finds_the_subgraph_a_node_holds() -> None:
    inner = one_node_graph(counting)

    async def holding(state: Count, config: RunnableConfig) -> Count:
        result: Count = await inner.ainvoke(state, config)
        return result

    builder = StateGraph(Count, context_schema=Settings)
    builder.add_node("outer", both_ways(holding, name="outer"))
    builder.add_edge(START, "outer")
    builder.add_edge("outer", END)
    graph = builder.compile()
    assert [name for name, _ in graph.get_subgraphs()] == ["outer"]
    assert graph.invoke({"count": 1}, context=Settings(step=2))["count"] == 3


def test_the_package_graph_still_shows_its_claim_branch() -> None:
    from veracity.graph import graph

    assert [name for name, _ in graph.get_subgraphs()] == ["check_claim"]


def test_no_module_imports_a_private_langgraph_name() -> None:
    private = re.compile(r"\blanggraph\._")
    importing = sorted(path.relative_to(SOURCE).as_posix() for path in SOURCE.rglob("*.py")
                       if private.search(path.read_text(encoding="utf-8")))
    assert importing == []
