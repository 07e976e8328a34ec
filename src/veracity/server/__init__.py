"""veracity over HTTP: a FastAPI app (`create_app`) with LangServe-style routes for the graph.

Start it with ``veracity serve``, or mount ``veracity.server.app:app`` (``langgraph.json`` does).
"""

from veracity.server.app import create_app

__all__ = ["create_app"]
