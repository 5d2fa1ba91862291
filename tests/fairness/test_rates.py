"""Rates of the E[φ(X)|S] estimators (krepro.fairness.rates): closed forms, error formula,
slope fits."""

from __future__ import annotations

import numpy as np
import pytest

from krepro.cme import CMEConditionalMean
from krepro.fairness.conditional import (
    DyadicPartition,
    FiniteValuePartition,
    PartitionConditionalMean,
)
from krepro.fairness.rates import (
    GaussianConditionalModel,
    _cell_norms_sq,
    _gaussian_pair_sum,
    cells_per_axis_schedule,
    embedding_errors,
    fit_slope,
    midpoint_grid,
    theory_slope,
)
from krepro.kernels import gram

# --------------------------------------------------------------------------- closed forms


@pytest.mark.parametrize("kind", ["finite", "continuous"])
def test_closed_form_embedding_matches_monte_carlo(kind):
    """E[k(X, x) | S = s] and ‖g(s)‖² against 400 000 draws of X given s.

    k ∈ [0, 1], so each Monte Carlo mean has sd ≤ 0.5 / √(4·10⁵) < 1e-3: 5e-3 is 5 sd.
    """
    model = GaussianConditionalModel(kind, n_values=3, d=2, mean_scale=1.5, sd=0.7)
    rng = np.random.default_rng(0)
    s = np.array([[2.0]]) if kind == "finite" else np.array([[0.2, 0.9]])
    mu = model.mean(s)[0]
    draws = mu + model.sd * rng.standard_normal(400_000)
    x = np.array([[-0.5], [0.4], [1.3]])
    monte_carlo = gram(draws, x, "rbf", gamma=model.kernel_gamma).mean(axis=0)
    np.testing.assert_allclose(model.embedding(s, x)[:, 0], monte_carlo, atol=5e-3)
    pairs = np.exp(-model.kernel_gamma * (draws[::2] - draws[1::2]) ** 2).mean()
    np.testing.assert_allclose(model.embedding_norm_sq(s)[0], pairs, atol=5e-3)


def test_model_rejects_bad_parameters():
    with pytest.raises(ValueError, match="kind"):
        GaussianConditionalModel("discrete")
    with pytest.raises(ValueError, match="sd"):
        GaussianConditionalModel("finite", sd=0.0)
    with pytest.raises(ValueError, match="d must"):
        GaussianConditionalModel("continuous", d=0)


def test_theory_slopes_and_schedule():
    assert theory_slope("finite") == -0.5
    assert theory_slope("continuous", 1) == -0.25
    assert theory_slope("continuous", 2) == pytest.approx(-1 / 6)
    assert theory_slope("other") is None
    # ℓ = ⌈n^(1/(2(d+1)))⌉: 16^(1/4) = 2 exactly, 17^(1/4) just above 2
    assert cells_per_axis_schedule(16, 1) == 2
    assert cells_per_axis_schedule(17, 1) == 3
    assert cells_per_axis_schedule(64, 2) == 2
    with pytest.raises(ValueError, match="n must"):
        cells_per_axis_schedule(0, 1)


def test_midpoint_grid_is_aligned_with_cells():
    points, weights = midpoint_grid(4, 2, points_per_cell=3)
    assert points.shape == (144, 2)
    assert weights.sum() == pytest.approx(1.0)
    cells = DyadicPartition(0.0, 1.0, 4).fit(points).assign(points)
    assert np.all(np.bincount(cells) == 9)  # every cell gets the same 3 × 3 points


# --------------------------------------------------------------------------- error formula


class _Dense:
    """The same estimator without its cell structure: forces the generic w(s) K w(s) path."""

    def __init__(self, estimator):
        self.weights_ = estimator.weights_
        self.membership = estimator.membership


def test_partition_error_path_equals_generic_formula():
    model = GaussianConditionalModel("continuous", d=2)
    S, X = model.sample(np.random.default_rng(1), 150)
    estimator = PartitionConditionalMean(DyadicPartition(0.0, 1.0, 3)).fit(S)
    query, _ = model.query_points(3, 2)
    fast = embedding_errors(estimator, X, query, model, block=7)
    slow = embedding_errors(_Dense(estimator), X, query, model)
    np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-12)
    # a cell's four queries in blocks of two
    np.testing.assert_allclose(embedding_errors(estimator, X, query, model, block=2), fast)
    assert np.all(fast > 0)


@pytest.mark.parametrize("gamma", [1.0, 0.1, 30.0])  # 30: too wide a cell for the series
def test_cell_norms_equal_the_full_pair_means(gamma):
    model = GaussianConditionalModel("finite", n_values=3, kernel_gamma=gamma)
    S, X = model.sample(np.random.default_rng(4), 700)
    estimator = PartitionConditionalMean(FiniteValuePartition(values=[0.0, 1.0, 2.0, 3.0])).fit(S)
    members = estimator.cell_members_  # three cells of ~230 points and an empty one
    full = [model.kernel(X[m]).mean() if len(m) else 0.0 for m in members]
    for block in (16, 100, 256):  # tiles: several on the diagonal and right of them, or one
        np.testing.assert_allclose(
            _cell_norms_sq(model, X, members, block=block), full, rtol=1e-13, atol=0
        )


def test_gaussian_pair_sum_is_as_accurate_as_the_double_sum():
    # Against an extended-precision double sum (long double: 64-bit mantissa on x86, else
    # the check is only as tight as float64). The series' error is the double sum's, ~1e-16.
    rng = np.random.default_rng(5)
    for n, gamma, centre, sd in [(1500, 1.0, 0.0, 0.5), (900, 3.0, 2.0, 0.5), (1, 1.0, 3.0, 0.0)]:
        x = centre + sd * rng.standard_normal(n)
        xl = x.astype(np.longdouble)
        exact = np.exp(-np.longdouble(gamma) * (xl[:, None] - xl[None, :]) ** 2).sum()
        got = _gaussian_pair_sum(x, gamma)
        assert abs(np.longdouble(got) - exact) <= 2e-15 * exact
    assert _gaussian_pair_sum(np.array([-5.0, 5.0]), 1.0) is None  # 2γR² = 50: use tiles


def test_error_matches_large_sample_truth():
    """‖ĝ_s − g_s‖² from the closed form vs from a 400 000-point sample standing in for g_s.

    Kernel values have sd ≈ 0.3, so the cross term (2 × a mean of 4·10⁵) and the pair average
    (2·10⁵ pairs) each have Monte Carlo sd ≈ 1e-3; 4e-3 is over 3 sd of their sum, while the
    errors themselves are ≈ 1e-2.
    """
    model = GaussianConditionalModel("finite", n_values=2, sd=0.5)
    rng = np.random.default_rng(2)
    S, X = model.sample(rng, 60)
    estimator = PartitionConditionalMean(FiniteValuePartition(values=[0.0, 1.0])).fit(S)
    closed = embedding_errors(estimator, X, np.array([[0.0], [1.0]]), model)
    for value in (0, 1):
        members = X[S[:, 0] == value]
        big = model.mean(np.array([[value]]))[0] + model.sd * rng.standard_normal(400_000)
        k = lambda a, b: gram(a, b, "rbf", gamma=model.kernel_gamma)  # noqa: E731
        # ⟨ĝ_s, g_s⟩ by the large sample; ‖g_s‖² by independent pairs of it (unbiased)
        pairs = np.exp(-model.kernel_gamma * (big[::2] - big[1::2]) ** 2).mean()
        large = k(members, members).mean() - 2 * k(members, big).mean() + pairs
        assert closed[value] == pytest.approx(large, abs=4e-3)


def test_cme_error_is_small_for_a_large_sample():
    model = GaussianConditionalModel("continuous", d=1)
    errors = []
    for n in (50, 800):
        S, X = model.sample(np.random.default_rng(n), n)
        cme = CMEConditionalMean(gamma=10.0, alphas=10.0 ** np.arange(-6, 0))
        cme.fit(S, output_gram=model.kernel(X))
        query, weights = model.query_points(64)
        errors.append(float(weights @ embedding_errors(cme, X, query, model)))
    assert errors[1] < errors[0] / 4  # 16× the points: rate n^(−1/2) or better in squares


def test_empty_cell_error_is_the_norm_of_the_truth():
    model = GaussianConditionalModel("finite", n_values=3)
    S = np.zeros((5, 1))
    X = np.linspace(-1, 1, 5)[:, None]
    estimator = PartitionConditionalMean(FiniteValuePartition(values=[0.0, 1.0, 2.0])).fit(S)
    errors = embedding_errors(estimator, X, np.array([[1.0], [2.0]]), model)
    np.testing.assert_allclose(errors, model.embedding_norm_sq(np.zeros(2)))


# --------------------------------------------------------------------------- slope fits


def test_fit_slope_recovers_an_exact_power_law():
    sizes = np.array([100, 200, 400, 800])
    errors = np.outer(3.0 * sizes**-0.5, np.ones(4))
    fit = fit_slope(sizes, errors, n_bootstrap=100, random_state=0)
    assert fit["slope"] == pytest.approx(-0.5)
    assert fit["slope_ci_low"] == pytest.approx(-0.5)
    assert fit["slope_ci_high"] == pytest.approx(-0.5)
    assert fit["r2"] == pytest.approx(1.0)


def test_fit_slope_interval_covers_the_truth_with_noise():
    rng = np.random.default_rng(3)
    sizes = np.array([100, 200, 400, 800, 1600])
    errors = sizes[:, None] ** -0.25 * np.exp(0.1 * rng.standard_normal((5, 30)))
    fit = fit_slope(sizes, errors, n_bootstrap=1000, random_state=1)
    assert fit["slope_ci_low"] < -0.25 < fit["slope_ci_high"]
    assert fit["slope_ci_high"] - fit["slope_ci_low"] < 0.1


@pytest.mark.parametrize(
    ("sizes", "errors", "match"),
    [
        ([100], np.ones((1, 3)), "two sizes"),
        ([100, 200], np.ones((2, 1)), "two sizes"),
        ([100, 200], np.ones((3, 2)), "shape"),
        ([100, 200], np.zeros((2, 2)), "positive"),
    ],
)
def test_fit_slope_rejects_bad_input(sizes, errors, match):
    with pytest.raises(ValueError, match=match):
        fit_slope(sizes, errors)
