"""`veracity batch` and `veracity.abatch`: many rows, errors recorded per row, resume, valid output after Ctrl-C."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import veracity
from veracity.batch import abatch
from veracity.cli import main

POLICY = "The customer may return a package within 14 days of the delivery date."
ROWS = [
    {"id": "opera", "text": "The Sydney Opera House opened in 1973."},
    {"text": "Sydney is the capital of Australia."},
    {"id": "returns", "text": "You can return the package within 30 days.", "source": POLICY},
    {"id": "empty", "text": "  "},
]


def write_jsonl(path: Path, rows: list[dict], extra_lines: tuple[str, ...] = ()) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows) + "".join(extra_lines))
    return path


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_row_gets_a_line_and_bad_rows_are_recorded(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", ROWS, ("{not json\n",))
    result = CliRunner().invoke(main, ["batch", str(source), "--out", str(tmp_path / "out.jsonl"),
                                       "--summary", str(tmp_path / "summary.csv"), "--model", "offline",
                                       "--search", "kb"])
    assert result.exit_code == 3, result.output  # two rows could not be checked
    out = {record["id"]: record for record in lines(tmp_path / "out.jsonl")}
    assert len(out) == 5
    assert out["opera"]["report"]["verdicts"][0]["label"] == "supported"
    assert out["returns"]["report"]["mode"] == "offline+source"  # its source text was used
    returns = out["returns"]["report"]["verdicts"][0]  # against the 14-day policy: leans refuted, held back
    assert (returns["label"], returns["leaning"]) == ("unverifiable", "refuted")
    assert "no text" in out["empty"]["error"] and "not valid JSON" in out["line-5"]["error"]
    summary = list(csv.DictReader((tmp_path / "summary.csv").open()))
    assert [row["outcome"] for row in summary if row["id"] == "opera"] == ["pass"]
    assert "5 row(s): 5 checked (2 failed)" in result.stderr


def test_a_rerun_skips_what_is_done_and_checks_only_new_rows(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", ROWS[:2])
    out = tmp_path / "out.jsonl"
    first = asyncio.run(abatch(source, out, model="offline", search="kb"))
    assert (first.checked, first.skipped) == (2, 0)
    write_jsonl(source, [*ROWS[:2], {"id": "new", "text": "The Eiffel Tower is in Paris."}])
    again = asyncio.run(abatch(source, out, model="offline", search="kb"))
    assert (again.checked, again.skipped) == (1, 2)
    assert [record["id"] for record in lines(out)][-1] == "new" and len(lines(out)) == 3


def test_a_line_cut_short_by_a_crash_is_dropped_and_its_row_run_again(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", ROWS[:2])
    out = tmp_path / "out.jsonl"
    asyncio.run(abatch(source, out, model="offline", search="kb"))
    complete = out.read_text().splitlines(keepends=True)
    out.write_text(complete[0] + complete[1][:40])  # the second line was being written
    again = asyncio.run(abatch(source, out, model="offline", search="kb"))
    assert (again.checked, again.skipped) == (1, 1) and len(lines(out)) == 2


def test_an_interrupted_run_leaves_a_valid_file_that_a_rerun_completes(tmp_path: Path) -> None:
    rows = [{"id": f"r{n}", "text": f"The Sydney Opera House opened in {1960 + n}."} for n in range(6)]
    source, out = write_jsonl(tmp_path / "in.jsonl", rows), tmp_path / "out.jsonl"

    async def interrupted() -> None:
        task: asyncio.Task | None = None

        def stop_after_two(_row, _record) -> None:
            if len(out.read_text().splitlines()) >= 2 and task is not None:
                task.cancel()  # what Ctrl-C does to asyncio.run

        task = asyncio.create_task(abatch(source, out, concurrency=1, on_row=stop_after_two, model="offline",
                                          search="kb"))
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(interrupted())
    assert len(lines(out)) == 2  # every line whole
    rest = asyncio.run(abatch(source, out, model="offline", search="kb"))
    assert (rest.checked, rest.skipped) == (4, 2) and sorted(r["id"] for r in lines(out)) == sorted(
        row["id"] for row in rows)


def test_a_row_that_fails_is_recorded_and_the_run_goes_on(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"id": "long", "text": "The Nile is long. " * 50}, ROWS[0]])
    summary = asyncio.run(abatch(source, tmp_path / "out.jsonl", model="offline", search="kb", max_text_chars=100))
    assert (summary.checked, summary.failed) == (2, 1)
    assert "InputError" in lines(tmp_path / "out.jsonl")[0]["error"]


def test_csv_input_with_a_named_text_column(tmp_path: Path) -> None:
    source = tmp_path / "in.csv"
    source.write_text('answer,id\n"The Sydney Opera House opened in 1973.",a1\n')
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, ["batch", str(source), "--out", str(out), "--text-field", "answer",
                                       "--model", "offline", "--search", "kb"])
    assert result.exit_code == 0, result.output
    assert lines(out)[0]["id"] == "a1" and lines(out)[0]["report"]["claims"]
    missing = CliRunner().invoke(main, ["batch", str(source), "--out", str(out), "--model", "offline"])
    assert missing.exit_code == 2 and "no 'text' column" in missing.stderr


def test_abatch_is_exported() -> None:
    assert veracity.abatch is abatch


def test_a_row_with_a_source_is_checked_against_it_and_never_against_a_bound_backend(tmp_path: Path) -> None:
    from veracity.errors import SourceConflictError
    from veracity.testing import ScriptedBackend

    source = write_jsonl(tmp_path / "in.jsonl", [ROWS[2]])
    asyncio.run(abatch(source, tmp_path / "kb.jsonl", model="offline", search="kb"))  # --search is a default
    [record] = lines(tmp_path / "kb.jsonl")
    assert record["report"]["mode"] == "offline+source" and record["report"]["passed"] is False
    backend = ScriptedBackend(lambda query: [], name="notes")
    # before: the bound backend won, the row's source was dropped, and the row was recorded as checked
    with pytest.raises(SourceConflictError, match="the bound backend 'notes' cannot be combined with source_text"):
        asyncio.run(abatch(source, tmp_path / "bound.jsonl", model="offline", backend=backend))
