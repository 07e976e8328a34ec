"""`veracity batch`: rows are keyed by id and content, so a repeated id never makes a row disappear.

A repeated id with another text is an error line naming the line that holds the id; the same
id with the same text is a duplicate, counted and not checked twice; a rerun skips a row only
when its id and its content are already in the output. Every input row is accounted for.
"""

from __future__ import annotations

import asyncio
import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from veracity.batch import BatchSummary, abatch
from veracity.batch.distributed import _check_rows
from veracity.batch.ledger import Ledger
from veracity.batch.rows import BatchRow, read_rows
from veracity.cli import main

TRUE = "The Sydney Opera House opened in 1973."
FALSE = "The Sydney Opera House opened in 1999."
TOWER = "The Eiffel Tower is in Paris."
SETTINGS = {"model": "offline", "search": "kb"}


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def accounted(summary: BatchSummary) -> int:
    """Rows the summary says something about: written (reports and errors), already done, or duplicates."""
    return summary.checked + summary.skipped + summary.duplicates


def test_a_repeated_id_with_another_text_is_an_error_line_not_a_silent_skip(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # the closing message on one line
    source = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": TRUE}, {"id": "a", "text": FALSE},
                                                 {"id": "b", "text": TOWER}])
    out = tmp_path / "o.jsonl"
    result = CliRunner().invoke(main, ["batch", str(source), "--out", str(out), "--model", "offline",
                                       "--search", "kb"])
    assert result.exit_code == 3, result.output  # a row could not be checked: not a clean run
    by_line = {record["line"]: record for record in lines(out)}
    assert sorted(by_line) == [1, 2, 3]  # before: line 2 had no output line at all
    assert by_line[1]["report"]["text"] == TRUE
    error = by_line[2]["error"]
    assert by_line[2]["id"] == "a" and "report" not in by_line[2]
    assert "'a'" in error and "line 1" in error and "different text" in error
    assert "3 row(s): 3 checked (1 failed), 0 already in" in result.stderr, result.stderr
    assert "0 duplicate(s)" in result.stderr
    assert "line 2 (a): the id 'a' is already used by line 1" in result.stderr


def test_the_summary_accounts_for_every_row_and_a_repeat_is_a_counted_duplicate(tmp_path: Path) -> None:
    rows = [{"id": "a", "text": TRUE}, {"id": "a", "text": TRUE}, {"text": TOWER}, {"text": TOWER},
            {"id": "a", "text": FALSE}, {"id": "a", "text": FALSE}]
    source, out = write_jsonl(tmp_path / "in.jsonl", rows), tmp_path / "o.jsonl"
    summary = asyncio.run(abatch(source, out, **SETTINGS))
    assert (summary.rows, summary.checked, summary.failed, summary.skipped, summary.duplicates) == (6, 3, 1, 0, 3)
    assert accounted(summary) == summary.rows
    assert sorted(record["line"] for record in lines(out)) == [1, 3, 5]  # each text checked once
    assert summary.duplicate_lines[0].startswith("line 2 (a): ") and "line 1" in summary.duplicate_lines[0]


def test_a_rerun_skips_only_rows_whose_id_and_content_are_in_the_output(tmp_path: Path) -> None:
    rows = [{"id": "a", "text": TRUE}, {"id": "a", "text": FALSE}, {"id": "a", "text": TRUE}, {"text": TOWER}]
    source, out = write_jsonl(tmp_path / "in.jsonl", rows), tmp_path / "o.jsonl"
    first = asyncio.run(abatch(source, out, **SETTINGS))
    written = out.read_text()
    again = asyncio.run(abatch(source, out, **SETTINGS))  # the same command again: nothing left to do
    assert (again.rows, again.checked, again.skipped, again.duplicates) == (4, 0, 3, 1)
    assert (first.duplicates, accounted(first), accounted(again)) == (1, 4, 4)
    assert out.read_text() == written
    # The text under an id already in the output changed: not skipped as done, and not a second report.
    write_jsonl(source, [{"id": "a", "text": "The Sydney Opera House opened in 2001."}, {"text": TOWER}])
    edited = asyncio.run(abatch(source, out, **SETTINGS))
    assert (edited.rows, edited.checked, edited.failed, edited.skipped) == (2, 1, 1, 1)
    last = lines(out)[-1]
    assert last["id"] == "a" and "already in o.jsonl" in last["error"] and "different text" in last["error"]


def test_output_written_before_lines_carried_their_content_still_resumes_by_id(tmp_path: Path) -> None:
    source, out = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": TRUE}]), tmp_path / "o.jsonl"
    out.write_text(json.dumps({"id": "a", "line": 1, "error": "an earlier failure"}) + "\n")
    summary = asyncio.run(abatch(source, out, **SETTINGS))
    assert (summary.rows, summary.skipped, summary.checked) == (1, 1, 0)


class FakeRef:
    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record


class FakeActor:
    """Answers a row with an empty report at once (or its problem), as a Ray worker's `check` would."""

    class _Check:
        @staticmethod
        def remote(row: BatchRow) -> FakeRef:
            base = {"id": row.id, "line": row.line, "digest": row.digest}
            return FakeRef({**base, "error": row.problem} if row.problem else {**base, "report": {"claims": []}})

    check = _Check()


class LastInFirstOutPool:
    """An `ActorPool` stand-in that returns the most recently submitted row first."""

    def __init__(self) -> None:
        self.refs: list[FakeRef] = []

    def submit(self, dispatch: Any, row: BatchRow) -> None:
        self.refs.append(dispatch(FakeActor(), row))

    def get_next_unordered(self) -> dict[str, Any]:
        return self.refs.pop().record


def test_the_ray_driver_keeps_rows_with_the_same_id_apart_while_they_are_in_flight(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The driver imports Ray for its error types. A stand-in keeps the real Ray unimported in this
    # process: Ray reads its authentication token when first imported, which the Ray tests set first.
    stand_in = types.ModuleType("ray")
    stand_in.exceptions = types.SimpleNamespace(RayError=type("RayError", (Exception,), {}))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ray", stand_in)
    source = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": TRUE}, {"id": "a", "text": FALSE},
                                                 {"id": "a", "text": TRUE}])
    out = tmp_path / "o.jsonl"
    recorded: list[tuple[int, int]] = []
    with Ledger(read_rows(source), out,
                on_row=lambda row, record: recorded.append((row.line, record["line"]))) as ledger:
        _check_rows(LastInFirstOutPool(), ledger, limit=4)  # type: ignore[arg-type]
    assert sorted(recorded) == [(1, 1), (2, 2)]  # each line recorded for its own row
    assert sorted(record["line"] for record in lines(out)) == [1, 2]
    assert (ledger.summary.rows, ledger.summary.failed, ledger.summary.duplicates) == (3, 1, 1)
