"""Evaluation datasets: the three row kinds, and malformed files named by line."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.unit.eval_data import OFFLINE_ROWS, write_jsonl
from veracity.evaluation import DatasetError, load_dataset
from veracity.evaluation.dataset import ClaimsRow, JudgeRow, PassRow

JUDGE = {"claim": "Paris is the capital of France.", "evidence": "Paris is in France.", "label": "supported"}
PASS = {"text": "Returns take 14 days.", "source": "Returns take 14 days.", "expected": {"pass": True}}
CLAIMS = {"text": "Paris is in France.", "expected": [{"claim": "Paris is in France.", "label": "supported"}]}


def write_lines(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def problem_of(path: Path) -> str:
    with pytest.raises(DatasetError) as raised:
        load_dataset(path)
    return str(raised.value)


def test_judge_rows_load_with_their_kind_ids_and_hash(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "judge.jsonl", [*OFFLINE_ROWS, {**JUDGE, "evidence": ["one", "two"]}])
    dataset = load_dataset(path)
    assert dataset.kind == "judge" and dataset.name == "judge.jsonl" and len(dataset.rows) == 5
    assert all(isinstance(row, JudgeRow) for row in dataset.rows)
    assert [row.id for row in dataset.rows] == ["paris", "boil", "moon", "sushi", "line-5"]
    assert dataset.rows[0].evidence == ["Paris is the capital and largest city of France."]  # one text, one item
    assert dataset.rows[4].evidence == ["one", "two"]
    assert dataset.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_pass_and_claims_rows_load(tmp_path: Path) -> None:
    passes = load_dataset(write_jsonl(tmp_path / "pass.jsonl", [PASS, {"text": "Hi.", "expected": {"pass": False}}]))
    assert passes.kind == "pass" and all(isinstance(row, PassRow) for row in passes.rows)
    assert [row.expected.passes for row in passes.rows] == [True, False]
    assert (passes.rows[0].source, passes.rows[1].source) == ("Returns take 14 days.", None)
    claims = load_dataset(write_jsonl(tmp_path / "claims.jsonl", [CLAIMS]))
    assert claims.kind == "claims" and isinstance(claims.rows[0], ClaimsRow)
    assert claims.rows[0].expected[0].label == "supported"


def test_blank_lines_are_skipped_but_counted(tmp_path: Path) -> None:
    path = write_lines(tmp_path, json.dumps(JUDGE), "", "   ", json.dumps(JUDGE))
    assert [row.id for row in load_dataset(path).rows] == ["line-1", "line-4"]


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        pytest.param([JUDGE, {"claim": "x", "evidence": "y"}], ":2: missing field 'label'", id="missing-field"),
        pytest.param([{**JUDGE, "label": "true"}], ":1: unknown label 'true' in 'label' (expected one of: "
                     "supported, refuted, unverifiable)", id="unknown-label"),
        pytest.param([JUDGE, JUDGE, '{"claim": "x", "evidence": "y", "label": "supported"'],
                     ":3: not valid JSON (Expecting ',' delimiter at column 53)", id="invalid-json"),
        pytest.param([JUDGE, PASS], ":2: this is one of the end-to-end rows {text, source?, expected: {pass}}, but "
                     "line 1 is one of the judge rows {claim, evidence, label}; a dataset holds one kind",
                     id="mixed-kinds"),
        pytest.param([PASS, CLAIMS], ":2: this is one of the end-to-end rows {text, source?, expected: [{claim, "
                     "label}]}, but line 1 is one of the end-to-end rows {text, source?, expected: {pass}}",
                     id="mixed-end-to-end-kinds"),
        pytest.param([JUDGE, "[1, 2]"], ":2: expected a JSON object, got list", id="array-line"),
        pytest.param(['"just text"'], ":1: expected a JSON object, got str", id="string-line"),
        pytest.param([{"question": "?"}], ":1: neither a judge row {claim, evidence, label} nor an end-to-end row",
                     id="neither-kind"),
        pytest.param([{**JUDGE, "evidence": []}], ":1: 'evidence' is empty", id="no-evidence"),
        pytest.param([{**JUDGE, "claim": "  "}], ":1: 'claim' is empty", id="blank-claim"),
        pytest.param([{"text": "x", "expected": "supported"}], ":1: 'expected' must be {\"pass\": true|false} "
                     "or a list of {claim, label}", id="expected-is-a-string"),
        pytest.param([{**PASS, "expected": {"pass": True, "why": "x"}}], ":1: unexpected field 'expected.why'",
                     id="extra-pass-field"),
        pytest.param([{**CLAIMS, "expected": [{"claim": "x", "label": "maybe"}]}],
                     ":1: unknown label 'maybe' in 'expected.0.label'", id="unknown-claim-label"),
        pytest.param([{**CLAIMS, "expected": [{"label": "refuted"}]}], ":1: missing field 'expected.0.claim'",
                     id="claim-missing"),
        pytest.param([{**JUDGE, "id": "a"}, {**JUDGE, "id": "a"}], ":2: id 'a' already used on line 1",
                     id="duplicate-id"),
        pytest.param([{**PASS, "expected": {"pass": "yes"}}], ":1: 'expected.pass': Input should be a valid boolean",
                     id="pass-is-a-string"),
        pytest.param([{**PASS, "expected": {"pass": 1}}], ":1: 'expected.pass': Input should be a valid boolean",
                     id="pass-is-a-number"),
        pytest.param([JUDGE, "[" * 100_000 + "]" * 100_000], ":2: nested too deeply to be a dataset row",
                     id="deeply-nested"),
    ],
)
def test_malformed_row_is_named_by_line(tmp_path: Path, lines: list, expected: str) -> None:
    path = write_lines(tmp_path, *(line if isinstance(line, str) else json.dumps(line) for line in lines))
    message = problem_of(path)
    assert message.startswith("malformed row:\n")
    assert f"{path}{expected}" in message


def test_every_problem_is_listed_up_to_ten(tmp_path: Path) -> None:
    bad = {"claim": "x", "evidence": "y", "label": "nope"}
    path = write_lines(tmp_path, json.dumps(JUDGE), *[json.dumps(bad)] * 12)
    lines = problem_of(path).splitlines()
    assert lines[0] == f"12 malformed row(s) in {path}:"
    assert lines[1].startswith(f"{path}:2: unknown label 'nope'") and lines[10].startswith(f"{path}:11:")
    assert lines[11] == "... and 2 more" and len(lines) == 12


def test_two_problems_on_one_row_are_joined(tmp_path: Path) -> None:
    message = problem_of(write_lines(tmp_path, json.dumps({"claim": "x", "label": "wrong"})))
    assert f"{tmp_path / 'rows.jsonl'}:1: missing field 'evidence'; unknown label 'wrong' in 'label'" in message


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_empty_file(tmp_path: Path, content: str) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text(content, encoding="utf-8")
    assert problem_of(path) == f"{path}: the dataset is empty (no rows; one JSON object per line expected)"


def test_missing_file(tmp_path: Path) -> None:
    assert problem_of(tmp_path / "nope.jsonl") == f"{tmp_path / 'nope.jsonl'}: no such file"


def test_non_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(json.dumps(JUDGE).encode() + b"\n" + '{"claim": "café"}'.encode("latin-1") + b"\n")
    assert problem_of(path) == f"{path}:2: not UTF-8 text"
