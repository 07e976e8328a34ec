"""Command-line interface: `veracity mcp`, veracity as a Model Context Protocol server on standard input and output."""

from __future__ import annotations

import logging
import sys
from typing import Any

import click

from veracity.cli.settings import settings_options
from veracity.evidence.capabilities import DEFAULT_SEARCHES

MCP_EPILOG = """\b
A desktop client starts the server itself; its configuration names the command:
  {"mcpServers": {"veracity": {"command": "veracity", "args": ["mcp"]}}}
\b
Tools: check_text, check_claim (one statement), search_knowledge_base and
verify_report. Resources: the knowledge base's documents (veracity://kb/documents)
and this session's last reports (veracity://reports). Prompt:
check_answer_against_source.
\b
Standard output carries the protocol only; logs go to standard error. A client on
stdio may name a knowledge base folder, a chat model and report files on this
machine. Over HTTP, `veracity serve` serves the same tools at /mcp."""


@click.command(epilog=MCP_EPILOG)
@settings_options("mcp", searches=DEFAULT_SEARCHES, notes={
    "search": "For calls without a source text; a call with a source_text that also names search web or kb is "
              "refused.",
})
def mcp_command(settings: dict[str, Any]) -> None:
    """Serve veracity over the Model Context Protocol on standard input and output (for desktop clients and agents).

    Each call's own arguments (source_text, search, model, ...) override these settings.
    """
    import anyio

    from veracity.errors import VeracityError
    from veracity.mcp_server.server import create_mcp_server
    from veracity.mcp_server.stdio import serve_stdio
    from veracity.run.checker import Checker

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="veracity mcp: %(levelname)s: %(message)s")
    try:
        checker = Checker(**settings)
    except VeracityError as error:
        raise click.ClickException(f"the server cannot start: {type(error).__name__}: {error}") from error
    anyio.run(serve_stdio, create_mcp_server(checker, local_client=True))
