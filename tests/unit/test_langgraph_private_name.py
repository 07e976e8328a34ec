"""The one private LangGraph name veracity uses, pinned: an upgrade that moves or changes it fails here, by name.

A node with a synchronous and an asynchronous body (`veracity.step_support.both_ways`) is LangGraph's
`RunnableCallable(func, afunc, name=..., trace=...)`: LangGraph's public API makes either a
synchronous node (run in a thread under `ainvoke`) or an async one (refused by `invoke`), never both.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from pathlib import Path

import veracity
from veracity.step_support.both_ways import both_ways

SOURCE = Path(veracity.__file__).parent
PRIVATE = "langgraph._internal._runnable.RunnableCallable"


def test_runnable_callable_is_where_both_ways_expects_it() -> None:
    try:
        from langgraph._internal._runnable import RunnableCallable
    except ImportError as missing:  # pragma: no cover - only on a LangGraph that moved it
        raise AssertionError(f"{PRIVATE} is gone from this LangGraph; veracity.step_support.both_ways needs a "
                             "replacement that gives a node both a sync and an async body") from missing
    parameters = inspect.signature(RunnableCallable).parameters
    missing = {"func", "afunc", "name", "trace"} - set(parameters)
    assert not missing, f"{PRIVATE} no longer takes {sorted(missing)}; update veracity.step_support.both_ways"


def test_a_both_ways_node_runs_under_invoke_and_ainvoke() -> None:
    async def node(state: dict[str, int]) -> dict[str, int]:
        await asyncio.sleep(0)
        return {"count": state["count"] + 1}

    runnable = both_ways(node, name="count")
    assert runnable.invoke({"count": 1}) == {"count": 2}
    assert asyncio.run(runnable.ainvoke({"count": 1})) == {"count": 2}


def test_no_other_module_imports_a_private_langgraph_name() -> None:
    importing = sorted(path.relative_to(SOURCE).as_posix() for path in SOURCE.rglob("*.py")
                       if re.search(r"^\s*from langgraph\._|^\s*import langgraph\._", path.read_text(encoding="utf-8"),
                                    re.MULTILINE))
    assert importing == ["step_support/both_ways.py"]
