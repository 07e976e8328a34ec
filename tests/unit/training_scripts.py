"""Import a script of training/ as a module (they import each other by plain name, so the folder joins sys.path)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

TRAINING = Path(__file__).resolve().parents[2] / "training"


def training_script(name: str) -> ModuleType:
    """The module of training/<name>.py, imported with training/ on sys.path for the import only."""
    sys.path.insert(0, str(TRAINING))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(TRAINING))
