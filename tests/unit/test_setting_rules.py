"""Every setting is checked in one place, `Context` (issue 37, item 5): the same rule and the same words
whether the value comes from Python (`Context(...)`, `veracity.check(..., **settings)`, a Studio-style dict),
a command-line option or `--set` (a usage error, exit 2). The server's request settings are in
`tests/integration/test_server_settings.py`."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import veracity
import veracity.api
from veracity.cli import main
from veracity.cli.settings import dedicated, option_names
from veracity.context import SETTINGS, Context
from veracity.errors import SettingError
from veracity.graph import build_graph
from veracity.setting_rules import Bounds

TEXT = "Canberra is the capital of Australia."
NAN, INF = math.nan, math.inf

BAD: list[tuple[str, Any, str]] = [
    # (setting, the value in Python, the same value as the command line writes it)
    ("max_extraction_attempts", 0, "0"),
    ("max_extraction_attempts", -1, "-1"),
    ("max_judge_attempts", 0, "0"),
    ("max_judge_attempts", -3, "-3"),
    ("search_attempts", 0, "0"),
    ("search_attempts", -1, "-1"),
    ("model_timeout", 0.0, "0"),
    ("model_timeout", -1.0, "-1"),
    ("model_timeout", NAN, "nan"),
    ("model_timeout", INF, "inf"),
    ("search_timeout", 0.0, "0"),
    ("search_timeout", -1.0, "-1"),
    ("search_timeout", NAN, "nan"),
    ("page_timeout", NAN, "nan"),
    ("page_timeout", -1.0, "-1"),
    ("page_max_bytes", -1, "-1"),
    ("page_max_bytes", 0, "0"),
    ("search_backoff", -1.0, "-1"),
    ("search_backoff", NAN, "nan"),
    ("search_backoff", INF, "inf"),
    ("temperature", NAN, "nan"),
    ("temperature", -0.5, "-0.5"),
    ("temperature", INF, "inf"),
    ("page_allowed_networks", "10.0.0.0/33", "10.0.0.0/33"),
    ("page_allowed_networks", "intranet", "intranet"),
    ("page_allowed_networks", "127.0.0.1,,10.0.0.300", "127.0.0.1,,10.0.0.300"),
    ("max_results", 0, "0"),
    ("max_results", 21, "21"),
    ("max_revisions", -1, "-1"),
    ("max_revisions", 11, "11"),
    ("min_precision", 1.0, "1"),
    ("min_precision", -0.1, "-0.1"),
    ("min_precision", NAN, "nan"),
    ("check_deadline", 0.0, "0"),
    ("check_deadline", NAN, "nan"),
    ("check_deadline", INF, "inf"),
    ("max_text_chars", 0, "0"),
    ("search_cache_ttl", -1, "-1"),
    ("extraction_max_tokens", 0, "0"),
    ("judge_max_tokens", 0, "0"),
    ("revise_max_tokens", -5, "-5"),
    ("today", "2024-13-01", "2024-13-01"),
    ("page_archive_url", "https://archive.example/", "https://archive.example/"),
    ("tavily_base_url", "ftp://tavily.example", "ftp://tavily.example"),
    ("tavily_base_url", "tavily.example", "tavily.example"),
    ("model", " ", " "),
    ("judge_model", "", ""),
    ("kb_path", " ", " "),
    ("calibration", " ", " "),
    ("structured_output", "tool", "tool"),
    ("search", "bogus", "bogus"),
    ("source_title", "  ", "  "),
    ("revise_feedback", "Judge it again.", "Judge it again."),
    ("revise_feedback", "{issues} and {others}", "{issues} and {others}"),
    ("judge_prompt", "", ""),
]
"""Bad values, one or more per setting that has a rule, the ones the audit found first."""

GOOD: list[tuple[str, Any, str]] = [
    ("max_judge_attempts", 1, "1"),
    ("search_attempts", 1, "1"),
    ("model_timeout", 0.5, "0.5"),
    ("search_backoff", 0.0, "0"),
    ("page_max_bytes", 1, "1"),
    ("temperature", 0.0, "0"),
    ("temperature", 1.5, "1.5"),
    ("page_allowed_networks", "127.0.0.1, 10.0.0.0/8,::1", "127.0.0.1, 10.0.0.0/8,::1"),
    ("max_results", 1, "1"),
    ("max_results", 20, "20"),
    ("max_revisions", 0, "0"),
    ("max_revisions", 10, "10"),
    ("min_precision", 0.0, "0"),
    ("min_precision", 0.99, "0.99"),
    ("check_deadline", 0.001, "0.001"),
    ("search_cache_ttl", 0, "0"),
    ("today", "2024-02-29", "2024-02-29"),
    ("tavily_base_url", "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
    ("revise_feedback", "Again: {issues} {{not a field}}", "Again: {issues} {{not a field}}"),
    ("model", "offline", "offline"),
]
"""Values at the edge of each rule, which every surface takes."""


def refusal(name: str, value: Any) -> str:
    """What Python says when `value` is given for `name`."""
    with pytest.raises(SettingError) as raised:
        Context(**{name: value})
    return str(raised.value)


def cli_arguments(name: str, text: str) -> list[str]:
    """`check`'s arguments that give `name` the value `text`: its own option, or `--set`."""
    if name in dedicated("check"):
        return [option_names(name)[0], text]
    return ["--set", f"{name}={text}"]


def said(output: str) -> str:
    return " ".join(output.split())


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("COLUMNS", "400")
    return CliRunner()


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The settings `veracity check` would run with (the check itself is not run)."""
    seen: dict[str, Any] = {}

    async def capture(text: str, on_progress: Any = None, **settings: Any) -> object:
        seen.update(settings)
        raise SystemExit(0)

    monkeypatch.setattr(veracity.api, "acheck", capture)
    return seen


def test_the_table_covers_every_setting_with_a_rule() -> None:
    ruled = {name for name, field in SETTINGS.items() if "rule" in field.metadata}
    numbers = {name for name in SETTINGS if isinstance(SETTINGS[name].default, int | float)
               and not isinstance(SETTINGS[name].default, bool)}
    assert ruled - {name for name, _, _ in BAD} <= {"extract_model", "cache_path", "page_snapshots",
                                                    "extraction_prompt"}  # alike to the rows for their twins
    assert numbers <= ruled  # every number has a range


# --------------------------------------------------------------------------- Python

@pytest.mark.parametrize(("name", "value", "_text"), BAD)
def test_python_refuses_a_bad_value_naming_the_setting_and_the_value(name: str, value: Any, _text: str) -> None:
    message = refusal(name, value)
    assert message.startswith(f"{name} must ") and message.endswith(f"got {value!r}" + (
        " (not a finite number)" if isinstance(value, float) and not math.isfinite(value) else ""))
    assert "; " not in message  # one value, one problem


@pytest.mark.parametrize(("name", "value", "_text"), BAD)
def test_veracity_check_refuses_it_in_the_same_words_before_any_work(name: str, value: Any, _text: str) -> None:
    with pytest.raises(SettingError) as raised:
        veracity.check(TEXT, **{"model": "offline", name: value})
    assert str(raised.value) == refusal(name, value)


def test_a_studio_style_dict_context_is_checked_too() -> None:
    with pytest.raises(SettingError, match=r"^search_attempts must be a whole number, at least 1, got 0$"):
        build_graph().invoke({"text": TEXT}, context={"search_attempts": 0})  # type: ignore[arg-type]


def test_every_value_refused_is_named_at_once() -> None:
    with pytest.raises(SettingError) as raised:
        Context(max_judge_attempts=0, temperature=NAN)  # in the order Context lists them
    assert str(raised.value) == f"{refusal('temperature', NAN)}; {refusal('max_judge_attempts', 0)}"


def test_a_setting_error_is_a_value_error_and_a_veracity_error() -> None:
    assert issubclass(SettingError, ValueError) and issubclass(SettingError, veracity.VeracityError)
    assert veracity.SettingError is SettingError


@pytest.mark.parametrize(("name", "value"), [
    ("max_judge_attempts", 2.0), ("max_judge_attempts", "3"), ("max_judge_attempts", True),
    ("model_timeout", "10"), ("counter_search", "yes"), ("counter_search", 1), ("source_title", 5),
])
def test_a_value_of_another_type_is_refused(name: str, value: Any) -> None:
    assert refusal(name, value).endswith(f"got {value!r}")


@pytest.mark.parametrize(("name", "value", "_text"), GOOD)
def test_python_takes_the_edge_values(name: str, value: Any, _text: str) -> None:
    assert getattr(Context(**{name: value}), name) == value


def test_a_whole_number_is_a_number_too() -> None:
    assert Context(model_timeout=30, check_deadline=5).model_timeout == 30


# --------------------------------------------------------------------------- the command line

@pytest.mark.parametrize(("name", "value", "text"), BAD)
def test_the_command_line_refuses_it_in_the_same_words_with_exit_2(
    runner: CliRunner, captured: dict[str, Any], name: str, value: Any, text: str,
) -> None:
    result = runner.invoke(main, ["check", TEXT, "--model", "offline", *cli_arguments(name, text)])
    assert result.exit_code == 2, result.output
    assert said(refusal(name, value)) in said(result.output)
    assert "Traceback" not in result.output and not captured


@pytest.mark.parametrize(("name", "value", "text"), GOOD)
def test_the_command_line_takes_the_edge_values(
    runner: CliRunner, captured: dict[str, Any], name: str, value: Any, text: str,
) -> None:
    result = runner.invoke(main, ["check", TEXT, *cli_arguments(name, text)])
    assert result.exit_code == 0, result.output
    assert captured[name] == value


@pytest.mark.parametrize("command", ["batch", "serve", "eval"])
@pytest.mark.parametrize(("name", "value", "text"), [
    ("search_attempts", 0, "0"), ("model_timeout", NAN, "nan"), ("search_backoff", INF, "inf"),
    ("max_results", 0, "0"), ("page_allowed_networks", "intranet", "intranet"),
])
def test_every_command_refuses_it_in_the_same_words(runner: CliRunner, tmp_path: Path, command: str, name: str,
                                                    value: Any, text: str) -> None:
    rows = tmp_path / "in.jsonl"
    rows.write_text(json.dumps({"text": TEXT}) + "\n")
    leading = {"batch": [str(rows), "--out", str(tmp_path / "out.jsonl")], "serve": [], "eval": [str(rows)]}[command]
    given = ([option_names(name)[0], text] if name in dedicated(command) else ["--set", f"{name}={text}"])
    result = runner.invoke(main, [command, *leading, *given])
    assert result.exit_code == 2, result.output
    assert said(refusal(name, value)) in said(result.output)


def test_the_help_says_each_range_as_the_rule_says_it(runner: CliRunner) -> None:
    help_text = said(runner.invoke(main, ["check", "--help"]).output)
    for name in dedicated("check"):
        rule = SETTINGS[name].metadata.get("rule")
        if isinstance(rule, Bounds):
            assert f"Must {rule.says(whole=isinstance(SETTINGS[name].default, int))}." in help_text, name
