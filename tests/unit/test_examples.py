"""The examples/ scripts run as documented (scripted bot, offline check)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_support_bot_rewrites_the_warm_promise(capsys: pytest.CaptureFixture[str]) -> None:
    bot = load("support_bot")
    assert bot.main([]) == 0
    out = capsys.readouterr().out
    assert "guard: rewritten" in out
    assert "first answer, not shown to the customer): " + bot.SCRIPTED_REPLIES[0] in out
    assert out.rstrip().endswith("bot: " + bot.SCRIPTED_REPLIES[1])


def test_support_bot_can_block_instead(capsys: pytest.CaptureFixture[str]) -> None:
    bot = load("support_bot")
    assert bot.main(["--policy", "block"]) == 0
    out = capsys.readouterr().out
    assert "guard: blocked" in out and bot.SCRIPTED_REPLIES[1] not in out
