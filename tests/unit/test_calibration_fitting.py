"""veracity.calibrate.fitting (what `veracity calibrate` and training/fit_confidence.py fit with): threshold
certification and calibration scores on synthetic data with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from veracity.calibrate import fitting as fit
from veracity.offline.calibration.features import FEATURES


def calibrated(rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Confidences uniform on [0, 1], each right with exactly that probability."""
    rng = np.random.default_rng(seed)
    confidence = rng.uniform(0, 1, rows)
    return confidence, rng.uniform(0, 1, rows) < confidence


def test_a_certified_threshold_keeps_precision_above_the_target() -> None:
    # Above threshold t the precision is (1 + t) / 2, so 0.90 needs t >= 0.80.
    confidence, right = calibrated(6000, seed=1)
    learn = calibrated(6000, seed=2)
    threshold = fit.certify(confidence, right, target=0.9, delta=0.05, learn=learn)
    assert threshold is not None and 0.8 <= threshold <= 0.95  # valid, and not far above what is needed
    assert right[confidence >= threshold].mean() >= 0.9
    fresh_confidence, fresh_right = calibrated(6000, seed=3)  # and on new data drawn the same way
    assert fresh_right[fresh_confidence >= threshold].mean() >= 0.88


def test_without_a_learned_order_every_candidate_pays_for_the_others() -> None:
    confidence, right = calibrated(6000, seed=1)
    holm = fit.certify(confidence, right, target=0.9, delta=0.05)
    ordered = fit.certify(confidence, right, target=0.9, delta=0.05, learn=calibrated(6000, seed=2))
    assert holm is not None and ordered is not None and holm >= ordered


def test_a_precision_no_threshold_reaches_is_not_certified() -> None:
    rng = np.random.default_rng(4)
    confidence = rng.uniform(0, 1, 3000)
    right = rng.uniform(0, 1, 3000) < 0.6  # right 60 % of the time, whatever the confidence
    assert fit.certify(confidence, right, target=0.9, delta=0.05, learn=(confidence, right)) is None
    levels = fit.certify_levels(confidence, right, 0.05, levels=(0.5, 0.9))
    assert levels[0] is not None and levels[1] is None


def test_too_few_rows_certify_nothing() -> None:
    assert fit.certify(np.array([0.99] * 5), np.array([True] * 5), target=0.9, delta=0.05) is None
    assert fit.certify(np.array([]), np.array([], dtype=bool), target=0.9, delta=0.05) is None


def test_expected_calibration_error_on_known_cases() -> None:
    confidence, right = calibrated(20000, seed=5)
    assert fit.expected_calibration_error(confidence, right.astype(float)) < 0.02
    overconfident = np.full(1000, 0.9)
    right = np.zeros(1000)
    right[:600] = 1
    assert fit.expected_calibration_error(overconfident, right) == pytest.approx(0.3)


def test_the_fitted_model_learns_which_signal_predicts_a_right_verdict() -> None:
    rng = np.random.default_rng(6)
    features = rng.normal(size=(2000, len(FEATURES)))
    signal = FEATURES.index("coverage")
    right = rng.uniform(size=2000) < 1 / (1 + np.exp(-2 * features[:, signal]))
    model = fit.fit_model(features, right, np.ones(2000), strength=1.0, names=FEATURES)
    assert model.weights[signal] > 1.0
    assert all(abs(w) < 0.5 for i, w in enumerate(model.weights) if i != signal)
    probabilities = fit.predict(model, features)
    assert fit.expected_calibration_error(probabilities, right.astype(float)) < 0.05


def test_halves_and_weights() -> None:
    assert fit.half_of("The museum opened in 1990.") == fit.half_of("The museum opened in 1990.")
    halves = {fit.half_of(f"claim number {n}") for n in range(200)}
    assert halves == {"fit", "certify"}
    weights = fit.dataset_weights(np.array(["a"] * 30 + ["b"] * 10))
    assert weights[:30].sum() == pytest.approx(weights[30:].sum()) and weights.mean() == pytest.approx(1.0)


def test_the_guard_keeps_one_dataset_from_carrying_another() -> None:
    # A large easy dataset, right 97 % at high confidence, and a small hard one right 50 % there.
    # (The guard asks each dataset for the target plus GUARD_MARGIN.)
    rng = np.random.default_rng(7)
    easy = rng.uniform(0.8, 1.0, 3000)
    hard = rng.uniform(0.8, 1.0, 200)
    confidence = np.concatenate([easy, hard])
    right = np.concatenate([rng.uniform(size=3000) < 0.97, rng.uniform(size=200) < 0.5])
    groups = np.array(["easy"] * 3000 + ["hard"] * 200)
    pooled = fit.certify(confidence, right, target=0.9, delta=0.05)
    assert pooled is not None  # the mixture is right 94 % of the time
    guard = fit.Guard(confidence, right, groups)
    assert not guard.holds(pooled, 0.9)
    assert fit.certify(confidence, right, target=0.9, delta=0.05, guard=guard) is None
    small = fit.Guard(confidence[:3005], right[:3005], groups[:3005])  # fewer hard rows than GUARD_ROWS
    assert small.holds(pooled, 0.9)


def test_fit_and_certify_finds_the_signal_and_certifies_on_the_other_half() -> None:
    # Supported verdicts whose "quality" signal predicts being right; refuted ones right at random.
    rng = np.random.default_rng(8)
    rows = 4000
    quality = rng.normal(size=rows)
    raw = np.where(rng.uniform(size=rows) < 0.7, "supported", "refuted")
    right_supported = rng.uniform(size=rows) < 1 / (1 + np.exp(-3 * quality))
    gold = np.where(raw == "supported", np.where(right_supported, "supported", "refuted"),
                    np.where(rng.uniform(size=rows) < 0.5, "refuted", "supported"))
    claims = [f"claim {n}" for n in range(rows)]
    table = fit.Table("synthetic", claims, gold, raw, np.column_stack([quality, rng.normal(size=rows)]),
                      ("quality", "noise"))
    halves = np.array([fit.half_of(c) for c in claims])
    fitted = fit.fit_and_certify(table, np.full(rows, "all"), halves)
    supported = fitted.models["supported"]
    assert supported.weights[0] > 1.0 and abs(supported.weights[1]) < 0.2
    at_90 = fit.LEVELS.index(0.9)
    threshold = fitted.thresholds["supported"][at_90]
    assert threshold is not None
    certify = (halves == "certify") & (raw == "supported")
    kept = fit.predict(supported, table.features[certify]) >= threshold
    assert (gold[certify][kept] == "supported").mean() >= 0.9
    assert fitted.thresholds["refuted"][at_90] is None  # right half the time whatever the signals say
    assert set(fitted.out_of_fold) == {"supported", "refuted", "unverifiable"}
    coverage = fit.coverage_at(fitted, table, halves, 0.9)
    assert 0 < coverage["coverage"] < 0.7 and coverage["precision"] >= 0.9


def test_tables_kept_before_the_fitting_moved_still_read(tmp_path) -> None:
    """training/fit_confidence.py --reuse-tables reads a file naming `veracity.calibration.fitting`, the old home."""
    import pickle

    from tests.unit.training_scripts import training_script

    table = fit.Table("t", ["a claim"], np.array(["supported"]), np.array(["supported"]), np.zeros((1, 2)), ("x", "y"))
    old = pickle.dumps({"calibration": [table]}, protocol=0).replace(b"veracity.calibrate.fitting",
                                                                    b"veracity.calibration.fitting")
    assert b"veracity.calibration.fitting" in old
    (tmp_path / "tables.pkl").write_bytes(old)
    [read] = training_script("fit_confidence").read_tables(tmp_path / "tables.pkl")["calibration"]
    assert isinstance(read, fit.Table) and read.claims == ["a claim"] and read.names == ("x", "y")
