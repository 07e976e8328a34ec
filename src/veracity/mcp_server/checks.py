"""Running a check for a tool call: the settings a call may give, its model, its rate, progress and cancellation.

A check runs as an asyncio task (`Checker.acheck`). Its progress events are relayed as MCP progress
notifications while it runs; when the call is cancelled (the client sent ``notifications/cancelled``,
or went away) the task is cancelled with it, so the check stops instead of running on unseen.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from mcp.server.fastmcp.exceptions import ToolError

from veracity.contracts import Report
from veracity.mcp_server.progress import ProgressTracker, ProgressUpdate
from veracity.mode import OFFLINE
from veracity.run.checker import Checker
from veracity.validation import source_text_problem

logger = logging.getLogger(__name__)

SendProgress = Callable[[ProgressUpdate], Awaitable[None]]
"""Sends one progress notification to the client whose call runs the check."""

Admission = Callable[[object | None], str | None]
"""Why one more check is refused now for the client of this HTTP request (None: it may run).

See `veracity.server.mcp_security`."""


class CheckRunner:
    """Runs the checks of tool calls on the server's checkers.

    `checker` runs every check by default; `offline_checker`, the checks that ask for model
    'offline' when `checker` holds a bound model object (else `checker` runs them too).
    `local_client`: the client is the user who started the server (stdio), so a call may name a
    knowledge base folder and any model; over HTTP a call may ask for 'offline' only, and the server's
    own knowledge base is searched. `admission`, over HTTP, charges each check to its client's rate.
    """

    def __init__(self, checker: Checker, *, offline_checker: Checker | None = None, local_client: bool,
                 admission: Admission | None = None) -> None:
        self.checker = checker
        self.offline_checker = offline_checker or checker
        self.local_client = local_client
        self.admission = admission

    def settings(self, *, source_text: str | None = None, source_title: str | None = None, search: str | None = None,
                 kb_path: str | None = None, max_revisions: int | None = None,
                 min_precision: float | None = None) -> dict[str, Any]:
        """A call's settings for `Checker.acheck`: those given, checked as every other surface checks them.

        Each value is checked by `veracity.Context` at the check (`SettingError` in its words); here
        only what this transport forbids is refused, and an oversized source text.
        """
        self.knowledge_base(kb_path)
        if source_text is not None and (problem := source_text_problem(source_text)) is not None:
            raise ToolError(f"source_text: {problem}")
        given = {"source_text": source_text, "source_title": source_title, "search": search, "kb_path": kb_path,
                 "max_revisions": max_revisions, "min_precision": min_precision}
        return {name: value for name, value in given.items() if value is not None}

    def knowledge_base(self, kb_path: str | None) -> str | None:
        """The knowledge base folder a call names, if it may name one (`ToolError` over HTTP)."""
        if kb_path is not None and not self.local_client:
            raise ToolError("kb_path is not accepted over HTTP: this server searches its own knowledge base")
        return kb_path

    def chosen(self, model: str | None) -> tuple[Checker, dict[str, Any]]:
        """The checker that runs a call asking for `model`, and the setting that asks it for that model."""
        if model is None:
            return self.checker, {}
        if model == OFFLINE:
            return self.offline_checker, {"model": OFFLINE}
        if not self.local_client:
            raise ToolError(f"model {model!r} is not accepted over HTTP: send 'offline', or leave model out for the "
                            "server's model")
        if self.checker.bound_model is not None:
            raise ToolError("this server's chat model is fixed: send 'offline', or leave model out")
        return self.checker, {"model": model}

    def admit(self, request: object | None) -> None:
        """Charge one check to the client of `request`; `ToolError` when its rate is used up."""
        refusal = self.admission(request) if self.admission is not None else None
        if refusal is not None:
            raise ToolError(refusal)

    async def run(self, text: str, model: str | None, settings: Mapping[str, Any],
                  send_progress: SendProgress) -> Report:
        """Check `text` with `settings`, sending a progress notification per step, and return the report.

        Cancelling the caller cancels the check's task.
        """
        checker, chosen_model = self.chosen(model)
        tracker = ProgressTracker()
        updates: asyncio.Queue[ProgressUpdate | None] = asyncio.Queue()
        check = asyncio.create_task(checker.acheck(
            text, on_progress=lambda event: updates.put_nowait(tracker.update(event)), **settings, **chosen_model))
        check.add_done_callback(lambda _: updates.put_nowait(None))  # after the last progress event
        try:
            while (update := await updates.get()) is not None:
                await send_progress(update)
            return check.result()
        except asyncio.CancelledError:
            logger.info("a check was cancelled by its client after %d verdict(s)", tracker.verdicts)
            raise
        finally:
            check.cancel()  # nothing once the check has finished; otherwise the check stops with its call
