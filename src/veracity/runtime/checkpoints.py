"""Durable checks: the graph with a SQLite checkpointer, so an interrupted check resumes.

Every finished step is saved under the thread id before the next one starts (synchronous
durability), so a crash or Ctrl-C loses at most the step in flight. Running the same text on the
same thread again continues from the last saved step; a thread whose check finished gives back
its report.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Callable

from veracity.graph import compile_graph
from veracity.context import Context
from veracity.contracts import Report
from veracity.errors import InputError
from veracity.runtime.resources import Resources


async def resumable_run(
    text: str, resources: Resources, context: Context, *, checkpoint: Path, thread_id: str | None,
    on_update: Callable[[str, dict], None] | None, config: dict,
) -> Report:
    """Run, resume or read back the check of `text` on `thread_id` (a new id when None) in `checkpoint`."""
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from veracity.api import stream_report

    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    thread_id = thread_id or uuid.uuid4().hex
    config = {**config, "configurable": {"thread_id": thread_id}}
    async with aiosqlite.connect(str(checkpoint)) as connection:
        graph = compile_graph(resources, checkpointer=AsyncSqliteSaver(connection, serde=serializer()))
        saved = await graph.aget_state(config)
        if not saved.values:
            return await stream_report(graph, {"text": text}, config, context, on_update, durability="sync")
        if saved.values.get("text") != text:
            raise InputError(f"thread {thread_id!r} in {checkpoint} holds the check of another text; "
                             "use a new thread id for this one")
        if saved.next:
            return await stream_report(graph, None, config, context, on_update, durability="sync")
        report = saved.values.get("report")
        if report is None:
            raise InputError(f"thread {thread_id!r} in {checkpoint} ended without a report; use a new thread id")
        return report


def serializer():
    """The checkpoint serializer, allowed to read back veracity's own state types and no others."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from pydantic import BaseModel

    from veracity import contracts

    own = [kind for kind in vars(contracts).values()
           if isinstance(kind, type) and issubclass(kind, BaseModel) and kind.__module__ == contracts.__name__]
    return JsonPlusSerializer(allowed_msgpack_modules=own)
