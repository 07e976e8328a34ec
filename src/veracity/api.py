"""The Python entry points: `check` and `acheck`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever

from veracity.runtime.blocking import run_blocking
from veracity.graph import compile_graph
from veracity.context import Context
from veracity.contracts import Report
from veracity.errors import InputError
from veracity.evidence.base import EvidenceBackend
from veracity.nodes.extract import input_problem
from veracity.runtime.resources import Resources


async def acheck(
    text: str,
    *,
    model: BaseChatModel | str | None = None,
    backend: EvidenceBackend | BaseRetriever | None = None,
    tags: list[str] | None = None,
    on_update: Callable[[str, dict], None] | None = None,
    checkpoint: str | Path | None = None,
    thread_id: str | None = None,
    **settings: Any,
) -> Report:
    """Fact-check `text` and return a `Report`.

    `model` is a chat model object or a 'provider:model' string; `backend` an evidence
    backend or LangChain retriever. Other keyword settings are `Context` fields, e.g.
    `max_revisions=1`. Raises `InputError` for empty or oversized text and
    `ConfigurationError` when the model or search backend is not set up.
    `on_update(node, update)` is called as each graph node (including the per-claim ones)
    finishes, e.g. to show progress.

    With `checkpoint` (a SQLite file) every step is saved under `thread_id`: calling again
    with the same file, thread and text resumes an interrupted check where it stopped (steps
    already done, per-claim ones included, are not run again) or returns the finished one's report.
    """
    if isinstance(model, str):
        settings["model"] = model
        model = None
    context = Context.from_settings(**settings)
    problem = input_problem(text, context.max_text_chars)
    if problem:
        raise InputError(problem)
    resources = Resources(model=model, backend=backend)
    mode = resources.preflight(context)
    if checkpoint is not None:
        from veracity.runtime.checkpoints import resumable_run

        return await resumable_run(
            text, resources, context, checkpoint=Path(checkpoint), thread_id=thread_id, on_update=on_update,
            config=_run_config(mode, model, tags),
        )
    graph = compile_graph(resources)
    return await stream_report(graph, {"text": text}, _run_config(mode, model, tags), context, on_update)


def _run_config(mode, model, tags: list[str] | None) -> dict:
    return {
        "run_name": "veracity.check",
        "tags": ["veracity", *(tags or [])],
        "metadata": {
            "veracity_model": mode.model if model is None else type(model).__name__,
            "veracity_mode": mode.label,
        },
    }


async def stream_report(
    graph, graph_input: dict | None, config: dict, context: Context, on_update=None, durability: str | None = None,
) -> Report:
    """Run the compiled graph (or resume it, with input None) and return the report it ends with."""
    report: Report | None = None
    options = {"durability": durability} if durability else {}
    stream = graph.astream(
        graph_input, config=config, context=context, stream_mode="updates", subgraphs=True, **options
    )
    async for _namespace, chunk in stream:
        for node, update in chunk.items():
            if on_update is not None:
                on_update(node, update or {})
            if node == "finalize_report":
                report = update["report"]
    if report is None:  # the graph always ends in finalize_report; guard against wiring mistakes
        raise RuntimeError("the fact-check graph ended without a report")
    return report


def check(text: str, **kwargs: Any) -> Report:
    """Synchronous `acheck`: fact-check `text` and return a `Report` (same arguments)."""
    return run_blocking(acheck(text, **kwargs))
