"""`import veracity` and `veracity --help` load no heavy library; the lazy command table matches the commands.

`veracity check` decides what its run will load before it imports any heavy library (so the models load in
the background while LangGraph is imported), and an offline check imports no chat-model or web-search client.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import click
import pytest

import veracity
from veracity.cli import COMMANDS, main

HEAVY = ("langchain_core", "langgraph", "onnxruntime", "numpy", "faiss", "torch")

CLIENTS = ("openai", "langchain_openai", "tavily")
"""The chat-model and web-search clients: an offline check needs none of them."""


def loaded_heavy(code: str, heavy: tuple[str, ...] = HEAVY) -> str:
    report = f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r})))"
    done = subprocess.run([sys.executable, "-c", f"{code}\n{report}"], capture_output=True, text=True,
                          check=True, timeout=60)
    return done.stdout.strip().splitlines()[-1]


def test_import_veracity_loads_no_heavy_library() -> None:
    assert loaded_heavy("import sys, veracity") == "[]"


def test_cli_help_loads_no_heavy_library_and_no_command() -> None:
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from veracity.cli import main\n"
        "result = CliRunner().invoke(main, ['--help'])\n"
        "assert result.exit_code == 0 and 'Commands:' in result.output, result.output\n"
        "assert not [m for m in sys.modules if m.startswith('veracity.cli.') and m != 'veracity.cli.lazy_group']\n"
    )
    assert loaded_heavy(code) == "[]"


def test_check_resolves_its_mode_before_loading_a_heavy_library() -> None:
    # what `veracity check` imports before it starts loading the models in the background (`veracity.run.warmup`)
    code = (
        "import sys\n"
        "from veracity.cli.check import check_command\n"
        "from veracity.context import Context\n"
        "from veracity.resources import preload_steps, resolve_mode\n"
        "from veracity.run.warmup import WarmUp\n"
        "context = Context.from_settings(model='offline', search='kb')\n"
        "assert len(preload_steps(context, resolve_mode(context))) == 4\n"
    )
    assert loaded_heavy(code) == "[]"


def test_an_offline_check_loads_no_chat_model_or_web_client(tmp_path: Path) -> None:
    policy = tmp_path / "policy.txt"
    policy.write_text("Returns are accepted within 30 days of purchase with a receipt.\n", encoding="utf-8")
    code = (
        "import sys\n"
        "from veracity.cli import main\n"
        "sys.argv = ['veracity', 'check', 'You can return it within 30 days.', '--source', "
        f"{str(policy)!r}, '--model', 'offline']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exit:\n"
        "    assert exit.code == 0, exit.code\n"
    )
    assert loaded_heavy(code, CLIENTS) == "[]"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_lazy_table_matches_command(name: str) -> None:
    entry = COMMANDS[name]
    command = getattr(importlib.import_module(entry.module), entry.attribute)
    assert isinstance(command, click.Command)
    stand_in = main.stand_in(name)
    assert stand_in is not None
    for limit in range(20, 200):
        assert stand_in.get_short_help_str(limit) == command.get_short_help_str(limit)
    assert bool(command.short_help) == entry.summary_is_short_help


def test_every_command_is_listed_and_loads() -> None:
    ctx = click.Context(main)
    assert main.list_commands(ctx) == sorted(COMMANDS)
    for name in COMMANDS:
        entry = COMMANDS[name]
        assert main.get_command(ctx, name) is getattr(importlib.import_module(entry.module), entry.attribute)
    assert main.get_command(ctx, "no-such-command") is None


def test_public_names_resolve() -> None:
    for name in veracity.__all__:
        assert getattr(veracity, name) is not None, name
    importlib.import_module("veracity.graph")  # binding the submodule must not hide the compiled graph
    assert veracity.graph.name == "factcheck"
    assert set(veracity.__all__) <= set(dir(veracity))
    with pytest.raises(AttributeError):
        veracity.no_such_name  # type: ignore[attr-defined]  # noqa: B018
