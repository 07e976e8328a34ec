"""training/cross_validate.py's pure parts: folds grouped by claim, the threshold choice, the stacker."""

from __future__ import annotations

import numpy as np
import pytest

from tests.unit.training_scripts import training_script


@pytest.fixture(scope="module")
def cv():
    return training_script("cross_validate")


def test_every_row_of_a_claim_lands_in_one_fold(cv):
    claims = [f"claim number {i}" for i in range(200)]
    folds = [cv.fold_of(c) for c in claims]
    assert folds == [cv.fold_of(f"  {c} ") for c in claims]  # surrounding spaces do not move a claim
    assert set(folds) == set(range(cv.FOLDS))
    assert max(np.bincount(folds)) < 200 / cv.FOLDS * 1.6  # roughly even


def test_the_healthver_halves_are_a_function_of_the_hypothesis(cv):
    parts = [cv.healthver_part(f"hypothesis {i}") for i in range(400)]
    assert parts == [cv.healthver_part(f"hypothesis {i} ") for i in range(400)]
    assert 150 < parts.count("calibration") < 250


def test_the_cap_is_a_seeded_sample_in_file_order(cv):
    rows = [{"n": i} for i in range(50)]
    kept = cv.capped(rows, 10)
    assert kept == cv.capped(rows, 10) and len(kept) == 10
    assert [r["n"] for r in kept] == sorted(r["n"] for r in kept)
    assert cv.capped(rows, None) == rows and cv.capped(rows, 80) == rows


def test_smoothing_averages_the_neighbours_cut_at_the_edges(cv):
    scores = np.arange(9, dtype=float).reshape(3, 3)
    smoothed = cv.smooth(scores, steps=1)
    assert smoothed[1, 1] == pytest.approx(4.0)
    assert smoothed[0, 0] == pytest.approx(np.mean([0, 1, 3, 4]))


def test_the_choice_prefers_a_broad_plateau_to_a_lone_peak(cv):
    a = np.full((7, 7), 0.5)
    a[1, 1] = 1.0  # a lucky isolated point
    a[4:7, 4:7] = 0.8  # a plateau
    b = np.full((7, 7), 0.5)
    b[1, 1] = 0.9
    b[4:7, 4:7] = 0.7
    assert cv.choose([a, b], steps=1) == (5, 5)
    assert cv.choose([a, b], steps=0) == (1, 1)


def test_grid_scores_are_balanced_accuracy_over_the_chosen_folds(cv):
    # 2 folds, 3 labels, a 1x1 grid: fold 0 gets 1 of 2 supported right, fold 1 has no refuted rows.
    correct = np.zeros((2, 3, 1, 1))
    totals = np.array([[2, 1, 1], [2, 0, 2]], dtype=float)
    correct[0, :, 0, 0] = [1, 1, 0]
    correct[1, :, 0, 0] = [2, 0, 1]
    assert cv.grid_scores(correct, totals, np.array([True, False]))[0, 0] == pytest.approx((0.5 + 1 + 0) / 3)
    assert cv.grid_scores(correct, totals, np.array([False, True]))[0, 0] == pytest.approx((1 + 0.5) / 2)
    assert cv.grid_scores(correct, totals, np.array([True, True]))[0, 0] == pytest.approx((3 / 4 + 1 + 1 / 3) / 3)


def test_balanced_weights_give_every_group_and_label_the_same_weight(cv):
    gold = np.array([0, 0, 0, 1, 0, 1, 2])
    group = np.array([0, 0, 0, 0, 1, 1, 1])
    weights = cv.balanced_weights(gold, group)
    assert weights.sum() == pytest.approx(1.0)
    assert weights[group == 0].sum() == pytest.approx(0.5)
    assert weights[(group == 0) & (gold == 0)].sum() == pytest.approx(weights[(group == 0) & (gold == 1)].sum())


def test_the_stacker_learns_a_separable_rule(cv):
    rng = np.random.default_rng(0)
    gold = np.repeat([0, 1, 2], 40)
    features = rng.normal(size=(120, 2)) * 0.3 + np.array([[2, 0], [0, 2], [0, 0]])[gold]
    model = cv.fit_stacker(features, gold, np.full(120, 1 / 120), ridge=0.01)
    assert (model.predict(features) == gold).mean() > 0.95
    assert np.allclose(model.probabilities(features).sum(1), 1.0)
