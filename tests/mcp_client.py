"""What the MCP tests share, whichever way their client reaches the server (in memory, stdio, HTTP).

The return policy and the answers checked against it, a long text to cancel half-way, reading a
tool's error, hearing a call's progress, and loading an example script as a module.
"""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from typing import Any

from mcp.types import CallToolResult

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

POLICY = ("The customer may return a package within 14 days of the delivery date. "
          "After that period, returns are not accepted.")
ANSWER = ("You can return the package within 30 days of the delivery date. "
          "After that, returns are not accepted.")
FAITHFUL = "You can return the package within 14 days of the delivery date."
LONG_TEXT = " ".join(f"Parcel number {n} can be returned within {n + 15} days of its delivery." for n in range(200))


def error_text(result: CallToolResult) -> str:
    """The text of a tool call that failed (the call must have failed)."""
    assert result.isError, result
    return result.content[0].text


class ProgressHeard:
    """The progress notifications a client session hears, as (request id, progress) once a claim is judged."""

    def __init__(self) -> None:
        self.verdicts: list[tuple[object, float]] = []
        self.first_verdict = asyncio.Event()

    async def notified(self, message: object) -> None:
        """The session's message handler: keeps each progress notification past the first step."""
        root = getattr(message, "root", None)
        if getattr(root, "method", None) == "notifications/progress" and root.params.progress >= 1:
            self.verdicts.append((root.params.progressToken, root.params.progress))  # the token is the request's id
            self.first_verdict.set()

    async def heard(self, *_: object) -> None:
        """A progress callback, so that the call asks for progress."""


def load_example(name: str) -> Any:
    """The script `examples/<name>.py`, imported as a module."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
