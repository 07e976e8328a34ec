"""The MCP server over streamable HTTP, as `veracity serve` mounts it at ``/mcp`` beside the HTTP API.

It runs on the app's checkers and shares its limits: the body size cap, the rate limit (each check
a tool runs costs one, as over the HTTP API), the settings (a check's deadline, the text size). Its
sessions need a task group for their lifetime: `McpEndpoint.lifespan` runs it, as the app's lifespan.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from mcp.server.fastmcp import FastMCP
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from veracity.mcp_server.server import create_mcp_server
from veracity.run.checker import Checker
from veracity.server.limits import Limiter
from veracity.server.mcp_security import BearerToken, CheckAdmission, transport_security

MCP_PATH = "/mcp"


@dataclass(frozen=True)
class McpEndpoint:
    """The MCP server's route in an HTTP app, and the lifespan its sessions need."""

    server: FastMCP[Any]
    route: Route

    def lifespan(self, _app: object) -> AbstractAsyncContextManager[None]:
        """Run the server's session manager while the app runs (it can be run once: one app, one endpoint)."""
        return self.server.session_manager.run()


def mcp_endpoint(
    checker: Checker, *, offline_checker: Checker | None, limiter: Limiter, token: str | None, max_body_bytes: int,
    allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = (), path: str = MCP_PATH,
) -> McpEndpoint:
    """The MCP endpoint at `path`: `token` (None: open) guards it, `limiter` rates its checks, DNS rebinding is refused.

    A client over HTTP may not name files or models on the server (see `CheckRunner`).
    """
    server = create_mcp_server(
        checker, offline_checker=offline_checker, local_client=False,
        admission=CheckAdmission(limiter, tokened=token is not None),
        transport_security=transport_security(allowed_hosts, allowed_origins), max_body_bytes=max_body_bytes,
    )
    server.streamable_http_app()  # makes `server.session_manager`, with the settings above
    manager = server.session_manager

    async def handle(scope: Scope, receive: Receive, send: Send) -> None:
        await manager.handle_request(scope, receive, send)

    return McpEndpoint(server, Route(path, endpoint=BearerToken(handle, token=token, limiter=limiter),
                                     include_in_schema=False))
