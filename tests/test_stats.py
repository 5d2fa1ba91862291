"""Statistics of the verdicts (krepro.stats): Holm's procedure, repetitions for a
half-width, Wilson intervals, paired differences."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.stats import binomtest

from krepro.stats import (
    agresti_coull_sd,
    cochran_q,
    floored_deviation_sd,
    holm_adjusted,
    holm_levels,
    paired,
    repetitions_for_half_width,
    rmse_ratio,
    wilson_interval,
    within_group_products,
)


def test_holm_adjusted_hand_example():
    adjusted = holm_adjusted([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(adjusted, [0.03, 0.06, 0.06, 0.02])


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=12),
    st.sampled_from([0.01, 0.05, 0.1]),
)
def test_holm_levels_decide_as_adjusted_p_values(pvalues, alpha):
    levels = holm_levels(pvalues, alpha)
    adjusted = holm_adjusted(pvalues)
    np.testing.assert_array_equal(np.asarray(pvalues) <= levels, adjusted <= alpha)


# ------------------------------------------------------------------------- repetitions


@pytest.mark.parametrize("prediction", [False, True])
@pytest.mark.parametrize("half_width", [0.05, 0.3, 1.0])
def test_repetitions_for_half_width_is_the_smallest(prediction, half_width):
    sd, tail = 0.4, 0.025

    def width(n):
        factor = np.sqrt(1 + 1 / n) if prediction else 1 / np.sqrt(n)
        return stats.t.ppf(1 - tail, n - 1) * sd * factor

    n = repetitions_for_half_width(sd, half_width, tail, prediction=prediction)
    if prediction and half_width <= stats.norm.ppf(1 - tail) * sd:
        assert n is None
        return
    assert width(n) <= half_width
    assert n == 2 or width(n - 1) > half_width


def test_repetitions_for_a_vanishing_half_width_is_none_not_an_overflow():
    # An effect a rounding error from its margin leaves a half-width of ~1e-18 to reach;
    # a prediction interval a hair wider than its limit z·sd likewise.
    sd, tail = 0.4, 0.025
    assert repetitions_for_half_width(sd, 1e-18, tail) is None
    assert repetitions_for_half_width(0.01, 1e-17, 0.05) is None
    limit = stats.norm.ppf(1 - tail) * sd
    assert repetitions_for_half_width(sd, limit * (1 + 1e-14), tail, prediction=True) is None


# --------------------------------------------------------------------------- aggregate


@pytest.mark.parametrize(
    ("successes", "n"), [(0, 20), (19, 20), (20, 20), (1900, 2000), (950, 1000)]
)
@pytest.mark.parametrize("level", [0.95, 0.99])
def test_wilson_interval_matches_scipy(successes, n, level):
    low, high = wilson_interval(successes, n, level)
    assert low <= successes / n <= high
    expected = binomtest(successes, n).proportion_ci(confidence_level=level, method="wilson")
    assert low == pytest.approx(expected.low, abs=1e-10)
    assert high == pytest.approx(expected.high, abs=1e-10)


def test_paired_differences_are_per_split():
    runs = pd.DataFrame(
        {
            "g": ["a"] * 6,
            "repetition": [0, 0, 1, 1, 2, 2],
            "method": ["x", "y"] * 3,
            "v": [1.0, 2.0, 5.0, 6.5, 3.0, 3.5],
        }
    )
    d = paired(runs, ["g"], "method", "x", "y", "v").iloc[0]
    assert d["mean"] == pytest.approx(1.0)
    assert d["sd"] == pytest.approx(0.5)
    assert d["n"] == 3


# --------------------------------------------------------------------------- paired 0/1 outcomes


def test_cochran_q_for_two_settings_is_mcnemar():
    rng = np.random.default_rng(0)
    pairs = rng.integers(0, 2, size=(300, 2))
    b = np.sum((pairs[:, 0] == 1) & (pairs[:, 1] == 0))
    c = np.sum((pairs[:, 0] == 0) & (pairs[:, 1] == 1))
    q, p = cochran_q(pairs)
    assert q == pytest.approx((b - c) ** 2 / (b + c))
    assert p == pytest.approx(stats.chi2.sf(q, 1))
    assert cochran_q(np.ones((10, 3))) == (0.0, 1.0)


def test_agresti_coull_sd_is_never_zero_and_near_the_sample_sd():
    assert agresti_coull_sd(40, 40) == pytest.approx(np.sqrt(42 / 44 * 2 / 44))
    assert agresti_coull_sd(0, 40) > 0
    indicators = (np.arange(2000) < 1900).astype(float)
    assert agresti_coull_sd(indicators.sum(), 2000) == pytest.approx(
        indicators.std(ddof=1), rel=0.01
    )


def test_floored_deviation_sd_keeps_the_sample_sd_above_its_floor():
    n = 40
    alike = np.zeros((n, 3))  # every repetition deviates alike: sample sd 0
    np.testing.assert_allclose(floored_deviation_sd(alike), np.sqrt(0.5 / (n + 4)))
    spread = np.random.default_rng(1).normal(0, 1, size=(n, 2))
    np.testing.assert_allclose(floored_deviation_sd(spread), spread.std(axis=0, ddof=1))
    assert np.isnan(floored_deviation_sd(np.zeros((1, 2)))).all()


def test_rmse_ratio_and_its_delta_method_spread():
    rng = np.random.default_rng(2)
    base = rng.gamma(4.0, 0.25, size=4000)
    errors = np.column_stack([base, 4.0 * base, 4.0 * rng.gamma(4.0, 0.25, size=4000)])
    ratio, sd = rmse_ratio(errors, 0, [1, 2])
    np.testing.assert_allclose(ratio, np.sqrt(errors.mean(axis=0)[1:] / errors[:, 0].mean()))
    assert sd[0] == pytest.approx(0.0, abs=1e-12)  # perfectly paired: no spread
    # Independent columns: the delta method's sd of one repetition, R/2 sqrt(cv1² + cv2²).
    cv = 0.5
    assert sd[1] == pytest.approx(ratio[1] / 2 * np.sqrt(2 * cv**2), rel=0.05)
    ratio, sd = rmse_ratio(errors[:1], 0, [1])
    assert ratio[0] == pytest.approx(2.0) and np.isnan(sd[0])


def test_within_group_products_average_to_each_groups_correlation():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "group": np.repeat([0.0, 0.5, 1.0, 2.0], [7, 7, 7, 1]),
            "a": rng.normal(size=22) + np.repeat([0.0, 5.0, 10.0, 0.0], [7, 7, 7, 1]),
            "b": rng.normal(size=22),
        }
    )
    frame.loc[frame["group"] == 1.0, "b"] = 3.0  # no spread: correlation 0
    products, per_group = within_group_products(frame, "group", "a", "b")
    assert products.size == 21 and list(per_group) == [0.0, 0.5, 1.0]  # one row: left out
    for key in (0.0, 0.5):
        rows = frame[frame["group"] == key]
        assert per_group[key] == pytest.approx(np.corrcoef(rows["a"], rows["b"])[0, 1])
    assert per_group[1.0] == 0.0
    assert products.mean() == pytest.approx(np.mean(list(per_group.values())))
    empty, none = within_group_products(frame.iloc[[0]], "group", "a", "b")
    assert empty.size == 0 and none == {}
