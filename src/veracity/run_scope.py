"""`RunScope`: what one run of the graph keeps for itself, carried in the run's config.

LangGraph hands every node and subgraph of a run the run's `RunnableConfig`, and a subgraph run
from a node gets that node's config: a value placed in ``config["configurable"]`` when the run
starts is the run's own, and a new run (a resumed one too) starts without it. The compiled graph
places a `RunScope` there when a run starts without one (`veracity.default_context`); the `Checker`
places its own, which already holds what its preflight found.

A run keeps here what it must decide or learn once: its mode (`veracity.resources`), the models
that did not answer the preflight probe, the models that stalled (`veracity.llm.stalls`) and its
deadline (`veracity.step_support.deadline`). Each owner reads and writes its values under keys of
its own (`RunKey`), so two graphs sharing a run (a fact-check inside another) keep theirs apart.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

if TYPE_CHECKING:  # LangChain is not loaded before a check has decided what it will load (`veracity.run.warmup`)
    from langchain_core.runnables import RunnableConfig

T = TypeVar("T")

RUN_SCOPE = "__veracity_run"
"""The key of the run's `RunScope` in ``config["configurable"]``.

The leading ``__`` marks it internal, as LangGraph's own keys are: checkpointers copy the other
configurable values into a checkpoint's metadata (the LangGraph API server's copies any value), and
a scope, which holds a lock and lives only as long as its run, must not be saved with it.
"""


class RunKey(Generic[T]):
    """A key for one kind of value in a `RunScope`; each key is its own (two keys never meet, whatever their names)."""

    def __init__(self, name: str) -> None:
        self.name = name
        """What the key holds, for people reading a repr."""

    def __repr__(self) -> str:
        return f"RunKey({self.name!r})"


class RunScope:
    """The values one run keeps, each under its `RunKey`; safe to use from the run's threads."""

    def __init__(self) -> None:
        self._values: dict[RunKey[Any], Any] = {}
        self._lock = threading.Lock()

    def get(self, key: RunKey[T]) -> T | None:
        """The value kept under `key`, or None."""
        with self._lock:
            return cast("T | None", self._values.get(key))

    def set(self, key: RunKey[T], value: T) -> T:
        """Keep `value` under `key` (replacing any) for the rest of the run; return it."""
        with self._lock:
            self._values[key] = value
        return value

    def setdefault(self, key: RunKey[T], make: Callable[[], T]) -> T:
        """The value kept under `key`, made by `make` (under the scope's lock) the first time it is asked for."""
        with self._lock:
            if key not in self._values:
                self._values[key] = make()
            return cast(T, self._values[key])

    @staticmethod
    def of(config: RunnableConfig | None) -> RunScope:
        """The scope `config` carries; a fresh one, kept by nobody, when it carries none (a node run on its own)."""
        scope = (config or {}).get("configurable", {}).get(RUN_SCOPE)
        return scope if isinstance(scope, RunScope) else RunScope()


def with_run_scope(config: RunnableConfig | None, scope: RunScope | None = None) -> RunnableConfig:
    """`config` carrying a run scope: the one it carries already, else `scope`, else a new one."""
    configurable = dict((config or {}).get("configurable") or {})
    if not isinstance(configurable.get(RUN_SCOPE), RunScope):
        configurable[RUN_SCOPE] = scope if scope is not None else RunScope()
    return {**(config or {}), "configurable": configurable}
