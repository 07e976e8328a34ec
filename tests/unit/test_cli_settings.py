"""The settings options, derived from Context's field metadata: one option or `--set` per field, defaults
read from the fields, `--set` conversion and errors, and the same Context as the hand-written mapping gave."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args, get_type_hints

import click
import pytest
from click.testing import CliRunner, Result

import veracity
import veracity.api
import veracity.batch
import veracity.evaluation.runner
import veracity.server.app
from tests.unit.eval_data import OFFLINE_ROWS, write_jsonl
from veracity.cli import main
from veracity.cli.settings import (
    SET_PARAM,
    dedicated,
    option_help,
    option_names,
    settable,
    shown_default,
)
from veracity.context import SECTIONS, SETTINGS, Context, setting_description
from veracity.server.app import FactcheckInput

COMMANDS = ("check", "batch", "serve", "eval")
TEXT = "Canberra is the capital of Australia."


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("COLUMNS", "220")
    return CliRunner()


def params(command: str) -> dict[str, click.Parameter]:
    return {str(param.name): param for param in main.commands[command].params}


# --------------------------------------------------------------------------- defined once

def test_every_field_has_a_section_and_a_description() -> None:
    for name, field in SETTINGS.items():
        assert field.metadata["section"] in SECTIONS, name
        assert field.metadata["description"].strip(), name


def test_studio_shows_each_fields_description() -> None:
    properties = veracity.build_graph().get_context_jsonschema()["properties"]
    assert {name: properties[name]["description"] for name in SETTINGS} == {
        name: setting_description(name) for name in SETTINGS}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_field_is_an_option_of_its_own_or_taken_by_set(command: str) -> None:
    own = params(command)
    assert SET_PARAM in own
    for name in SETTINGS:
        assert (name in own) != (name in settable(command)), name  # one way in, never two
        if name in own:
            assert own[name].opts[0] == option_names(name)[0].split("/")[0]
    assert set(dedicated(command)) | set(settable(command)) == set(SETTINGS)
    assert all(name in (own[SET_PARAM].help or "") for name in settable(command))


def test_the_per_step_models_are_options_of_every_command() -> None:
    for command in COMMANDS:
        assert {"model", "extract_model", "judge_model"} <= set(params(command))
        assert "--extract-model" in params(command)["extract_model"].opts


def test_the_flags_keep_their_names() -> None:
    check = params("check")
    assert {name: check[name].opts for name in ("kb_path", "tavily_base_url", "max_text_chars", "check_deadline",
                                                "page_snapshots", "page_archive_url", "cache", "cache_path")} == {
        "kb_path": ["--kb"], "tavily_base_url": ["--tavily-url"], "max_text_chars": ["--max-chars"],
        "check_deadline": ["--deadline"], "page_snapshots": ["--snapshots"], "page_archive_url": ["--archive-url"],
        "cache": ["--no-cache"], "cache_path": ["--cache"],
    }
    pages = check["verify_pages"]
    assert pages.opts == ["--page-check"] and pages.secondary_opts == ["--no-page-check"]
    assert "-m" in check["model"].opts and "-s" in check["search"].opts


@pytest.mark.parametrize("command", COMMANDS)
def test_the_help_shows_each_default_as_the_field_holds_it(command: str) -> None:
    own = params(command)
    for name in dedicated(command):
        default = shown_default(name)
        switch = SETTINGS[name].type == "bool" and "/" not in option_names(name)[0]
        if default is not None and not switch:
            assert f"Default: {default}." in (own[name].help or ""), name
    assert "Default: 2." in (own["max_revisions"].help or "")


def test_a_changed_default_changes_the_help(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SETTINGS["max_results"], "default", 7)
    monkeypatch.setattr(SETTINGS["check_deadline"], "default", 45.0)
    assert option_help("max_results").endswith("Default: 7.")
    assert option_help("check_deadline").endswith("Default: 45.")


def test_the_servers_request_settings_come_from_context() -> None:
    fields = FactcheckInput.model_fields
    hints = get_type_hints(Context)
    for name in ("search", "source_text"):
        assert (fields[name].description or "").startswith(setting_description(name))
        assert set(get_args(fields[name].annotation)) == set(get_args(hints[name] | None))
    schema = FactcheckInput.model_json_schema()["properties"]
    assert set(schema) == {"text", "source_text", "search", "model", "thread_id"}


# --------------------------------------------------------------------------- --set

def captured_check(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    async def capture(text: str, on_progress: Any = None, on_start: Any = None, **settings: Any) -> object:
        seen.update(settings)
        raise SystemExit(0)

    monkeypatch.setattr(veracity.api, "acheck", capture)
    return seen


@pytest.mark.parametrize(
    ("assignment", "name", "value"),
    [
        ("temperature=0.3", "temperature", 0.3),
        ("max_judge_attempts=5", "max_judge_attempts", 5),
        ("max-judge-attempts=4", "max_judge_attempts", 4),
        ("counter_search=no", "counter_search", False),
        ("counter_search=TRUE", "counter_search", True),
        ("source_title=Policy v2", "source_title", "Policy v2"),
        ("page_allowed_networks=10.0.0.0/8", "page_allowed_networks", "10.0.0.0/8"),
        ("judge_max_tokens=300", "judge_max_tokens", 300),
    ],
)
def test_set_converts_from_the_fields_type(runner: CliRunner, monkeypatch: pytest.MonkeyPatch, assignment: str,
                                           name: str, value: object) -> None:
    seen = captured_check(monkeypatch)
    result = runner.invoke(main, ["check", TEXT, "--model", "offline", "--set", assignment])
    assert result.exit_code == 0, result.output
    assert seen[name] == value and type(seen[name]) is type(value)


def test_set_none_unsets_an_optional_field_and_literals_are_checked(runner: CliRunner,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    seen = captured_check(monkeypatch)
    result = runner.invoke(main, ["check", TEXT, "--model", "offline", "--set", "extraction_max_tokens=900",
                                  "--set", "extraction_max_tokens=none", "--set", "max_extraction_attempts=2"])
    assert result.exit_code == 0, result.output
    assert "extraction_max_tokens" not in seen and seen["max_extraction_attempts"] == 2


@pytest.mark.parametrize(
    ("command", "assignment", "message"),
    [
        ("check", "max_judge_atempts=5", "unknown setting 'max_judge_atempts'; did you mean max_judge_attempts"),
        ("check", "colour=blue", "unknown setting 'colour'; the settings are: temperature"),
        ("check", "max_judge_attempts=many", "max_judge_attempts must be a whole number, at least 1, got 'many'"),
        ("check", "temperature=warm", "temperature must be a number, 0 or more, got 'warm'"),
        ("check", "counter_search=maybe", "counter_search must be true or false, got 'maybe' (yes/no, on/off"),
        ("check", "max_revisions=3", "max_revisions has its own option: use --max-revisions"),
        ("check", "verify_pages=false", "verify_pages has its own option: use --page-check"),
        ("check", "temperature", "expected NAME=VALUE, got 'temperature'"),
        ("check", "judge_max_tokens=0", "judge_max_tokens must be a positive whole number of tokens, got 0"),
        ("batch", "structured_output=tool", "structured_output must be one of auto, json_schema, tools, prompt, got "
                                            "'tool' (did you mean tools"),
        ("batch", "today=yesterday", "today must be a date as YYYY-MM-DD"),
        ("serve", "page_archive_url=https://archive.example/", "page_archive_url must hold {url}"),
        ("eval", "serch_timeout=3", "did you mean search_timeout"),
    ],
)
def test_a_bad_set_is_a_usage_error_naming_the_field(runner: CliRunner, tmp_path: Path, command: str,
                                                    assignment: str, message: str) -> None:
    leading = {"check": [TEXT], "batch": [str(tmp_path / "in.jsonl"), "--out", str(tmp_path / "out.jsonl")],
               "serve": [], "eval": [str(tmp_path / "in.jsonl")]}[command]
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": TEXT}) + "\n")
    result = runner.invoke(main, [command, *leading, "--set", assignment])
    assert result.exit_code == 2, result.output
    assert "'--set'" in result.output and message in " ".join(result.output.split())


def test_an_option_value_is_checked_as_context_checks_it(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check", TEXT, "--archive-url", "https://archive.example/web/"])
    assert result.exit_code == 2 and "'--archive-url'" in result.output and "must hold {url}" in result.output


# --------------------------------------------------------------------------- the same Context as before

def old_check_settings(**given: Any) -> dict[str, Any]:
    """What `check` mapped its flags onto before the settings were derived (search always given)."""
    return {"search": "auto", **{name: value for name, value in given.items() if value is not None}}


CHECK_CASES = [
    ([], {}),
    (["--model", "offline", "-s", "kb", "--max-revisions", "1", "--max-results", "3"],
     {"model": "offline", "search": "kb", "max_revisions": 1, "max_results": 3}),
    (["-m", "offline", "--extract-model", "offline", "--judge-model", "openai:gpt-4.1", "--structured-output",
      "tools", "--max-tokens", "judge=300", "--min-precision", "0.8"],
     {"model": "offline", "extract_model": "offline", "judge_model": "openai:gpt-4.1", "structured_output": "tools",
      "judge_max_tokens": 300, "min_precision": 0.8}),
    (["--model", "offline", "--kb", "kbdir", "--tavily-url", "http://tavily.test", "--max-chars", "500", "--today",
      "2024-01-02", "--deadline", "30", "--no-page-check", "--snapshots", "snaps", "--archive-url",
      "https://archive.test/{url}", "--allow-snippet-citations"],
     {"model": "offline", "kb_path": "kbdir", "tavily_base_url": "http://tavily.test", "max_text_chars": 500,
      "today": "2024-01-02", "check_deadline": 30.0, "verify_pages": False, "page_snapshots": "snaps",
      "page_archive_url": "https://archive.test/{url}", "allow_snippet_citations": True}),
    (["--model", "offline", "--page-check", "--no-cache", "--cache", "c.sqlite", "--search-cache-ttl", "0"],
     {"model": "offline", "verify_pages": True, "cache": False, "cache_path": "c.sqlite", "search_cache_ttl": 0}),
]


@pytest.mark.parametrize(("flags", "old"), CHECK_CASES)
def test_check_maps_its_flags_onto_the_same_context_as_before(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, flags: list[str], old: dict[str, Any],
) -> None:
    seen = captured_check(monkeypatch)
    result = runner.invoke(main, ["check", TEXT, *flags])
    assert result.exit_code == 0, result.output
    assert Context.from_settings(**seen) == Context.from_settings(**old_check_settings(**old))
    assert {name: value for name, value in seen.items() if (name, value) != ("search", "auto")} == old


def test_batch_serve_and_eval_pass_the_same_settings_as_before(runner: CliRunner, monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    seen: dict[str, dict[str, Any]] = {}

    async def batch(*_args: Any, concurrency: int, text_field: str, on_row: Any, **settings: Any) -> None:
        seen["batch"] = settings
        raise SystemExit(0)

    async def evaluate(*_args: Any, on_progress: Any, **options: Any) -> None:
        seen["eval"] = options
        raise SystemExit(0)

    def app(*, rate_limit: Any, checkpoint: Any, **settings: Any) -> None:
        seen["serve"] = settings
        raise SystemExit(0)

    monkeypatch.setattr(veracity.batch, "abatch", batch)
    monkeypatch.setattr(veracity.evaluation.runner, "arun_eval", evaluate)
    monkeypatch.setattr(veracity.server.app, "create_app", app)
    rows = write_jsonl(tmp_path / "rows.jsonl", [{"text": TEXT}])
    common = ["-m", "offline", "--min-precision", "0.5", "--no-cache"]
    for command, leading, extra in (
        ("batch", [str(rows), "--out", str(tmp_path / "out.jsonl")], ["-s", "kb", "--kb", "kb", "--cache", "c"]),
        ("serve", ["--workers", "1"], ["-s", "web"]),  # in this process, where create_app is replaced
        ("eval", [str(write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS))], ["--search", "kb", "--kb", "kb",
                                                                               "--max-revisions", "1"]),
    ):
        result = runner.invoke(main, [command, *leading, *common, *extra])
        assert result.exit_code == 0, (command, result.output)
    base = {"model": "offline", "min_precision": 0.5, "cache": False}
    assert seen["batch"] == {**base, "search": "kb", "kb_path": "kb", "cache_path": "c"}
    assert seen["serve"] == {**base, "search": "web"}
    assert seen["eval"] == {**base, "search": "kb", "kb_path": "kb", "max_revisions": 1, "mode": "auto", "runs": 1,
                            "concurrency": 4, "baseline": False}


def test_batch_takes_the_per_step_models_and_set(runner: CliRunner, monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def batch(*_args: Any, concurrency: int, text_field: str, on_row: Any, **settings: Any) -> None:
        seen.update(settings)
        raise SystemExit(0)

    monkeypatch.setattr(veracity.batch, "abatch", batch)
    rows = write_jsonl(tmp_path / "rows.jsonl", [{"text": TEXT}])
    result: Result = runner.invoke(main, ["batch", str(rows), "--out", str(tmp_path / "out.jsonl"), "--extract-model",
                                          "offline", "--judge-model", "openai:gpt-4.1", "--set", "check_deadline=30"])
    assert result.exit_code == 0, result.output
    assert seen == {"extract_model": "offline", "judge_model": "openai:gpt-4.1", "check_deadline": 30.0}
