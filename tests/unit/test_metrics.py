"""Metrics against confusion matrices worked out by hand."""

from __future__ import annotations

import pytest

from veracity.evaluation.metrics import (
    balanced_accuracy,
    classify,
    confusion_matrix,
    per_label_scores,
)

LABELS = ("supported", "refuted", "unverifiable")
S, R, U = LABELS

# Worked example, rows = gold, columns = predicted (S, R, U):
#   gold S: predicted S, S, U        -> [2, 0, 1]
#   gold R: predicted S, R           -> [1, 1, 0]
#   gold U: predicted U, U, R, U, S  -> [1, 1, 3]
GOLD = [S, S, S, R, R, U, U, U, U, U]
PREDICTED = [S, S, U, S, R, U, U, R, U, S]


def test_confusion_matrix_by_hand() -> None:
    assert confusion_matrix(GOLD, PREDICTED, LABELS) == [[2, 0, 1], [1, 1, 0], [1, 1, 3]]


def test_per_label_scores_by_hand() -> None:
    scores = per_label_scores(GOLD, PREDICTED, LABELS)
    # supported: 2 right of 4 predicted, of 3 gold; F1 = 2 * (1/2 * 2/3) / (1/2 + 2/3) = 4/7
    assert scores[S].precision == pytest.approx(0.5)
    assert scores[S].recall == pytest.approx(2 / 3)
    assert scores[S].f1 == pytest.approx(4 / 7)
    assert (scores[S].support, scores[S].predicted) == (3, 4)
    # refuted: 1 right of 2 predicted, of 2 gold
    assert (scores[R].precision, scores[R].recall, scores[R].f1) == pytest.approx((0.5, 0.5, 0.5))
    # unverifiable: 3 right of 4 predicted, of 5 gold; F1 = 2 * (3/4 * 3/5) / (3/4 + 3/5) = 2/3
    assert scores[U].precision == pytest.approx(0.75)
    assert scores[U].recall == pytest.approx(0.6)
    assert scores[U].f1 == pytest.approx(2 / 3)


def test_balanced_accuracy_by_hand() -> None:
    # (2/3 + 1/2 + 3/5) / 3 = 53/90
    assert balanced_accuracy(GOLD, PREDICTED, LABELS) == pytest.approx(53 / 90)


def test_classify_collects_everything() -> None:
    result = classify(GOLD, PREDICTED, LABELS)
    assert result.matrix == ((2, 0, 1), (1, 1, 0), (1, 1, 3))
    assert result.accuracy == pytest.approx(0.6)
    assert result.balanced_accuracy == pytest.approx(53 / 90)
    assert result.total == 10
    assert result.to_dict()["per_label"][S]["support"] == 3


def test_to_markdown_table() -> None:
    table = classify(GOLD, PREDICTED, LABELS).to_markdown().splitlines()
    assert table[0] == "| gold \\ predicted | supported | refuted | unverifiable | total |"
    assert table[2] == "| supported | 2 | 0 | 1 | 3 |"
    assert table[3] == "| refuted | 1 | 1 | 0 | 2 |"
    assert table[4] == "| unverifiable | 1 | 1 | 3 | 5 |"
    assert table[5] == "| total | 4 | 2 | 4 | 10 |"
    assert "| refuted | 0.500 | 0.500 | 0.500 | 2 | 2 |" in classify(GOLD, PREDICTED, LABELS).scores_markdown()


def test_label_never_predicted_scores_zero_without_error() -> None:
    gold, predicted = [S, R, U], [S, S, U]
    scores = per_label_scores(gold, predicted, LABELS)
    assert scores[R].predicted == 0
    assert (scores[R].precision, scores[R].recall, scores[R].f1) == (0.0, 0.0, 0.0)
    assert scores[S].precision == pytest.approx(0.5)
    assert balanced_accuracy(gold, predicted, LABELS) == pytest.approx(2 / 3)


def test_label_absent_from_gold_is_left_out_of_balanced_accuracy() -> None:
    gold, predicted = [S, S, U, U], [S, R, U, U]
    scores = per_label_scores(gold, predicted, LABELS)
    assert scores[R].support == 0
    assert (scores[R].precision, scores[R].recall) == (0.0, 0.0)
    # mean of recall(S) = 1/2 and recall(U) = 1 only
    assert balanced_accuracy(gold, predicted, LABELS) == pytest.approx(0.75)


def test_perfect_predictions() -> None:
    assert balanced_accuracy(GOLD, GOLD, LABELS) == 1.0


@pytest.mark.parametrize(
    ("gold", "predicted", "labels", "message"),
    [
        ([], [], LABELS, "empty"),
        ([S], [S, R], LABELS, "gold has 1 labels but predicted has 2"),
        ([S], ["maybe"], LABELS, "not in"),
        ([S], [S], (), "labels must not be empty"),
        ([S], [S], (S, S), "duplicates"),
    ],
)
def test_bad_input_raises_clear_value_error(gold, predicted, labels, message) -> None:
    for function in (confusion_matrix, per_label_scores, balanced_accuracy, classify):
        with pytest.raises(ValueError, match=message):
            function(gold, predicted, labels)
