"""`veracity batch --ray` and `batch_on_ray`: the rows checked by Ray actors on a local Ray instance.

One Ray instance (2 CPUs, no dashboard, node address 127.0.0.1, its files under the test's
temporary folder, token authentication with a token of its own) serves the whole module. Its
processes inherit the environment of the moment it starts, so the fixture starts it in the
same isolated environment the tests get (no keys, tracing off, knowledge base and cache in
temporary folders), and the tests name their knowledge base explicitly.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from veracity.batch import abatch, batch_on_ray
from veracity.batch.rows import row_id
from veracity.cli import main
from veracity.contracts import SearchHit
from veracity.errors import ConfigurationError
from veracity.kb import KnowledgeBase

POLICY = "The customer may return a package within 14 days of the delivery date."
ROWS = [
    {"id": "opera", "text": "The Sydney Opera House opened in 1973. It was designed by Jørn Utzon."},
    {"text": "Sydney is the capital of Australia."},
    {"id": "returns", "text": "You can return the package within 30 days.", "source": POLICY},
    {"id": "tower", "text": "The Eiffel Tower is in Berlin. It was completed in 1889."},
    {"id": "everest", "text": "Mount Everest is the highest mountain on Earth. Edmund Hillary reached it in 1953."},
    {"id": "empty", "text": "  "},
]


@pytest.fixture(scope="module")
def ray_instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A local Ray instance for the module, started in an isolated environment and shut down after."""
    with pytest.MonkeyPatch.context() as env:
        for name in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING"):
            env.setenv(name, "false")
        for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "TAVILY_API_BASE_URL",
                     "LANGSMITH_API_KEY", "RAY_ADDRESS", "RAY_AUTH_TOKEN_PATH"):
            env.delenv(name, raising=False)
        env.setenv("VERACITY_KB", str(tmp_path_factory.mktemp("ray-default-kb") / "kb"))
        env.setenv("VERACITY_CACHE", str(tmp_path_factory.mktemp("ray-cache") / "cache.sqlite"))
        env.setenv("RAY_USAGE_STATS_ENABLED", "0")
        # Ray listens on every interface: keep its token authentication, with a token of this run's
        # own instead of one written to ~/.ray (read when ray is imported, so set first)
        env.setenv("RAY_AUTH_MODE", "token")
        env.setenv("RAY_AUTH_TOKEN", secrets.token_hex(32))
        ray = pytest.importorskip("ray")
        if ray.is_initialized():
            pytest.skip("Ray is already initialised in this process")
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1",
                 _temp_dir=str(tmp_path_factory.mktemp("ray")))
        try:
            yield
        finally:
            ray.shutdown()


def write_jsonl(path: Path, rows: list[dict[str, Any]], extra_lines: tuple[str, ...] = ()) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows) + "".join(extra_lines))
    return path


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def outcomes(path: Path) -> dict[str, Any]:
    """Per row id: each claim with its label, or the row's error; what a run decides, without its timings."""
    result: dict[str, Any] = {}
    for record in lines(path):
        report = record.get("report")
        if report is None:
            result[record["id"]] = ("error", record["error"].split(":")[0])
        else:
            labels = {verdict["claim_id"]: verdict["label"] for verdict in report["verdicts"]}
            result[record["id"]] = (report["mode"], [(claim["text"], labels.get(claim["id"]))
                                                     for claim in report["claims"]])
    return result


def test_ray_writes_the_same_reports_as_the_in_process_run(ray_instance: None, demo_kb: KnowledgeBase,
                                                            tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", ROWS, ("{not json\n",))
    settings = {"model": "offline", "search": "kb", "kb_path": str(demo_kb.path)}
    plain = asyncio.run(abatch(source, tmp_path / "plain.jsonl", concurrency=2, **settings))
    seen: list[str] = []
    distributed = batch_on_ray(source, tmp_path / "ray.jsonl", on_row=lambda row, _record: seen.append(row.id),
                               **settings)
    assert outcomes(tmp_path / "ray.jsonl") == outcomes(tmp_path / "plain.jsonl")
    assert sorted(seen) == sorted(record["id"] for record in lines(tmp_path / "ray.jsonl"))
    for field in ("rows", "skipped", "checked", "failed", "claims"):
        assert getattr(distributed, field) == getattr(plain, field), field
    assert (distributed.checked, distributed.failed) == (7, 2)  # the empty row and the bad JSON line
    by_id = {record["id"]: record for record in lines(tmp_path / "ray.jsonl")}
    assert by_id["opera"]["report"]["verdicts"][0]["label"] == "supported"
    assert by_id["returns"]["report"]["mode"] == "offline+source"


def test_a_rerun_on_ray_skips_the_rows_already_done(ray_instance: None, demo_kb: KnowledgeBase,
                                                    tmp_path: Path) -> None:
    source, out = write_jsonl(tmp_path / "in.jsonl", ROWS[:2]), tmp_path / "out.jsonl"
    settings = {"model": "offline", "search": "kb", "kb_path": str(demo_kb.path)}
    asyncio.run(abatch(source, out, **settings))  # an earlier run, in process
    complete = out.read_text().splitlines(keepends=True)
    out.write_text(complete[0] + complete[1][:40])  # and a line cut short by a crash
    write_jsonl(source, [*ROWS[:2], ROWS[3]])
    again = batch_on_ray(source, out, workers=1, **settings)
    assert (again.rows, again.skipped, again.checked) == (3, 1, 2)
    assert sorted(record["id"] for record in lines(out)) == sorted(["opera", row_id(ROWS[1]["text"], None), "tower"])


def test_a_row_that_fails_is_recorded_and_the_run_goes_on(ray_instance: None, demo_kb: KnowledgeBase,
                                                         tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"id": "long", "text": "The Nile is long. " * 50}, ROWS[0]])
    summary = batch_on_ray(source, tmp_path / "out.jsonl", model="offline", search="kb",
                           kb_path=str(demo_kb.path), max_text_chars=100)
    assert (summary.checked, summary.failed) == (2, 1)
    errors = {record["id"]: record.get("error") for record in lines(tmp_path / "out.jsonl")}
    assert errors["long"].startswith("InputError") and errors["opera"] is None
    assert summary.failures == [f"line 1 (long): {errors['long']}"]


def test_a_worker_that_dies_records_its_row_and_the_run_goes_on(ray_instance: None, tmp_path: Path) -> None:
    class PoisonedNotes:
        """Finds nothing, and kills the worker process on a claim about poison."""

        name = "notes"

        async def search(self, query: str, *, limit: int) -> list[SearchHit]:
            if "poison" in query.lower():
                os._exit(1)
            return []

    rows = [{"id": "fine", "text": "The Eiffel Tower is in Paris."},
            {"id": "deadly", "text": "The poison apple is red."},
            {"id": "after", "text": "The Nile is in Africa."}]
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    summary = batch_on_ray(source, tmp_path / "out.jsonl", workers=1, model="offline", backend=PoisonedNotes())
    out = {record["id"]: record for record in lines(tmp_path / "out.jsonl")}
    assert (summary.checked, summary.failed) == (3, 1)
    assert "the Ray worker checking it failed" in out["deadly"]["error"]
    assert out["after"]["report"]["verdicts"][0]["label"] == "unverifiable"  # the restarted worker went on


def test_a_worker_that_cannot_start_stops_the_run_before_any_row(ray_instance: None, tmp_path: Path) -> None:
    def no_key_here() -> None:
        raise ConfigurationError("TAVILY_API_KEY is not set on this worker")

    class NotesOnlyHere:
        """Usable here, and cannot be rebuilt on a worker (as a backend whose key only the driver has)."""

        name = "notes"

        async def search(self, query: str, *, limit: int) -> list[SearchHit]:
            return []

        def __reduce__(self) -> tuple[Any, tuple[()]]:
            return no_key_here, ()

    source, out = write_jsonl(tmp_path / "in.jsonl", ROWS[:1]), tmp_path / "out.jsonl"
    with pytest.raises(ConfigurationError, match="a Ray worker could not start: .*TAVILY_API_KEY"):
        batch_on_ray(source, out, workers=1, model="offline", backend=NotesOnlyHere())
    assert not out.exists()


def test_a_setting_that_cannot_work_is_refused_before_ray_is_used(ray_instance: None, tmp_path: Path) -> None:
    source, out = write_jsonl(tmp_path / "in.jsonl", ROWS[:1]), tmp_path / "out.jsonl"
    with pytest.raises(ConfigurationError):
        batch_on_ray(source, out, model="openai:gpt-4o-mini", search="kb")  # no OPENAI_API_KEY
    assert not out.exists()


def test_the_cli_runs_on_ray(ray_instance: None, demo_kb: KnowledgeBase, tmp_path: Path) -> None:
    source, out = write_jsonl(tmp_path / "in.jsonl", ROWS), tmp_path / "out.jsonl"
    command = ["batch", str(source), "--out", str(out), "--model", "offline", "--search", "kb",
               "--kb", str(demo_kb.path), "--summary", str(tmp_path / "summary.csv")]
    result = CliRunner().invoke(main, [*command, "--ray", "--ray-workers", "2"])
    assert result.exit_code == 3, result.output  # the empty row
    assert "6 row(s): 6 checked (1 failed)" in result.stderr, result.stderr
    assert len(lines(out)) == 6 and len((tmp_path / "summary.csv").read_text().splitlines()) == 7
    again = CliRunner().invoke(main, [*command, "--ray=auto"])  # an address: this process's Ray is used
    assert again.exit_code == 3, again.output  # the empty row is still without a report, and is named
    assert "6 row(s): 0 checked (0 failed), 6 already in" in again.stderr, again.stderr
    assert "not checked: 1 row(s) have no report" in " ".join(again.stderr.split())


def test_ray_workers_without_ray_is_a_usage_error(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", ROWS[:1])
    result = CliRunner().invoke(main, ["batch", str(source), "--out", str(tmp_path / "out.jsonl"),
                                       "--ray-workers", "2"])
    assert result.exit_code == 2 and "--ray-workers needs --ray" in result.stderr


def test_without_ray_installed_the_cli_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    source = write_jsonl(tmp_path / "in.jsonl", ROWS[:1])
    result = CliRunner().invoke(main, ["batch", str(source), "--out", str(tmp_path / "out.jsonl"),
                                       "--model", "offline", "--search", "kb", "--ray"])
    assert result.exit_code == 2 and "pip install 'veracity[ray]'" in result.stderr
    assert not (tmp_path / "out.jsonl").exists()


# ---------------------------------------------------------------- repeated ids

REPEATED_ROWS = [
    {"id": "a", "text": "The Sydney Opera House opened in 1973."},
    {"id": "a", "text": "The Sydney Opera House opened in 1999."},
    {"id": "a", "text": "The Sydney Opera House opened in 1973."},
    {"text": "The Eiffel Tower is in Paris."},
    {"text": "The Eiffel Tower is in Paris."},
]


def outcomes_by_line(path: Path) -> dict[int, tuple[str, str]]:
    """Per input line: the row's id and its outcome (its first verdict's label, or its error)."""
    return {record["line"]: (record["id"], record["report"]["verdicts"][0]["label"] if "report" in record
                             else record["error"]) for record in lines(path)}


def test_ray_keeps_every_row_whose_id_repeats_and_resumes_by_id_and_content(
        ray_instance: None, demo_kb: KnowledgeBase, tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in REPEATED_ROWS))
    settings = {"model": "offline", "search": "kb", "kb_path": str(demo_kb.path)}
    plain = asyncio.run(abatch(source, tmp_path / "plain.jsonl", **settings))
    distributed = batch_on_ray(source, tmp_path / "ray.jsonl", workers=2, **settings)
    for field in ("rows", "checked", "failed", "skipped", "duplicates"):
        assert getattr(distributed, field) == getattr(plain, field), field
    assert (distributed.rows, distributed.checked, distributed.failed, distributed.duplicates) == (5, 3, 1, 2)
    assert outcomes_by_line(tmp_path / "ray.jsonl") == outcomes_by_line(tmp_path / "plain.jsonl")
    assert sorted(outcomes_by_line(tmp_path / "ray.jsonl")) == [1, 2, 4]
    assert "already used by line 1" in outcomes_by_line(tmp_path / "ray.jsonl")[2][1]
    again = batch_on_ray(source, tmp_path / "ray.jsonl", workers=1, **settings)
    assert (again.rows, again.checked, again.skipped, again.duplicates) == (5, 0, 3, 2)
