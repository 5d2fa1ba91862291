"""Data of fair regression with a continuous S: the synthetic law's closed-form conditional
mean embedding, diabetes with S = age, Parkinson's with S = age (mirror only)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from krepro.data.fair_regression import (
    gaussian_shift_sample,
    load_adult_age,
    load_diabetes_age,
    load_parkinsons_age,
    true_conditional_embedding,
    true_conditional_embedding_inner,
)
from krepro.fairness.conditional import DyadicPartition, PartitionConditionalMean
from krepro.kernels import gram

LAW = {"d": 2, "shift": 1.5, "shifted_axes": 1, "sd": 0.8}
GAMMA = 0.7


def test_sample_follows_the_stated_law():
    rng = np.random.default_rng(0)
    data = gaussian_shift_sample(rng, 20_000, noise_sd=0.1, **LAW)
    assert data.X.shape == (20_000, 2) and len(data) == 20_000
    assert data.S.min() >= 0 and data.S.max() <= 1
    residual = data.X[:, 0] - 1.5 * data.S
    assert residual.std() == pytest.approx(0.8, rel=0.03)
    assert abs(np.corrcoef(data.X[:, 1], data.S)[0, 1]) < 0.03
    fitted = np.sin(2 * data.X[:, 0]) + 0.5 * data.X[:, 1] + data.S
    assert np.std(data.y - fitted) == pytest.approx(0.1, rel=0.03)


def test_closed_form_embedding_matches_monte_carlo():
    rng = np.random.default_rng(1)
    points = np.array([[0.0, 0.0], [1.0, -0.5], [2.0, 1.0]])
    for s in (0.1, 0.9):
        X = np.column_stack([1.5 * s, 0.0]) + 0.8 * rng.standard_normal((400_000, 2))
        monte_carlo = gram(X, points, "rbf", gamma=GAMMA).mean(axis=0)
        exact = true_conditional_embedding(points, [s], gamma=GAMMA, **LAW)[0]
        np.testing.assert_allclose(monte_carlo, exact, atol=2e-3)
    X_a = np.column_stack([1.5 * 0.2, 0.0]) + 0.8 * rng.standard_normal((400_000, 2))
    X_b = np.column_stack([1.5 * 0.7, 0.0]) + 0.8 * rng.standard_normal((400_000, 2))
    monte_carlo = np.exp(-GAMMA * np.sum((X_a - X_b) ** 2, axis=1)).mean()
    exact = true_conditional_embedding_inner([0.2], [0.7], gamma=GAMMA, **LAW)[0, 0]
    assert monte_carlo == pytest.approx(exact, abs=2e-3)
    inner = true_conditional_embedding_inner([0.3, 0.5], [0.3, 0.5], gamma=GAMMA, **LAW)
    np.testing.assert_allclose(inner, inner.T)


def test_the_partition_plug_in_estimate_approaches_the_truth():
    # Prop. 6: E_n[k(X, x) | S ∈ A] on 8 dyadic cells, against the closed form at the centres
    rng = np.random.default_rng(2)
    data = gaussian_shift_sample(rng, 40_000, **LAW)
    points = np.array([[0.0, 0.0], [1.5, 0.5]])
    estimator = PartitionConditionalMean(DyadicPartition(0.0, 1.0, 8)).fit(data.S)
    centres = (np.arange(8) + 0.5) / 8
    estimate = estimator.conditional_mean(gram(data.X, points, "rbf", gamma=GAMMA), centres)
    truth = true_conditional_embedding(points, centres, gamma=GAMMA, **LAW)
    np.testing.assert_allclose(estimate, truth, atol=0.01)


def test_bad_synthetic_parameters_are_named():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="shifted_axes must lie in"):
        gaussian_shift_sample(rng, 10, d=2, shifted_axes=3)
    with pytest.raises(ValueError, match="sd must be > 0"):
        gaussian_shift_sample(rng, 10, sd=0.0)
    with pytest.raises(ValueError, match="d must be at least 1"):
        gaussian_shift_sample(rng, 10, d=0)


def test_diabetes_with_age_as_the_sensitive_feature():
    data = load_diabetes_age()
    assert data.X.shape == (442, 9) and data.y.shape == (442,)
    assert "age" not in data.feature_names and len(data.feature_names) == 9
    assert data.S.min() == 19 and data.S.max() == 79
    assert data.groups is None


MIRROR = Path(os.environ.get("KREPRO_DATA_MIRROR", "/nonexistent"))
PARKINSONS = MIRROR / "parkinsons" / "parkinsons_updrs.data"


@pytest.mark.skipif(not PARKINSONS.exists(), reason=f"no mirror copy at {PARKINSONS}")
def test_parkinsons_with_age_constant_within_each_subject():
    data = load_parkinsons_age(PARKINSONS)
    assert data.X.shape == (5875, 16) and len(data) == 5875
    assert data.y.max() == pytest.approx(54.992)
    ages = {int(g): np.unique(data.S[data.groups == g]) for g in np.unique(data.groups)}
    assert len(ages) == 42 and all(len(a) == 1 for a in ages.values())
    motor = load_parkinsons_age(PARKINSONS, target="motor")
    assert motor.y.min() == pytest.approx(5.0377)
    with pytest.raises(ValueError, match="target must be one of"):
        load_parkinsons_age(PARKINSONS, target="updrs")


ADULT = MIRROR / "adult" / "adult.data"


@pytest.mark.skipif(not ADULT.exists(), reason=f"no mirror copy at {ADULT}")
def test_adult_with_age_as_the_sensitive_feature():
    data = load_adult_age(ADULT)
    assert len(data) == 30162 and data.X.shape[0] == 30162
    assert set(np.unique(data.y)) == {0.0, 1.0}
    assert data.S.min() == 17 and data.S.max() == 90
    assert "age" not in data.feature_names and "gender_Male" in data.feature_names
    assert np.isfinite(data.X).all()
