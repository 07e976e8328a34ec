"""`create_mcp_server`: veracity's tools, resources and prompt on one FastMCP server, for stdio or HTTP."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp.server.fastmcp import FastMCP
from mcp.server.transport_security import TransportSecuritySettings

from veracity.mcp_server.checks import Admission, CheckRunner
from veracity.mcp_server.knowledge import KnowledgeBaseReader
from veracity.mcp_server.prompt import add_prompt
from veracity.mcp_server.reports import REPORTS_KEPT, SessionReports
from veracity.mcp_server.resources import add_resources
from veracity.mcp_server.tools import add_tools
from veracity.run.checker import Checker

INSTRUCTIONS = """\
veracity catches factual errors in text. check_text splits a text (say, an answer you wrote) into claims and \
judges each supported, refuted or unverifiable against evidence, with a verbatim quote; pass source_text to \
check against one document only. check_claim checks one statement. search_knowledge_base shows what the local \
knowledge base says about a query. verify_report re-checks a saved report. A text passes only when every \
claim is supported; an unverifiable claim is not a refuted one, but it is not confirmed either."""

DEFAULT_MAX_BODY_BYTES = 1_000_000
"""The largest request body over HTTP, as `veracity serve` allows (`VERACITY_MAX_BODY_BYTES`)."""
MAX_HTTP_SESSIONS = 100
"""MCP sessions open at once over HTTP; a client opening one more gets 503 until one ends or idles out (30 min).
With `REPORTS_KEPT` each, it bounds the reports kept in memory."""


@contextmanager
def root_logging_kept() -> Iterator[None]:
    """Undo what the block does to the root logger's handlers and level.

    FastMCP configures the root logger when it is made; logging belongs to the program that runs
    the server (`veracity serve`'s uvicorn, `veracity mcp`'s stderr), not to this library.
    """
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def create_mcp_server(
    checker: Checker, *, offline_checker: Checker | None = None, local_client: bool, admission: Admission | None = None,
    transport_security: TransportSecuritySettings | None = None, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    reports_kept: int = REPORTS_KEPT, max_sessions: int = MAX_HTTP_SESSIONS,
) -> FastMCP[Any]:
    """The MCP server whose tools check with `checker` (see `CheckRunner` for the other arguments).

    `transport_security`, `max_body_bytes` and `max_sessions` hold for the streamable HTTP transport;
    each session keeps its last `reports_kept` reports.
    """
    with root_logging_kept():
        server: FastMCP[Any] = FastMCP(
            name="veracity", instructions=INSTRUCTIONS, log_level="WARNING", transport_security=transport_security,
            max_request_body_size=max_body_bytes, max_sessions=max_sessions,
        )
    runner = CheckRunner(checker, offline_checker=offline_checker, local_client=local_client, admission=admission)
    reports = SessionReports(reports_kept)
    knowledge = KnowledgeBaseReader(checker.context().kb_path)
    add_tools(server, runner, reports, knowledge)
    add_resources(server, reports, knowledge, local_client=local_client)
    add_prompt(server)
    return server
