"""A run given no context runs with `Context()`'s defaults: the one place that fills it in for every node.

LangGraph hands each node the `context=` its caller passed, and None when the caller passed none:
`graph.invoke({"text": ...})`, a plain `stream`, LangGraph Studio and the SDK may all do that. Every
step of the fact-check graph reads its settings from that context, and the check's deadline clock is
kept per context object (`veracity.nodes.deadline`), so the context is filled in once per run, by the
compiled graph itself, before its first step: each node and subgraph of the run sees the same object.

A graph run inside another veracity run (the per-claim branch) keeps that run's context; one run
inside a graph of another kind, whose context is not a `Context`, gets the defaults.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, cast

from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import get_runtime
from langgraph.typing import InputT, OutputT, StateT

from veracity.context import Context


def run_context(given: Context | None) -> Context:
    """The context a run starts with: `given`, else the enclosing veracity run's, else `Context()`.

    A given context is passed on as it is, a dict too (LangGraph builds the `Context` from it, as from
    Studio's settings).
    """
    if given is not None:
        return given
    try:
        enclosing = getattr(get_runtime(), "context", None)
    except RuntimeError:  # not called from inside a run
        enclosing = None
    return enclosing if isinstance(enclosing, Context) else Context()


class DefaultContextGraph(CompiledStateGraph[StateT, Context, InputT, OutputT]):
    """A compiled graph whose runs without a context get one (`run_context`).

    `invoke`, `batch` and the event streams all run through `stream` or `astream`, so those two
    are the only entry points that need it.
    """

    def stream(self, *args: Any, context: Context | None = None, **kwargs: Any) -> Iterator[Any]:
        """LangGraph's `stream`, with the run's context filled in."""
        return super().stream(*args, context=run_context(context), **kwargs)

    def astream(self, *args: Any, context: Context | None = None, **kwargs: Any) -> AsyncIterator[Any]:
        """LangGraph's `astream`, with the run's context filled in."""
        return super().astream(*args, context=run_context(context), **kwargs)

    @classmethod
    def adopt(cls, graph: CompiledStateGraph[StateT, Context, InputT, OutputT],
              ) -> DefaultContextGraph[StateT, InputT, OutputT]:
        """`graph` (as `StateGraph.compile` returned it) turned into this class, in place, and returned."""
        # `compile` builds its own class, and copying one through `copy()` drops what `compile` set
        # afterwards (the stream mappers), so the compiled object itself changes class: this subclass
        # adds only the two methods above.
        graph.__class__ = cls
        return cast(DefaultContextGraph[StateT, InputT, OutputT], graph)
