"""What a failed tool call or resource read tells its client: veracity's own errors in their words, internals logged.

A failed call is a tool result marked as an error (the SDK's `ToolError`), a failed read a protocol
error, never a dead server. A client over HTTP is not told the server's file paths or the details
of a broken knowledge base, as with the HTTP API; a client on stdio is the user who started the
server, and is told everything.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from mcp.server.fastmcp.exceptions import ResourceError, ToolError

from veracity.errors import KnowledgeBaseError, VeracityError

logger = logging.getLogger(__name__)

HIDDEN_KNOWLEDGE_BASE = "the server's knowledge base cannot be used; the operator will find why in the server log"


def client_message(error: Exception, *, local_client: bool) -> str:
    """What the client is told of `error` (see the module's docstring)."""
    if isinstance(error, ToolError | ResourceError):
        return str(error)
    if isinstance(error, KnowledgeBaseError) and not local_client:
        logger.error("the knowledge base cannot be used: %s", error)
        return HIDDEN_KNOWLEDGE_BASE
    if isinstance(error, VeracityError):
        return str(error)
    logger.error("an MCP request failed", exc_info=error)
    return f"internal error ({type(error).__name__}); see the server log"


@contextmanager
def told_to_client(*, local_client: bool, kind: type[Exception] = ToolError) -> Iterator[None]:
    """Turn any error raised in the block into a `kind` (`ToolError` or `ResourceError`) with `client_message`.

    Cancellation is not an error: it passes through.
    """
    try:
        yield
    except kind:
        raise
    except Exception as error:
        raise kind(client_message(error, local_client=local_client)) from error
