"""veracity over HTTP: a FastAPI app (`create_app`) with LangServe-style routes for the graph.

Start it with ``veracity serve``, or mount ``veracity.server.app:app`` (``langgraph.json`` does).
The app is imported on first use, so the command line can read the server's settings cheaply.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from veracity.server.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from veracity.server.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
