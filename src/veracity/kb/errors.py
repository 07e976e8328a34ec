"""The one exception the knowledge base raises to its callers."""

from __future__ import annotations

from pathlib import Path

from veracity.errors import ConfigurationError


class KnowledgeBaseError(ConfigurationError):
    """The knowledge base is missing, corrupt, incompatible or busy; the message says how to fix it."""


def unusable(path: Path, reason: str) -> KnowledgeBaseError:
    """A `KnowledgeBaseError` for an index that exists but cannot be used, with the fix spelled out."""
    return KnowledgeBaseError(
        f"the knowledge base at {path} is unusable: {reason}. Fix: rebuild it with "
        f"`veracity ingest --replace --kb {path} PATH...` (add --demo for the demo notes), "
        f"or delete the folder {path}."
    )


def missing(path: Path) -> KnowledgeBaseError:
    """A `KnowledgeBaseError` for a location that holds no knowledge base yet."""
    return KnowledgeBaseError(
        f"there is no knowledge base at {path}. Create one with `veracity ingest --kb {path} PATH...` "
        f"(or `veracity ingest --demo --kb {path}` for the demo notes)."
    )
