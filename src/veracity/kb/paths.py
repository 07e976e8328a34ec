"""Where the knowledge base lives by default."""

from __future__ import annotations

import os
from pathlib import Path

KB_ENV = "VERACITY_KB"
"""Environment variable naming the knowledge base folder."""


def default_kb_path() -> Path:
    """`$VERACITY_KB` when set, else `<user data dir>/veracity/kb` (e.g. ~/.local/share/veracity/kb)."""
    configured = os.environ.get(KB_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("veracity")) / "kb"
