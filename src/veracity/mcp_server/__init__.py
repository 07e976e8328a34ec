"""veracity as a Model Context Protocol server: fact-checking tools for agents, on stdio or streamable HTTP.

`veracity mcp` serves it on stdio (`stdio`), the way desktop clients start a server; `veracity serve`
mounts it at ``/mcp`` beside the HTTP API (`veracity.server.mcp_endpoint`, with its Host, Origin, token and
rate rules in `veracity.server.mcp_security`). Both come from `create_mcp_server` (`server`): the
tools (`tools`: check_text, check_claim, search_knowledge_base, verify_report), the resources
(`resources`: the knowledge base's documents, the session's reports) and a prompt (`prompt`). The SDK
is the official `mcp` package; this package is named apart from it.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from veracity.mcp_server.server import create_mcp_server

__all__ = ["create_mcp_server"]


def __getattr__(name: str) -> Any:
    if name == "create_mcp_server":
        from veracity.mcp_server.server import create_mcp_server

        return create_mcp_server
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
