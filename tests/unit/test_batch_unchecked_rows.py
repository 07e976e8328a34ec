"""A batch that leaves rows without a report says so, by name and exit status, on every run, reruns included."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from veracity.batch.ledger import Ledger
from veracity.batch.rows import BatchRow
from veracity.cli import main

ROWS = [
    json.dumps({"id": "opera", "text": "The Sydney Opera House opened in 1973."}),
    json.dumps({"id": "empty", "text": "  "}),
    "{not json",
]


def run_batch(source: Path, out: Path) -> Result:
    return CliRunner().invoke(main, ["batch", str(source), "--out", str(out), "--model", "offline", "--search", "kb"])


def flat(text: str) -> str:
    return " ".join(text.split())


def test_a_rerun_over_rows_that_errored_exits_non_zero_and_names_them(tmp_path: Path) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("\n".join(ROWS) + "\n", encoding="utf-8")
    first = run_batch(source, out)
    assert first.exit_code == 3, first.output
    written = out.read_text(encoding="utf-8")

    again = run_batch(source, out)

    assert again.exit_code == 3, again.output
    assert out.read_text(encoding="utf-8") == written  # nothing was checked twice
    said = flat(again.stderr)
    assert "3 already in" in said and "(2 of them with an error)" in said
    assert "not checked: 2 row(s) have no report" in said
    assert "line 2 (empty): an error from an earlier run" in said and "no text" in said
    assert "line 3 (line-3): an error from an earlier run" in said and "not valid JSON" in said
    assert "opera" not in said.split("not checked:")[1]  # the row with a report is not named
    assert "remove their lines from OUT" in said and "Traceback" not in again.output


def test_a_rerun_over_rows_that_all_have_reports_exits_zero(tmp_path: Path) -> None:
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(ROWS[0] + "\n", encoding="utf-8")
    assert run_batch(source, out).exit_code == 0

    again = run_batch(source, out)

    assert again.exit_code == 0, again.output
    assert "not checked" not in again.stderr


def test_a_row_handed_out_that_never_gets_a_line_is_counted_missing(tmp_path: Path) -> None:
    rows = [BatchRow(id="a", text="One.", line=1), BatchRow(id="b", text="Two.", line=2)]
    with Ledger(rows, tmp_path / "out.jsonl") as ledger:
        first, second = ledger.next_row(), ledger.next_row()
        assert first is not None and second is not None
        ledger.record(first, {"id": first.id, "line": first.line, "digest": first.digest, "report": {"claims": []}})
        # the check of the second row is lost: no line is ever recorded for it

    summary = ledger.summary
    assert (summary.rows, summary.checked, summary.missing, summary.unchecked) == (2, 1, 1, 1)
    assert summary.unchecked_lines == ["line 2 (b): handed out for checking, but no line for it was written to "
                                       "out.jsonl"]
