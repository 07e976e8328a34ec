"""`Checker`: a fact-checker whose graph is compiled once and reused for every check.

The API (`veracity.check`), the HTTP server, `Guard`, `as_tool` and `veracity eval` each hold
one `Checker` instead of building resources and compiling a graph per call, so a chat model
created for one check (and anything it caches) serves the next.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veracity.context import Context
from veracity.contracts import Report
from veracity.errors import InputError
from veracity.graph import ClaimGraph, FactCheckGraph, build_claim_graph, compile_graph
from veracity.mode import Mode
from veracity.progress import ProgressEvent
from veracity.protocols import StepResources
from veracity.resources import Resources
from veracity.run.blocking import run_blocking
from veracity.run.checkpoints import open_checkpointer, reading_checkpoint
from veracity.run.deadline import PartialRun, deadline_report
from veracity.run_scope import RunScope, with_run_scope
from veracity.source_mode import own_source_settings, source_search
from veracity.state import InputState
from veracity.step_support.names import FINALIZE_REPORT
from veracity.validation import checked_text

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableConfig
    from langgraph.types import Durability

    from veracity.evidence.base import EvidenceBackend

OnProgress = Callable[[ProgressEvent], object]
"""A callback that hears each `ProgressEvent` of a check as it happens."""

OnStart = Callable[[Context, Mode], object]
"""A callback told a check's settings and resolved `Mode` once its preflight passed, before its first step."""

BACKSTOP_SECONDS = 5.0
"""How long past `check_deadline` the runner waits for the graph's own deadline report before it stops the run
itself (a step the graph cannot cut off) and reports from what it collected."""


class Checker:
    """Fact-checks texts with one compiled graph.

    `model` is a chat model object or a 'provider:model' string (or 'offline'); `backend` an
    evidence backend or LangChain retriever. Other keyword settings are `Context` fields and
    serve as defaults for every check; a check's own settings override them. A check that carries
    its own `source_text` (and names no `search`) is checked against that source whatever this
    checker's default `search`; a source text together with another search or a bound backend
    raises `SourceConflictError`, here or at the check.
    """

    def __init__(
        self,
        *,
        model: BaseChatModel | str | None = None,
        backend: EvidenceBackend | BaseRetriever | None = None,
        **settings: Any,
    ) -> None:
        if isinstance(model, str):
            settings["model"] = model
            model = None
        Context.from_settings(**settings)  # unknown names fail here, not at the first check
        source_search(settings.get("search"), settings.get("source_text"), bound_backend=backend)  # a conflict, too
        self.settings = settings
        self.bound_model = model
        self.resources = Resources(model=model, backend=backend)
        self.graph: FactCheckGraph = compile_graph(self.resources)

    @cached_property
    def claim_graph(self) -> ClaimGraph:
        """One claim's branch (evidence, judge, gate) on its own, for judging given evidence."""
        return build_claim_graph(self.resources)

    def context(self, **settings: Any) -> Context:
        """The `Context` of a check: this checker's settings, overridden by `settings`.

        This checker's `search` is a default for checks without a source: a check that brings its
        own source text and names no search of its own is checked against that source.
        """
        return Context.from_settings(**own_source_settings(self.settings, settings))

    def _run_config(self, mode: Mode, tags: list[str] | None = None) -> RunnableConfig:
        """The run's name, tags and metadata, as LangSmith shows them."""
        model = mode.model if self.bound_model is None else type(self.bound_model).__name__
        return {
            "run_name": "veracity.check",
            "tags": ["veracity", *(tags or [])],
            "metadata": {"veracity_model": model, "veracity_mode": mode.label},
        }

    async def acheck(
        self,
        text: str,
        *,
        tags: list[str] | None = None,
        on_progress: OnProgress | None = None,
        on_start: OnStart | None = None,
        checkpoint: str | Path | None = None,
        thread_id: str | None = None,
        **settings: Any,
    ) -> Report:
        """Fact-check `text` and return its `Report` (see `veracity.acheck`)."""
        context = self.context(**settings)
        text = checked_text(text, context.max_text_chars)
        run = RunScope()  # the check's own: its mode and what the preflight found, shared by every step
        # The preflight may probe a model endpoint (seconds, on a dead one): off the event loop, so a
        # server's other requests go on meanwhile.
        mode = await asyncio.to_thread(self.resources.preflight, context, run)
        if on_start is not None:
            on_start(context, mode)
        config = with_run_scope(self._run_config(mode, tags), run)
        if checkpoint is None:
            return await stream_report(self.graph, {"text": text}, config, context, self.resources, on_progress)
        return await self._resumable(text, config, context, Path(checkpoint), thread_id or uuid.uuid4().hex,
                                     on_progress)

    async def _resumable(
        self, text: str, config: RunnableConfig, context: Context, checkpoint: Path, thread_id: str,
        on_progress: OnProgress | None,
    ) -> Report:
        """Run, resume or read back the check of `text` on `thread_id` in the SQLite file `checkpoint`."""
        config = {**config, "configurable": {**config.get("configurable", {}), "thread_id": thread_id}}
        async with open_checkpointer(checkpoint) as saver:
            graph = self.graph.copy(update={"checkpointer": saver})
            with reading_checkpoint(checkpoint):
                saved = await graph.aget_state(config)
            if not saved.values:
                return await stream_report(graph, {"text": text}, config, context, self.resources, on_progress,
                                           durability="sync")
            if saved.values.get("text") != text:
                raise InputError(f"thread {thread_id!r} in {checkpoint} holds the check of another text; "
                                 "use a new thread id for this one")
            if saved.next:
                return await stream_report(graph, None, config, context, self.resources, on_progress,
                                           durability="sync")
            report = saved.values.get("report")
            if not isinstance(report, Report):
                raise InputError(f"thread {thread_id!r} in {checkpoint} ended without a report; use a new thread id")
            return report

    def check(self, text: str, **kwargs: Any) -> Report:
        """Synchronous `acheck`."""
        return run_blocking(self.acheck(text, **kwargs))


async def stream_report(
    graph: FactCheckGraph, graph_input: InputState | None, config: RunnableConfig, context: Context,
    resources: StepResources, on_progress: OnProgress | None = None, durability: Durability | None = None,
) -> Report:
    """Run the compiled graph (or resume it, with input None), pass on its progress, and return its report.

    The graph keeps the check's deadline itself; a run still going `BACKSTOP_SECONDS` past it is
    stopped here and reported from what it collected (one deadline failure either way), with the
    graph's `resources`.
    """
    report: Report | None = None
    run = PartialRun(dict(graph_input) if graph_input is not None else None)
    options: dict[str, Any] = {"durability": durability} if durability else {}
    stream = graph.astream(
        graph_input, config=config, context=context, stream_mode=["custom", "updates", "values", "tasks"],
        subgraphs=True, **options,
    )
    try:
        async with asyncio.timeout(context.check_deadline + BACKSTOP_SECONDS) as deadline:
            async for namespace, kind, chunk in stream:
                if kind == "custom" and on_progress is not None and isinstance(chunk, ProgressEvent):
                    on_progress(chunk)
                elif namespace:
                    continue
                elif kind == "updates":
                    if FINALIZE_REPORT in chunk:
                        report = chunk[FINALIZE_REPORT]["report"]
                    run.updates(chunk)
                elif kind == "values":
                    run.values(chunk)
                elif kind == "tasks":
                    run.task(chunk)
    except TimeoutError:
        if not deadline.expired():
            raise
        await stream.aclose()  # type: ignore[attr-defined]  # astream returns an async generator
        return deadline_report(run, context.check_deadline, resources)
    if report is None:  # the graph always ends in finalize_report; guard against wiring mistakes
        raise RuntimeError("the fact-check graph ended without a report")
    return report
