"""The tree of runs one offline check traces, under `graph.invoke` and `graph.ainvoke`: what LangSmith would show.

Every chain run's name, indented under its parent, as a callback handler sees them start. Point
``PYTHONPATH`` at another worktree's ``src`` to compare a commit with the working tree::

    PYTHONPATH=/tmp/base/src .venv/bin/python benchmarks/run_tree.py > /tmp/tree-before.txt
    .venv/bin/python benchmarks/run_tree.py > /tmp/tree-after.txt
    diff /tmp/tree-before.txt /tmp/tree-after.txt

Runs under one parent are listed by name, so the output does not depend on timing.
"""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

import veracity
from veracity.context import Context
from veracity.graph import graph

TEXT = "Canberra is the capital of Australia. The Eiffel Tower is in Rome."
SOURCE = "Canberra is the capital city of Australia. The Eiffel Tower is in Paris."


class RunTree(BaseCallbackHandler):
    """Every chain and chat-model run started, with its parent."""

    def __init__(self) -> None:
        self.runs: dict[UUID, tuple[UUID | None, str]] = {}

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
                       **kwargs: Any) -> None:
        """Note a chain run."""
        self.runs[run_id] = (parent_run_id, kwargs.get("name") or (serialized or {}).get("name") or "?")

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
                            **kwargs: Any) -> None:
        """Note a chat-model run."""
        self.runs[run_id] = (parent_run_id, kwargs.get("name") or "chat model")

    def lines(self) -> list[str]:
        """The tree, one indented name per run."""
        children: dict[UUID | None, list[tuple[str, UUID]]] = {}
        for run_id, (parent, name) in self.runs.items():
            children.setdefault(parent, []).append((name, run_id))
        out: list[str] = []

        def walk(parent: UUID | None, depth: int) -> None:
            for name, run_id in sorted(children.get(parent, []), key=lambda child: child[0]):
                out.append("  " * depth + name)
                walk(run_id, depth + 1)

        walk(None, 0)
        return out


def main() -> None:
    """Print the tree of one check under each API."""
    print(f"veracity from {veracity.__file__}")
    for api in ("invoke", "ainvoke"):
        tree = RunTree()
        config: Any = {"callbacks": [tree]}
        if api == "invoke":
            result = graph.invoke({"text": TEXT}, config, context=Context(source_text=SOURCE))
        else:
            result = asyncio.run(graph.ainvoke({"text": TEXT}, config, context=Context(source_text=SOURCE)))
        lines = tree.lines()
        print(f"== graph.{api}: {result['report'].summary.claims} claims, {len(lines)} runs")
        print("\n".join(lines))


if __name__ == "__main__":
    main()
