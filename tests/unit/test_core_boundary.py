"""The core knows protocols, not implementations: its import contracts hold, and `nodes/` holds the steps only."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import veracity
from veracity.context import Context
from veracity.offline.calibration.risk import DEFAULT_MIN_PRECISION

ROOT = Path(__file__).resolve().parents[2]
SOURCE = Path(veracity.__file__).parent


def test_the_import_contracts_hold() -> None:
    # pyproject.toml states them ([tool.importlinter]); a broken one names each import that breaks it
    lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint_imports is not None, "import-linter is not installed (it is in the test extra)"
    done = subprocess.run([lint_imports, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def imported_modules(path: Path) -> set[str]:
    """The veracity modules `path` imports names from."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("veracity.")}


def test_nodes_holds_the_step_modules_only() -> None:
    steps = {f"veracity.nodes.{path.stem}" for path in (SOURCE / "nodes").glob("*.py") if path.stem != "__init__"}
    wired = {module for module in imported_modules(SOURCE / "graph.py") if module.startswith("veracity.nodes.")}
    # every module there is a step the graph adds, and every step the graph adds is there
    assert steps == wired


def test_a_checks_default_precision_is_the_one_the_shipped_calibration_certifies() -> None:
    assert Context().min_precision == DEFAULT_MIN_PRECISION
