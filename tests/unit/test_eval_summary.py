"""Evaluation scores from hand-made row outcomes: confusion matrices, per-label scores, spread and gate.

`tests/unit/test_metrics.py` covers the plain metric functions; these tests cover what the
evaluation adds on top: the 'failed' and 'unmatched' labels, pass scores, judge failures,
tokens, the mean ± standard deviation over runs, and the gate.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from veracity.evaluation import Dataset, EvalResult, Gate, MetricSpread, RunResult
from veracity.evaluation.formats import to_dict, to_markdown
from veracity.evaluation.rows import RowOutcome
from veracity.evaluation.summary import gateable, metric_names

S, R, U, F, UM = "supported", "refuted", "unverifiable", "failed", "unmatched"


def outcome(row_id: str, gold: list[str], predicted: list[str], score: float, **fields) -> RowOutcome:
    return RowOutcome(row_id, gold, predicted, score, **fields)


def judge_run(*, all_right: bool = False) -> RunResult:
    # Six judge rows; one check failed (a gate failure, predicted 'failed', score 0).
    predicted = [S, S, R, R, U, U] if all_right else [S, F, R, U, U, S]
    gold = [S, S, R, R, U, U]
    outcomes = [
        outcome(f"r{i}", [g], [p], float(g == p), failures=["gate: citation not found"] if p == F else [],
                tokens_in=10 * i, tokens_out=i)
        for i, (g, p) in enumerate(zip(gold, predicted, strict=True), start=1)
    ]
    return RunResult(kind="judge", outcomes=outcomes, wall_seconds=2.0)


def result_of(kind: str, *runs: RunResult) -> EvalResult:
    dataset = Dataset(path=Path("hand.jsonl"), kind=kind, rows=(), sha256="0" * 64)
    return EvalResult(dataset=dataset, settings={"runs_as": "by hand"}, runs=list(runs))


def test_judge_run_with_a_failed_row_by_hand() -> None:
    run = judge_run()
    # rows gold, columns predicted (supported, refuted, unverifiable, failed):
    #   gold S: r1 -> S, r2 -> failed     -> [1, 0, 0, 1]
    #   gold R: r3 -> R, r4 -> U          -> [0, 1, 1, 0]
    #   gold U: r5 -> U, r6 -> S          -> [1, 0, 1, 0]
    assert run.classification.matrix == ((1, 0, 0, 1), (0, 1, 1, 0), (1, 0, 1, 0), (0, 0, 0, 0))
    metrics = run.metrics()
    # supported: 1 right of 2 predicted (r1, r6), of 2 gold -> P = R = F1 = 1/2
    assert (metrics["precision:supported"], metrics["recall:supported"], metrics["f1:supported"]) == (0.5, 0.5, 0.5)
    # refuted: 1 right of 1 predicted, of 2 gold -> P = 1, R = 1/2, F1 = 2 * 1 * 1/2 / (3/2) = 2/3
    assert metrics["precision:refuted"] == 1.0 and metrics["recall:refuted"] == 0.5
    assert metrics["f1:refuted"] == pytest.approx(2 / 3)
    # unverifiable: 1 right of 2 predicted (r4, r5), of 2 gold -> 1/2 each
    assert (metrics["precision:unverifiable"], metrics["recall:unverifiable"]) == (0.5, 0.5)
    # balanced accuracy: mean recall over gold labels (failed is never gold) = (1/2 + 1/2 + 1/2) / 3
    assert metrics["balanced_accuracy"] == pytest.approx(0.5)
    # accuracy 3 of 6; macro F1 over gold labels = (1/2 + 2/3 + 1/2) / 3 = 5/9
    assert metrics["accuracy"] == pytest.approx(0.5)
    assert metrics["macro_f1"] == pytest.approx(5 / 9)
    # pass score: mean of 1, 0, 1, 0, 1, 0; one failed item
    assert metrics["pass_score"] == pytest.approx(0.5)
    assert metrics["judge_failures"] == 1.0 and run.judge_failures == 1
    # tokens: 10 + 20 + ... + 60 = 210 in, 1 + ... + 6 = 21 out
    assert (metrics["tokens_in"], metrics["tokens_out"], metrics["wall_seconds"]) == (210.0, 21.0, 2.0)


def test_failed_is_a_matrix_column_but_not_a_metric() -> None:
    metrics = judge_run().metrics()
    assert not [name for name in metrics if name.endswith(":failed")]
    assert not gateable("f1:failed", judge_run().labels)
    assert "recall:failed" not in metric_names(judge_run().labels)


def test_claims_run_with_unmatched_claims_on_both_sides_by_hand() -> None:
    run = RunResult(kind="claims", wall_seconds=1.0, outcomes=[
        # expected S found and right; expected R never extracted; an extra claim judged U
        outcome("a", [S, R, UM], [S, UM, U], 1 / 3, tokens_in=7, tokens_out=2),
        # expected U found and right; expected S extracted but its judge failed
        outcome("b", [U, S], [U, F], 1 / 2, failures=["gate failed"], tokens_in=5, tokens_out=1),
    ])
    # labels (supported, refuted, unverifiable, unmatched, failed):
    #   gold S:  a -> S, b -> failed      -> [1, 0, 0, 0, 1]
    #   gold R:  a -> unmatched           -> [0, 0, 0, 1, 0]
    #   gold U:  b -> U                   -> [0, 0, 1, 0, 0]
    #   gold unmatched: a -> U            -> [0, 0, 1, 0, 0]
    assert run.classification.matrix == (
        (1, 0, 0, 0, 1), (0, 0, 0, 1, 0), (0, 0, 1, 0, 0), (0, 0, 1, 0, 0), (0, 0, 0, 0, 0),
    )
    metrics = run.metrics()
    # supported: P = 1/1, R = 1/2, F1 = 2/3; refuted: nothing right -> 0, 0, 0
    assert (metrics["precision:supported"], metrics["recall:supported"]) == (1.0, 0.5)
    assert metrics["f1:supported"] == pytest.approx(2 / 3)
    assert (metrics["precision:refuted"], metrics["recall:refuted"], metrics["f1:refuted"]) == (0.0, 0.0, 0.0)
    # unverifiable: 1 right of 2 predicted (b's U, a's extra claim), of 1 gold -> P = 1/2, R = 1, F1 = 2/3
    assert (metrics["precision:unverifiable"], metrics["recall:unverifiable"]) == (0.5, 1.0)
    assert metrics["f1:unverifiable"] == pytest.approx(2 / 3)
    # unmatched: predicted once (for gold R) and wrong; gold once (the extra claim) and missed
    assert (metrics["precision:unmatched"], metrics["recall:unmatched"], metrics["f1:unmatched"]) == (0.0, 0.0, 0.0)
    # balanced accuracy: mean recall over every gold label, the extra claims' 'unmatched' row included:
    #   (S 1/2 + R 0 + U 1 + unmatched 0) / 4 = 3/8
    assert metrics["balanced_accuracy"] == pytest.approx(3 / 8)
    # macro F1 leaves 'unmatched' out: (S 2/3 + R 0 + U 2/3) / 3 = 4/9
    assert metrics["macro_f1"] == pytest.approx(4 / 9)
    # accuracy: 2 of 5 items; pass score: mean(1/3, 1/2) = 5/12
    assert metrics["accuracy"] == pytest.approx(2 / 5)
    assert metrics["pass_score"] == pytest.approx(5 / 12)
    assert metrics["judge_failures"] == 1.0
    assert (metrics["tokens_in"], metrics["tokens_out"]) == (12.0, 3.0)


def test_pass_run_by_hand() -> None:
    run = RunResult(kind="pass", wall_seconds=1.0, outcomes=[
        outcome("ok", ["pass"], ["pass"], 1.0),
        outcome("broken", ["pass"], [F], 0.0, failures=["search failed"]),
        outcome("caught", ["fail"], ["fail"], 1.0),
        outcome("missed", ["fail"], ["pass"], 0.0),
    ])
    # labels (pass, fail, failed): gold pass -> [1, 0, 1]; gold fail -> [1, 1, 0]
    assert run.classification.matrix == ((1, 0, 1), (1, 1, 0), (0, 0, 0))
    metrics = run.metrics()
    # pass: P = 1/2 (ok, missed), R = 1/2; fail: P = 1/1, R = 1/2, F1 = 2/3
    assert (metrics["precision:pass"], metrics["recall:pass"], metrics["f1:pass"]) == (0.5, 0.5, 0.5)
    assert (metrics["precision:fail"], metrics["recall:fail"]) == (1.0, 0.5)
    assert metrics["balanced_accuracy"] == pytest.approx(0.5)
    assert metrics["macro_f1"] == pytest.approx((0.5 + 2 / 3) / 2)
    assert metrics["pass_score"] == 0.5 and metrics["judge_failures"] == 1.0


def test_no_judged_items_leaves_only_the_pass_score() -> None:
    run = RunResult(kind="claims", wall_seconds=0.1, outcomes=[outcome("greeting", [], [], 1.0)])
    assert run.classification is None
    assert set(run.metrics()) == {"pass_score", "judge_failures", "tokens_in", "tokens_out", "wall_seconds"}
    result = result_of("claims", run)
    assert result.gate("pass_score", 1.0).passed
    with pytest.raises(ValueError, match="could not be computed"):
        result.gate("balanced_accuracy", 0.5)


def test_spread_over_runs_is_mean_and_sample_standard_deviation() -> None:
    result = result_of("judge", judge_run(), judge_run(all_right=True))
    spread = result.aggregate["balanced_accuracy"]
    # runs score 0.5 and 1.0: mean 0.75; sample std sqrt(((0.25)^2 + (0.25)^2) / 1) = sqrt(0.125)
    assert spread == MetricSpread(mean=0.75, std=pytest.approx(math.sqrt(0.125)), min=0.5, max=1.0, values=(0.5, 1.0))
    assert result.aggregate["judge_failures"].values == (1.0, 0.0)
    # matrices summed: the all-right second run adds 2 to each diagonal cell of S, R, U
    assert result.summed_matrix() == [[3, 0, 0, 1], [0, 3, 1, 0], [1, 0, 3, 0], [0, 0, 0, 0]]


def test_one_run_has_zero_spread() -> None:
    spread = result_of("judge", judge_run()).aggregate["macro_f1"]
    assert (spread.std, spread.values) == (0.0, (pytest.approx(5 / 9),))


def test_gate_compares_the_mean_over_runs() -> None:
    result = result_of("judge", judge_run(), judge_run(all_right=True))
    passed = result.gate("balanced_accuracy", 0.75)
    assert passed.passed and passed.value == 0.75
    assert passed.describe() == "gate passed: balanced_accuracy 0.750 ± 0.354 >= 0.750"
    failed = result.gate("balanced_accuracy", 0.76)
    assert not failed.passed
    assert failed.describe() == "gate FAILED: balanced_accuracy 0.750 ± 0.354 < 0.760"
    # a per-label metric: recall of refuted is 1/2 then 1 -> mean 3/4
    assert result.gate("recall:refuted", 0.7).passed and not result.gate("recall:refuted", 0.8).passed


def test_gate_on_one_run_shows_no_spread() -> None:
    assert result_of("judge", judge_run()).gate("pass_score", 0.6).describe() == "gate FAILED: pass_score 0.500 < 0.600"


@pytest.mark.parametrize("name", ["bogus", "judge_failures", "tokens_in", "f1:failed", "f1:pass", "recall:"])
def test_gate_on_an_unknown_or_count_metric_names_the_choices(name: str) -> None:
    with pytest.raises(ValueError, match="unknown metric") as raised:
        result_of("judge", judge_run()).gate(name, 0.5)
    assert "balanced_accuracy, pass_score, macro_f1, accuracy, precision:supported" in str(raised.value)
    assert "f1:unverifiable" in str(raised.value)


def test_markdown_shows_spread_matrix_and_wrong_rows() -> None:
    result = result_of("judge", judge_run(), judge_run(all_right=True))
    text = to_markdown(result, result.gate("balanced_accuracy", 0.8))
    assert "| balanced accuracy | 0.750 ± 0.354 |" in text
    assert "## Confusion matrix (rows: gold, columns: predicted, summed over 2 runs)" in text
    assert "| gold \\ predicted | supported | refuted | unverifiable | failed | total |" in text
    assert "| supported | 3 | 0 | 0 | 1 | 4 |" in text
    assert "gate FAILED: balanced_accuracy 0.750 ± 0.354 < 0.800" in text
    assert "## Rows not fully right (run 1: 3 of 6)" in text
    assert "| r2 | supported | failed | 0.00 | gate: citation not found |" in text


def test_markdown_hides_an_empty_failed_column() -> None:
    text = to_markdown(result_of("judge", judge_run(all_right=True)))
    assert "| gold \\ predicted | supported | refuted | unverifiable | total |" in text
    assert "±" not in text and "Rows not fully right" not in text


def test_json_dict_has_every_number() -> None:
    result = result_of("judge", judge_run(), judge_run(all_right=True))
    data = to_dict(result, result.gate("macro_f1", 0.5))
    assert data["confusion_matrix"] == [[3, 0, 0, 1], [0, 3, 1, 0], [1, 0, 3, 0], [0, 0, 0, 0]]
    assert data["aggregate"]["pass_score"]["values"] == [0.5, 1.0]
    assert data["runs"][0]["outcomes"][1]["failed"] is True and data["runs"][0]["outcomes"][0]["failed"] is False
    assert data["gate"]["passed"] is True and data["gate"]["value"] == pytest.approx((5 / 9 + 1) / 2)
    assert data["labels"] == [S, R, U, F]


def test_gate_line_never_shows_a_failing_value_equal_to_the_threshold() -> None:
    gate = Gate(metric="pass_score", min_score=0.9, value=0.8996, std=0.0, passed=False)
    assert gate.describe() == "gate FAILED: pass_score 0.8996 < 0.9000"
