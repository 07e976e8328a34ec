"""What a backend declares, read from the backend itself or from the name on the evidence it found.

Evidence items carry only their backend's name (`Evidence.backend`, kept as it is in reports), so
a step that has an item and no backend maps the name back to the declaration here, the one
place that does: the run's bound backend by its own declaration, a built-in backend by its class's.
"""

from __future__ import annotations

from veracity.evidence.capabilities import Capabilities
from veracity.evidence.kb import KnowledgeBaseBackend
from veracity.evidence.source import SourceTextBackend
from veracity.evidence.web import TavilyBackend

BUILT_IN: dict[str, Capabilities] = {
    backend.name: backend.capabilities for backend in (TavilyBackend, KnowledgeBaseBackend, SourceTextBackend)
}
"""The built-in backends' declarations, by the name their evidence carries ('web', 'kb', 'source')."""


def declared(backend: object) -> Capabilities:
    """What `backend` declares as its `capabilities`.

    A backend written before backends declared anything is read by its name, as `capabilities_of`
    reads an evidence item's: named like a built-in backend, it is taken for one.
    """
    own = getattr(backend, "capabilities", None)
    return own if isinstance(own, Capabilities) else BUILT_IN.get(str(getattr(backend, "name", "")), Capabilities())


def capabilities_of(backend: str, bound: object = None) -> Capabilities:
    """What the backend that found evidence recorded as from `backend` declares.

    The run's bound backend (`bound`) when that is its name, else the built-in backend of that
    name; a name neither has declares nothing.
    """
    if bound is not None and getattr(bound, "name", None) == backend:
        return declared(bound)
    return BUILT_IN.get(backend, Capabilities())
