"""The MCP server over stdio, as desktop clients start it (`veracity mcp`): standard output carries the protocol only.

A single stray line on standard output would break the client's reading of the protocol. While the
server runs, the protocol writes to its own copy of the original standard output, and everything
else written to standard output (Python's `print`, a C library writing to file descriptor 1, a
child process) goes to standard error instead, with the logs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
from mcp.server.fastmcp import FastMCP
from mcp.server.stdio import stdio_server


@contextmanager
def stdout_for_protocol_only() -> Iterator[anyio.AsyncFile[str]]:
    """The original standard output, for the protocol; meanwhile file descriptor 1 and `sys.stdout` are stderr's."""
    sys.stdout.flush()
    shown = sys.stdout
    protocol = open(os.dup(1), "w", encoding="utf-8")  # closed below, once fd 1 is given back
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        yield anyio.wrap_file(protocol)
    finally:
        protocol.flush()
        os.dup2(protocol.fileno(), 1)
        protocol.close()
        sys.stdout = shown


async def serve_stdio(server: FastMCP[Any]) -> None:
    """Serve `server` on standard input and output until the client closes its end."""
    with stdout_for_protocol_only() as protocol:
        async with stdio_server(stdout=protocol) as (read_stream, write_stream):
            # FastMCP's own stdio runner writes to `sys.stdout`; its low-level server runs on the streams given.
            lowlevel = server._mcp_server
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
