"""The cache of model answers and web searches, through the real OpenAI and Tavily clients on loopback fakes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

import veracity
from tests.integration.conftest import FakeOpenAI, FakeTavily
from tests.integration.test_real_clients import (  # noqa: F401 (scripted is a fixture)
    assert_supported_with_served_quotes,
    run_check,
    scripted,
)
from veracity.audit import write_artefacts
from veracity.cache import default_cache_path
from veracity.cli import main

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("scripted")]

MODEL_STEPS = ("extract_claims", "judge_claim")


def cache_file() -> Path:
    """The per-test cache file the shared test set-up points VERACITY_CACHE at."""
    return default_cache_path()


def outcomes(report: veracity.Report, step: str) -> list[str | None]:
    """The cache outcome of each successful call of `step` in the report's trace."""
    return [record.cache for record in report.trace if record.step == step and record.outcome == "ok"]


def labels(report: veracity.Report) -> list[tuple[str, str, str | None]]:
    return [(verdict.claim_id, verdict.label, verdict.quote) for verdict in report.verdicts]


def test_a_second_identical_check_makes_no_model_call_and_no_search(
    fake_openai: FakeOpenAI, fake_tavily: FakeTavily, tmp_path: Path
) -> None:
    first = run_check()
    calls, searches = len(fake_openai.requests), len(fake_tavily.requests)
    assert (calls, searches) == (3, 4)
    assert {outcome for step in (*MODEL_STEPS, "gather_evidence") for outcome in outcomes(first, step)} == {"miss"}

    second = run_check()

    assert (len(fake_openai.requests), len(fake_tavily.requests)) == (calls, searches)
    assert second.ok and labels(second) == labels(first)
    assert_supported_with_served_quotes(second)
    for step in (*MODEL_STEPS, "gather_evidence"):
        assert outcomes(second, step) and set(outcomes(second, step)) == {"hit"}, step
    # A kept answer cost nothing this time.
    assert (second.tokens_in, second.tokens_out) == (0, 0) and first.tokens_in > 0
    # The audit trail says which searches were answered from the cache.
    write_artefacts(first, tmp_path / "first")
    write_artefacts(second, tmp_path / "second")
    assert "answered from the cache" not in (tmp_path / "first" / "audit.md").read_text(encoding="utf-8")
    assert (tmp_path / "second" / "audit.md").read_text(encoding="utf-8").count("answered from the cache") == 4


def test_no_cache_asks_again_and_records_no_outcome(fake_openai: FakeOpenAI, fake_tavily: FakeTavily) -> None:
    run_check()

    report = run_check(cache=False)

    assert (len(fake_openai.requests), len(fake_tavily.requests)) == (6, 8)
    assert report.ok and report.tokens_in > 0
    assert all(record.cache is None for record in report.trace)


def test_other_settings_are_other_keys(fake_openai: FakeOpenAI, fake_tavily: FakeTavily) -> None:
    run_check()

    run_check(max_results=3)  # a different search limit: new searches, same prompts to the model
    assert len(fake_tavily.requests) == 8 and {r.body["max_results"] for r in fake_tavily.requests[4:]} == {3}
    assert len(fake_openai.requests) == 3

    run_check(max_results=3, temperature=0.5)  # another model setting: the model is asked again
    assert len(fake_openai.requests) == 6 and len(fake_tavily.requests) == 8


def test_an_expired_search_is_made_again_while_model_answers_stay(
    fake_openai: FakeOpenAI, fake_tavily: FakeTavily
) -> None:
    run_check()
    with sqlite3.connect(cache_file()) as connection:
        aged = connection.execute("UPDATE cache SET expiry = 1 WHERE ns LIKE 'search%'").rowcount
    assert aged == 4

    report = run_check()

    assert len(fake_tavily.requests) == 8 and len(fake_openai.requests) == 3
    assert set(outcomes(report, "gather_evidence")) == {"miss"}
    assert set(outcomes(report, "judge_claim")) == {"hit"}


def test_a_search_ttl_of_zero_always_searches(fake_openai: FakeOpenAI, fake_tavily: FakeTavily) -> None:
    run_check(search_cache_ttl=0)
    run_check(search_cache_ttl=0)

    assert len(fake_tavily.requests) == 8 and len(fake_openai.requests) == 3


def test_an_unusable_cache_file_is_skipped_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_openai: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    broken = tmp_path / "cache.sqlite"
    broken.write_bytes(b"this is not a database" * 100)
    monkeypatch.setenv("VERACITY_CACHE", str(broken))

    report = run_check()

    assert report.ok and len(fake_openai.requests) == 3
    assert all(record.cache is None for record in report.trace)
    assert any("cannot open the cache" in message for message in caplog.messages)


def test_cache_stats_and_clear_from_the_command_line(fake_tavily: FakeTavily) -> None:
    runner = CliRunner()
    run_check()

    stats = json.loads(runner.invoke(main, ["cache", "stats", "--json"]).output)
    assert stats["path"] == str(cache_file()) and stats["bytes"] > 0
    assert stats["entries"] == {"model": 3, "search": 4} and stats["expired"] == 0
    text = runner.invoke(main, ["cache", "stats"]).output
    assert "model answers: 3" in text and "searches: 4" in text

    cleared = runner.invoke(main, ["cache", "clear", "--kind", "search"])
    assert cleared.exit_code == 0 and "removed 4 entries" in cleared.output
    assert json.loads(runner.invoke(main, ["cache", "stats", "--json"]).output)["entries"] == {"model": 3}

    run_check()  # the searches are made again; the model answers are still kept
    assert len(fake_tavily.requests) == 8
    assert runner.invoke(main, ["cache", "clear"]).output.startswith("removed 7 entries")


def test_cache_commands_report_an_unreadable_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"garbage" * 1000)

    result = CliRunner().invoke(main, ["cache", "stats", "--cache", str(broken)])

    assert result.exit_code == 2 and "cannot read the cache" in result.output
    missing = CliRunner().invoke(main, ["cache", "stats", "--cache", str(tmp_path / "none.sqlite")])
    assert missing.exit_code == 0 and "no cache yet" in missing.output


async def test_eval_with_several_runs_asks_the_model_each_run(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    from tests.integration.test_real_clients import DESIGNED, QUOTES, SEARCH_RESULTS
    from veracity.evaluation.runner import arun_eval

    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "r1", "claim": DESIGNED, "evidence": SEARCH_RESULTS[DESIGNED][1]["content"],
                                "label": "supported"}) + "\n", encoding="utf-8")
    assert QUOTES[DESIGNED] in SEARCH_RESULTS[DESIGNED][1]["content"]

    await arun_eval(rows, mode="llm", model="openai:gpt-4.1-mini")
    await arun_eval(rows, mode="llm", model="openai:gpt-4.1-mini")
    assert len(fake_openai.requests) == 1  # the second evaluation was answered from the cache

    result = await arun_eval(rows, mode="llm", model="openai:gpt-4.1-mini", runs=3)
    assert len(fake_openai.requests) == 4  # three runs, three answers: the spread is the model's own
    assert len(result.runs) == 3


def test_batch_reruns_from_the_cache_unless_told_not_to(
    fake_openai: FakeOpenAI, fake_tavily: FakeTavily, tmp_path: Path
) -> None:
    from tests.integration.test_real_clients import TEXT

    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "a", "text": TEXT}) + "\n", encoding="utf-8")
    runner = CliRunner()

    def batch(out: str, *extra: str) -> None:
        result = runner.invoke(main, ["batch", str(rows), "--out", str(tmp_path / out),
                                      "--model", "openai:gpt-4.1-mini", "--search", "web", *extra])
        assert result.exit_code in (0, 3), result.output
        assert json.loads((tmp_path / out).read_text(encoding="utf-8"))["report"]["claims"]

    batch("first.jsonl")
    assert (len(fake_openai.requests), len(fake_tavily.requests)) == (3, 4)
    batch("second.jsonl")  # a new output file, so nothing is skipped: every answer comes from the cache
    assert (len(fake_openai.requests), len(fake_tavily.requests)) == (3, 4)
    batch("third.jsonl", "--no-cache")
    assert (len(fake_openai.requests), len(fake_tavily.requests)) == (6, 8)
    batch("fourth.jsonl", "--cache", str(tmp_path / "other.sqlite"))  # another, empty cache file
    assert (len(fake_openai.requests), len(fake_tavily.requests)) == (9, 12)


def test_cache_commands_leave_a_database_without_a_cache_alone(tmp_path: Path) -> None:
    other = tmp_path / "notes.sqlite"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")

    stats = CliRunner().invoke(main, ["cache", "stats", "--json", "--cache", str(other)])
    cleared = CliRunner().invoke(main, ["cache", "clear", "--cache", str(other)])

    assert json.loads(stats.output)["entries"] == {} and "removed 0 entries" in cleared.output
    with sqlite3.connect(other) as connection:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert tables == ["notes"]
