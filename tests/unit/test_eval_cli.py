"""`veracity eval`: the gate's exit codes, bad datasets and options, JSON and --out, --baseline, --langsmith."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.unit.eval_data import OFFLINE_MATRIX, OFFLINE_ROWS, POLICY, RAW_JUDGE, write_jsonl
from veracity.cli import main

PASS_ROWS = [{"text": "You can return it within 14 days.", "source": POLICY, "expected": {"pass": True}}]


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("COLUMNS", "220")
    return CliRunner()


@pytest.fixture
def judge_file(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS)


def run(runner: CliRunner, *args: object):
    """`veracity eval ARGS`, with the offline judge's risk control off (see `RAW_JUDGE`)."""
    return runner.invoke(main, ["eval", *map(str, args), "--min-precision", str(RAW_JUDGE["min_precision"])])


# -- the gate ---------------------------------------------------------------------------------

def test_gate_passes_with_exit_zero(runner: CliRunner, judge_file: Path) -> None:
    result = run(runner, judge_file, "--mode", "offline", "--min-score", "0.8")  # balanced accuracy 5/6
    assert result.exit_code == 0, result.output
    assert "gate passed: balanced_accuracy 0.833 >= 0.800" in result.stderr
    assert "| balanced accuracy | 0.833 |" in result.stdout
    assert "veracity eval: 4 rows of judge data, 1 run(s)" in result.stderr


def test_gate_below_min_score_exits_one(runner: CliRunner, judge_file: Path) -> None:
    result = run(runner, judge_file, "--mode", "offline", "--min-score", "0.9")
    assert result.exit_code == 1, result.output
    assert "gate FAILED: balanced_accuracy 0.833 < 0.900" in result.stderr
    assert "## Gate" in result.stdout


@pytest.mark.parametrize(("metric", "passing", "failing"), [("pass_score", 0.75, 0.76), ("recall:supported", 0.5, 0.6)])
def test_gate_on_another_metric(runner: CliRunner, judge_file: Path, metric: str, passing: float,
                                failing: float) -> None:
    # pass score 3/4; recall of supported 1/2 (paris is called unverifiable)
    assert run(runner, judge_file, "--mode", "offline", "--metric", metric, "--min-score", passing).exit_code == 0
    assert run(runner, judge_file, "--mode", "offline", "--metric", metric, "--min-score", failing).exit_code == 1


def test_no_min_score_exits_zero_even_when_rows_are_wrong(runner: CliRunner, judge_file: Path) -> None:
    result = run(runner, judge_file, "--mode", "offline")
    assert result.exit_code == 0 and "## Gate" not in result.stdout


def test_unknown_metric_exits_two_with_the_metric_names(runner: CliRunner, judge_file: Path) -> None:
    result = run(runner, judge_file, "--mode", "offline", "--metric", "f1", "--min-score", "0.5")
    assert result.exit_code == 2
    assert "--metric 'f1' is not one of: balanced_accuracy, pass_score, macro_f1, accuracy" in result.stderr
    assert "f1:refuted" in result.stderr and "f1:failed" not in result.stderr
    assert result.stdout == ""  # nothing ran


def test_metric_names_follow_the_dataset_kind(runner: CliRunner, tmp_path: Path) -> None:
    result = run(runner, write_jsonl(tmp_path / "pass.jsonl", PASS_ROWS), "--metric", "f1:refuted")
    assert result.exit_code == 2 and "f1:pass" in result.stderr and "f1:fail" in result.stderr


def test_min_score_outside_zero_to_one_is_a_usage_error(runner: CliRunner, judge_file: Path) -> None:
    result = run(runner, judge_file, "--mode", "offline", "--min-score", "80")
    assert result.exit_code == 2 and "--min-score" in result.stderr


def test_llm_mode_without_a_key_says_what_to_configure(runner: CliRunner, judge_file: Path) -> None:
    result = run(runner, judge_file, "--mode", "llm")
    assert result.exit_code == 2 and "OPENAI_API_KEY" in result.stderr


def test_offline_mode_with_a_model_is_a_bad_option(runner: CliRunner, judge_file: Path) -> None:
    result = run(runner, judge_file, "--mode", "offline", "--model", "openai:gpt-4.1-mini")
    assert result.exit_code == 2 and "mode 'offline' runs the local judge" in result.stderr


@pytest.mark.parametrize(
    ("options", "message"),
    [(["--search", "web"], "TAVILY_API_KEY"), (["--search", "kb", "--kb", "missing-kb"], "no knowledge base at")],
    ids=["web", "kb"],
)
def test_search_settings_reach_rows_without_a_source(runner: CliRunner, tmp_path: Path, options: list,
                                                     message: str) -> None:
    rows = [{"text": "Paris is the capital of France.", "expected": {"pass": True}}]
    result = run(runner, write_jsonl(tmp_path / "pass.jsonl", rows), "--mode", "offline",
                 *[str(tmp_path / o) if o == "missing-kb" else o for o in options])
    assert result.exit_code == 2 and "not configured" in result.stderr and message in result.stderr


# -- bad datasets -----------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("third_line", "problem"),
    [
        ('{"claim": "x", "evidence": "y"}', "missing field 'label'"),
        ('{"claim": "x", "evidence": "y", "label": "yes"}', "unknown label 'yes'"),
        ('{"claim": "x", ', "not valid JSON"),
        ('{"text": "x", "expected": {"pass": true}}', "this is one of the end-to-end rows"),
        ("42", "expected a JSON object, got int"),
    ],
    ids=["missing-field", "unknown-label", "invalid-json", "mixed-kinds", "not-an-object"],
)
def test_malformed_row_exits_two_naming_the_line(runner: CliRunner, tmp_path: Path, third_line: str,
                                                 problem: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join([json.dumps(OFFLINE_ROWS[0]), json.dumps(OFFLINE_ROWS[1]), third_line]) + "\n")
    result = run(runner, path, "--mode", "offline")
    assert result.exit_code == 2
    assert result.stderr.startswith("bad dataset: malformed row:\n")
    assert f"{path}:3: {problem}" in result.stderr
    assert result.stdout == ""


def test_empty_dataset_exits_two(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n")
    result = run(runner, path)
    assert result.exit_code == 2 and f"{path}: the dataset is empty" in result.stderr


def test_missing_dataset_exits_two(runner: CliRunner, tmp_path: Path) -> None:
    result = run(runner, tmp_path / "nope.jsonl")
    assert result.exit_code == 2 and f"{tmp_path / 'nope.jsonl'}: no such file" in result.stderr


def test_dataset_path_with_square_brackets_is_named_verbatim(runner: CliRunner, tmp_path: Path) -> None:
    # Messages are printed with Rich: unescaped, "[draft]" and "[red]" would be taken for markup and vanish.
    folder = tmp_path / "[draft]"
    folder.mkdir()
    path = folder / "rows.jsonl"
    path.write_text('{"claim": "x", "evidence": "y", "label": "[red]maybe"}\n')
    result = run(runner, path, "--mode", "offline")
    assert result.exit_code == 2
    assert f"{path}:1: unknown label '[red]maybe'" in result.stderr


def test_gate_on_a_metric_nothing_produced_exits_two(runner: CliRunner, tmp_path: Path) -> None:
    # Rows that expect no claims and yield none leave nothing to compute balanced accuracy on: that is
    # a usage problem (exit 2 with a message), not a score below --min-score (exit 1) nor a traceback.
    rows = [{"text": "Thanks so much for reaching out!", "source": POLICY, "expected": []}]
    result = run(runner, write_jsonl(tmp_path / "claims.jsonl", rows), "--mode", "offline", "--min-score", "0.5")
    assert result.exit_code == 2, repr(result.exception)
    assert "could not be computed" in result.stderr


# -- output -----------------------------------------------------------------------------------

def test_json_output_has_every_number(runner: CliRunner, judge_file: Path) -> None:
    result = run(runner, judge_file, "--mode", "offline", "--json", "--min-score", "0.8")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["aggregate"]["balanced_accuracy"]["mean"] == pytest.approx(5 / 6)
    assert data["aggregate"]["balanced_accuracy"]["values"] == [pytest.approx(5 / 6)]
    assert data["confusion_matrix"] == OFFLINE_MATRIX
    assert [o["row_id"] for o in data["runs"][0]["outcomes"]] == ["paris", "boil", "moon", "sushi"]
    assert data["runs"][0]["outcomes"][0]["predicted"] == ["unverifiable"]
    assert data["runs"][0]["classification"]["confusion_matrix"] == OFFLINE_MATRIX
    assert data["dataset"]["kind"] == "judge" and data["dataset"]["rows"] == 4
    assert data["gate"] == {"metric": "balanced_accuracy", "min_score": 0.8, "value": pytest.approx(5 / 6),
                            "std": 0.0, "passed": True}


def test_out_writes_markdown(runner: CliRunner, judge_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    result = run(runner, judge_file, "--mode", "offline", "--out", out)
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text.startswith("# veracity eval: judge.jsonl")
    assert "## Confusion matrix (rows: gold, columns: predicted)" in text
    assert "| supported | 1 | 0 | 1 | 2 |" in text  # the empty failed column is hidden
    assert text == result.stdout
    assert f"report written to {out}" in result.stderr


def test_out_json_writes_json_next_to_the_markdown_on_stdout(runner: CliRunner, judge_file: Path,
                                                             tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = run(runner, judge_file, "--mode", "offline", "--out", out, "--min-score", "0.9")
    assert result.exit_code == 1
    data = json.loads(out.read_text())
    assert data["confusion_matrix"] == OFFLINE_MATRIX and data["gate"]["passed"] is False
    assert result.stdout.startswith("# veracity eval: judge.jsonl")


def test_runs_show_the_spread(runner: CliRunner, judge_file: Path) -> None:
    result = run(runner, judge_file, "--mode", "offline", "--runs", "2", "--json")
    data = json.loads(result.stdout)
    assert len(data["runs"]) == 2
    # the offline judge is deterministic: the same score twice, no spread
    assert data["aggregate"]["balanced_accuracy"]["values"] == [pytest.approx(5 / 6)] * 2
    assert data["aggregate"]["balanced_accuracy"]["std"] == 0.0
    assert data["confusion_matrix"] == [[2 * n for n in row] for row in OFFLINE_MATRIX]


# -- baseline ---------------------------------------------------------------------------------

def test_baseline_on_judge_rows(runner: CliRunner, judge_file: Path) -> None:
    result = run(runner, judge_file, "--mode", "offline", "--baseline", "--json")
    assert result.exit_code == 0, result.output
    baselines = json.loads(result.stdout)["baselines"]
    assert list(baselines) == ["similarity@0.5", "similarity@0.6"]
    assert all(b["total"] == 4 and b["per_label"]["refuted"]["predicted"] == 0 for b in baselines.values())
    markdown = run(runner, judge_file, "--mode", "offline", "--baseline").stdout
    assert "| similarity@0.5 |" in markdown and "| similarity@0.6 |" in markdown


def test_baseline_on_pass_rows_exits_two(runner: CliRunner, tmp_path: Path) -> None:
    result = run(runner, write_jsonl(tmp_path / "pass.jsonl", PASS_ROWS), "--mode", "offline", "--baseline")
    assert result.exit_code == 2 and "--baseline applies to judge rows" in result.stderr


# -- LangSmith --------------------------------------------------------------------------------

def test_langsmith_without_a_key_exits_two(runner: CliRunner, judge_file: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LANGCHAIN_API_KEY", raising=False)
    result = run(runner, judge_file, "--mode", "offline", "--langsmith")
    assert result.exit_code == 2
    assert "--langsmith is not set up" in result.stderr and "LANGSMITH_API_KEY" in result.stderr
    assert result.stdout == ""


def test_help_lists_row_kinds_metrics_and_exit_codes(runner: CliRunner) -> None:
    result = run(runner, "--help")
    assert result.exit_code == 0
    for expected in ("judge rows", "pass rows", "claims rows", "balanced_accuracy", "Exit codes", "--min-score"):
        assert expected in result.stdout
