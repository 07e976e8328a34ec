"""The generated parts of the docs match the code: the settings and CLI reference, the README's graph drawing.

Each page listed in docs/generators/pages.txt is regenerated in memory with cog (nothing is written) and
compared with the checked-in page. After changing a setting, an option or the graph, run `make docs`.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import veracity

ROOT = Path(__file__).resolve().parents[2]
GENERATORS = ROOT / "docs" / "generators"
PAGES = GENERATORS / "pages.txt"
REGENERATE = "make docs  (or: .venv/bin/cog -r -I docs/generators @docs/generators/pages.txt)"
COG_CHECK_FAILED = 5
"""cog's exit status when `--check` finds a page whose output would change."""


def listed_pages() -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in PAGES.read_text().splitlines())
    return [line for line in lines if line]


def cog_check(page: Path | str) -> tuple[int, str]:
    """Run `cog --check --diff` on `page` from the repository root: its exit status and what it printed.

    It runs in a fresh interpreter, as `make docs` does: Click keeps a command's help option once it
    has been built, so a test that ran a command on its own earlier in this process would change what
    the CLI reference renders here.
    """
    done = subprocess.run([sys.executable, "-m", "cogapp", "--check", "--diff", "-I", str(GENERATORS), str(page)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    return done.returncode, done.stdout + done.stderr


@pytest.fixture
def generators(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(GENERATORS))


@pytest.mark.parametrize("page", listed_pages())
def test_checked_in_page_matches_the_code(page: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    status, printed = cog_check(page)
    assert status != COG_CHECK_FAILED, (
        f"{page} differs from what the code generates; run `{REGENERATE}` and commit the result.\n{printed[-6000:]}")
    assert status == 0, f"cog could not check {page} (exit {status}):\n{printed}"


def test_every_listed_page_has_a_generated_part() -> None:
    for page in listed_pages():
        text = (ROOT / page).read_text()
        assert "[[[cog" in text and "[[[end]]]" in text, page


def test_a_page_that_lags_behind_the_code_is_caught(tmp_path: Path) -> None:
    stale = tmp_path / "settings.md"
    text = (ROOT / "docs" / "settings.md").read_text()
    assert "Chat model as 'provider:model'" in text
    stale.write_text(text.replace("Chat model as 'provider:model'", "Chat model as 'vendor:model'", 1))
    status, printed = cog_check(stale)
    assert status == COG_CHECK_FAILED
    assert "vendor:model" in printed  # the diff shows the line that lags


def test_a_page_already_in_step_passes(tmp_path: Path) -> None:
    shutil.copy(ROOT / "docs" / "settings.md", tmp_path / "settings.md")
    assert cog_check(tmp_path / "settings.md")[0] == 0


def test_the_settings_reference_has_every_context_field(generators: None) -> None:
    import settings_reference

    page = settings_reference.settings_reference()
    for field in dataclasses.fields(veracity.Context):
        assert f"### `{field.name}`" in page, field.name
        assert str(field.metadata["description"]) in page, field.name
    assert "`-m, --model PROVIDER:MODEL` (`batch`, `calibrate`, `check`, `eval`, `mcp`, `serve`)" in page
    assert "`--set temperature=VALUE`" in page
    assert "- Must be a whole number from 1 to 20." in page  # max_results: Bounds(1, 20), said for whole numbers


def test_the_cli_reference_has_every_command_and_no_machine_figure(generators: None) -> None:
    import cli_reference

    page = cli_reference.cli_reference()
    commands = re.findall(r"^#+ `(veracity[^`]*)`$", page, flags=re.M)
    assert {"veracity", "veracity check", "veracity serve", "veracity kb warm", "veracity cache clear"} <= set(commands)
    assert "[default: (one per usable CPU core); x>=1]" in " ".join(page.split())  # serve --workers, unwrapped


def test_the_cli_reference_does_not_depend_on_the_terminal(
        generators: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import cli_reference

    first = cli_reference.cli_reference()
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("VERACITY_KB", str(tmp_path / "kb"))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cli_reference.cli_reference() == first


def test_the_readme_drawing_is_the_snapshot_of_the_graph(generators: None) -> None:
    import graph_drawing

    snapshot = (ROOT / "tests" / "golden" / "graph.mmd").read_text()
    assert graph_drawing.mermaid_block() == f"```mermaid\n{snapshot.rstrip()}\n```\n"
    assert "verify_page" in (ROOT / "README.md").read_text()


def test_the_layout_lists_every_module_by_its_docstring(generators: None) -> None:
    import package_layout

    table = package_layout.package_layout()
    source = Path(veracity.__file__).parent
    expected = {path.name for path in source.glob("[!_]*.py")} | {
        f"{path.parent.name}/" for path in source.glob("[!_]*/__init__.py")}
    listed = set(re.findall(r"^\| `([^`]+)` \|", table, flags=re.M))
    assert listed == expected | {"__init__.py"}
    assert "| `graph.py` | Wiring only:" in table
    assert "Holds: `calculate`," in table  # nodes/: its step modules, without .py
