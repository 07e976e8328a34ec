"""The Python entry points: `check` and `acheck`."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veracity.run.blocking import run_blocking
from veracity.run.checker import Checker, OnProgress, OnStart

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.retrievers import BaseRetriever

    from veracity.contracts import Report
    from veracity.evidence.base import EvidenceBackend


@functools.cache
def shared_checker() -> Checker:
    """The checker behind `check`/`acheck` calls that bind no model object or backend (compiled once)."""
    return Checker()


async def acheck(
    text: str,
    *,
    model: BaseChatModel | str | None = None,
    backend: EvidenceBackend | BaseRetriever | None = None,
    tags: list[str] | None = None,
    on_progress: OnProgress | None = None,
    on_start: OnStart | None = None,
    checkpoint: str | Path | None = None,
    thread_id: str | None = None,
    **settings: Any,
) -> Report:
    """Fact-check `text` and return a `Report`.

    `model` is a chat model object or a 'provider:model' string; `backend` an evidence
    backend or LangChain retriever. Other keyword settings are `Context` fields, e.g.
    `max_revisions=1`. Raises `InputError` for empty or oversized text and
    `ConfigurationError` when the model or search backend is not set up. With `source_text` the
    source is the only evidence: `search` must then be 'auto' or 'source', and `backend` unset
    (`SourceConflictError`, a `ConfigurationError`, otherwise).
    `on_progress(event)` hears each `veracity.ProgressEvent` as it happens: the claims found,
    each claim's verdict, revise rounds. `on_start(context, mode)` is told the check's settings and
    resolved `Mode` once the set-up passed its checks (API keys, evidence backend), before the first step:
    `veracity.resources.describe_mode` words them for people.

    With `checkpoint` (a SQLite file) every step is saved under `thread_id`: calling again
    with the same file, thread and text resumes an interrupted check where it stopped (steps
    already done, per-claim ones included, are not run again) or returns the finished one's report.

    Calls that bind no model object or backend share one compiled graph; for many checks with
    a bound model or backend, build a `veracity.Checker` once and call its `acheck`.
    """
    if isinstance(model, str):
        settings["model"] = model
        model = None
    checker = shared_checker() if model is None and backend is None else Checker(model=model, backend=backend)
    return await checker.acheck(text, tags=tags, on_progress=on_progress, on_start=on_start, checkpoint=checkpoint,
                                thread_id=thread_id, **settings)


def check(text: str, **kwargs: Any) -> Report:
    """Synchronous `acheck`: fact-check `text` and return a `Report` (same arguments)."""
    return run_blocking(acheck(text, **kwargs))
