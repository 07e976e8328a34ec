"""A run given no context runs with `Context()`'s defaults: the one place that fills it in for every node.

It is also where each run gets a `RunScope` of its own.

LangGraph hands each node the `context=` its caller passed, and None when the caller passed none:
`graph.invoke({"text": ...})`, a plain `stream`, LangGraph Studio and the SDK may all do that. Every
step of the fact-check graph reads its settings from that context, so the context is filled in once
per run, by the compiled graph itself, before its first step: each node and subgraph of the run sees
the same object. The run's own values (its mode, its deadline, the models that stalled) live in a
`RunScope` carried in the run's config (`veracity.run_scope`), placed there at the same moment.

A graph run inside another veracity run (the per-claim branch) keeps that run's context and scope;
one run inside a graph of another kind, whose context is not a `Context`, gets the defaults and a
scope of its own.

LangGraph 1.2 offers no hook for either: a run given no context keeps None (or inherits an
enclosing graph's context), and no node can add to the config its siblings see. The compiled
graph's two entry points are the one place every run passes, so `DefaultContextGraph` overrides
them, and `adopt` gives the object `compile` built that class (`compile` takes no class to build).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import get_runtime
from langgraph.typing import InputT, OutputT, StateT

from veracity.context import Context
from veracity.run_scope import with_run_scope


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
    """A compiled graph whose runs without a context get one (`run_context`), and each run its `RunScope`.

    `invoke`, `batch` and the event streams all run through `stream` or `astream`, so those two
    are the only entry points that need it.
    """

    def stream(self, input: Any, config: RunnableConfig | None = None, *, context: Context | None = None,
               **kwargs: Any) -> Iterator[Any]:
        """LangGraph's `stream`, with the run's context filled in and its scope in its config."""
        return super().stream(input, with_run_scope(config), context=run_context(context), **kwargs)

    def astream(self, input: Any, config: RunnableConfig | None = None, *, context: Context | None = None,
                **kwargs: Any) -> AsyncIterator[Any]:
        """LangGraph's `astream`, with the run's context filled in and its scope in its config."""
        return super().astream(input, with_run_scope(config), context=run_context(context), **kwargs)

    @classmethod
    def adopt(cls, graph: CompiledStateGraph[StateT, Context, InputT, OutputT],
              ) -> DefaultContextGraph[StateT, InputT, OutputT]:
        """`graph` (as `StateGraph.compile` returned it) turned into this class, in place, and returned."""
        # `compile` builds its own class, and copying one through `copy()` drops what `compile` set
        # afterwards (the stream mappers), so the compiled object itself changes class: this subclass
        # adds only the two methods above.
        graph.__class__ = cls
        return cast(DefaultContextGraph[StateT, InputT, OutputT], graph)
