"""dependence_report: HSIC with a permutation p-value, distance correlation and the binned
spread of the mean prediction (fairlearn's MetricFrame) against a continuous S."""

import math

import numpy as np
import pandas as pd
import pytest

from krepro.metrics import (
    DependenceReport,
    dependence_report,
    distance_correlation,
    hsic,
    hsic_test,
)

pytest.importorskip("fairlearn")


def _bivariate_normal_dcor(rho):
    """Population distance correlation of a bivariate normal (Székely et al. 2007, Thm 7)."""
    numerator = (
        rho * math.asin(rho)
        + math.sqrt(1 - rho**2)
        - rho * math.asin(rho / 2)
        - math.sqrt(4 - rho**2)
        + 1
    )
    return math.sqrt(numerator / (1 + math.pi / 3 - math.sqrt(3)))


def test_independent_predictions_have_hsic_near_zero_and_a_large_p_value():
    rng = np.random.default_rng(0)
    S = rng.uniform(size=400)
    report = dependence_report(rng.normal(size=400), S, n_permutations=199, seed=1)
    assert isinstance(report, DependenceReport)
    assert report.hsic < 0.005
    assert report.hsic_p_value > 0.05
    assert report.distance_correlation < 0.15
    assert report.n_samples == report.n_kernel_samples == 400


def test_dependent_predictions_are_detected_by_every_measure():
    rng = np.random.default_rng(0)
    S = rng.uniform(-1, 1, 400)
    predictions = S**2 + 0.1 * rng.normal(size=400)  # uncorrelated with S, yet dependent
    report = dependence_report(predictions, S, n_permutations=199, seed=1)
    assert abs(np.corrcoef(predictions, S)[0, 1]) < 0.1
    assert report.hsic_p_value == pytest.approx(1 / 200)
    assert report.hsic > 10 * dependence_report(rng.permutation(predictions), S, seed=2).hsic
    assert report.distance_correlation > 0.3
    # quantile bins: outer bins have mean ≈ 0.8, the middle one ≈ 0.04
    assert report.group_spread > 0.5


def test_p_values_under_independence_are_roughly_uniform():
    p_values = []
    for seed in range(40):
        rng = np.random.default_rng(seed)
        p_values.append(
            dependence_report(
                rng.normal(size=60), rng.uniform(size=60), n_permutations=99, seed=seed
            ).hsic_p_value
        )
    p_values = np.array(p_values)
    assert p_values.min() >= 1 / 100
    assert 0.35 < p_values.mean() < 0.65
    assert np.mean(p_values <= 0.1) <= 0.25


def test_the_report_repeats_hsic_test_with_the_seeded_permutations():
    rng = np.random.default_rng(4)
    S = rng.uniform(size=80)
    predictions = S + rng.normal(size=80)
    report = dependence_report(predictions, S, n_permutations=50, seed=7)
    _, permutation_seed = np.random.SeedSequence(7).spawn(2)
    statistic, p_value = hsic_test(
        predictions, S[:, None], n_permutations=50, random_state=permutation_seed
    )
    assert report.hsic == statistic == pytest.approx(hsic(predictions, S), rel=1e-12)
    assert report.hsic_p_value == p_value
    again = dependence_report(predictions, S, n_permutations=50, seed=7)
    assert again == report  # the scalar fields
    pd.testing.assert_series_equal(again.group_means, report.group_means)


@pytest.mark.parametrize("rho", [0.3, 0.7])
def test_distance_correlation_matches_the_bivariate_normal_population_value(rho):
    rng = np.random.default_rng(int(rho * 10))
    n = 3000
    a = rng.normal(size=n)
    b = rho * a + math.sqrt(1 - rho**2) * rng.normal(size=n)
    report = dependence_report(a, b, n_permutations=1, seed=0)
    assert report.distance_correlation == pytest.approx(_bivariate_normal_dcor(rho), abs=0.02)
    assert _bivariate_normal_dcor(1.0) == pytest.approx(1.0)


def test_distance_correlation_is_one_for_an_affine_map_and_a_hand_computed_value():
    a = np.array([0.0, 1.0, 3.0])
    assert distance_correlation(a, -2 * a + 5) == pytest.approx(1.0)
    # a = (0, 1, 3), b = (0, 1, 0): double-centred distance matrices by hand give
    # V²(a, b) = 4/27, V²(a, a) = 32/27, V²(b, b) = 16/81 (exact fractions)
    b = np.array([0.0, 1.0, 0.0])
    expected = math.sqrt((4 / 27) / math.sqrt(32 / 27 * 16 / 81))
    assert distance_correlation(a, b) == pytest.approx(expected, rel=1e-12)


def test_group_spread_is_the_range_of_mean_predictions_over_quantile_bins():
    rng = np.random.default_rng(3)
    S = rng.uniform(size=500)
    predictions = 2 * S + rng.normal(size=500)
    report = dependence_report(predictions, S, n_bins=4, n_permutations=5, seed=0)
    bins = pd.qcut(S, 4)
    means = pd.Series(predictions).groupby(bins, observed=True).mean()
    assert report.group_spread == pytest.approx(means.max() - means.min(), rel=1e-12)
    np.testing.assert_allclose(report.group_means.to_numpy(), means.to_numpy())
    uniform = dependence_report(predictions, S, n_bins=4, binning="uniform", n_permutations=5)
    assert uniform.group_means.shape == (4,)
    constant = dependence_report(np.ones(500), S, n_permutations=5, seed=0)
    assert constant.group_spread == 0.0
    # few distinct values: repeated quantile edges are merged into fewer bins
    coded = dependence_report(predictions, (S > 0.5).astype(float), n_bins=5, n_permutations=5)
    assert len(coded.group_means) == 2
    assert coded.group_spread > 0.5
    assert set(report.as_dict()) == {
        "hsic", "hsic_p_value", "distance_correlation", "group_spread", "n_samples",
        "n_kernel_samples", "n_permutations",
    }  # fmt: skip


def test_max_samples_subsamples_the_kernel_measures_only():
    rng = np.random.default_rng(5)
    S = rng.uniform(size=1000)
    predictions = S + rng.normal(size=1000)
    full = dependence_report(predictions, S, n_permutations=5, seed=0)
    sub = dependence_report(predictions, S, n_permutations=5, max_samples=300, seed=0)
    assert sub.n_kernel_samples == 300 and sub.n_samples == 1000
    assert sub.group_spread == full.group_spread
    assert sub.hsic != full.hsic


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"predictions": np.ones(9)}, "same length, got 9 and 10"),
        ({"predictions": np.r_[np.nan, np.ones(9)]}, "predictions must be finite"),
        ({"sensitive_features": np.r_[np.inf, np.ones(9)]}, "sensitive_features must be finite"),
        ({"sensitive_features": ["a"] * 10}, "sensitive_features must be numbers"),
        ({"predictions": np.ones((10, 2))}, "predictions must be 1-d"),
        ({"n_bins": 0}, "n_bins must be a positive integer"),
        ({"n_permutations": 2.5}, "n_permutations must be a positive integer"),
        ({"binning": "kmeans"}, "binning must be one of"),
        ({"max_samples": 1}, "max_samples must be at least 2"),
        ({"predictions": [1.0], "sensitive_features": [0.0]}, "at least 2 rows"),
    ],
)
def test_bad_input_is_named(kwargs, message):
    arguments = {"predictions": np.arange(10.0), "sensitive_features": np.arange(10.0)}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        dependence_report(
            arguments.pop("predictions"), arguments.pop("sensitive_features"), **arguments
        )
