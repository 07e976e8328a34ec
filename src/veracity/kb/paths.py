"""Where the knowledge base lives, and the errors that name a location and how to fix it."""

from __future__ import annotations

import os
from pathlib import Path

from veracity.errors import KnowledgeBaseError

KB_ENV = "VERACITY_KB"
"""Environment variable naming the knowledge base folder."""


def default_kb_path() -> Path:
    """`$VERACITY_KB` when set, else `<user data dir>/veracity/kb` (e.g. ~/.local/share/veracity/kb)."""
    configured = os.environ.get(KB_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("veracity")) / "kb"


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
