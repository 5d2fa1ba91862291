"""Measures of Table 1: error, DEO (vs fairlearn), e_β (hand-computed and independence)."""

import numpy as np
import pytest

from krepro.metrics import (
    beta_dependence,
    distance_correlation,
    equal_opportunity_difference,
    hsic,
    hsic_test,
    misclassification_rate,
    relative_beta_dependence,
    true_positive_rates,
)


def test_misclassification_rate():
    assert misclassification_rate([1, -1, 1, 1], [1, 1, -1, 1]) == 0.5
    with pytest.raises(ValueError, match="different lengths"):
        misclassification_rate([1, 1], [1])


@pytest.mark.parametrize("seed", range(5))
def test_deo_equals_fairlearn_equal_opportunity_difference(seed):
    fairlearn_metrics = pytest.importorskip("fairlearn.metrics")
    rng = np.random.default_rng(seed)
    n = 500
    s = rng.integers(0, 2, n)
    y_true = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.3 + 0.4 * s, 1, 0)
    ours = equal_opportunity_difference(y_true, y_pred, sensitive_features=s)
    theirs = fairlearn_metrics.equal_opportunity_difference(y_true, y_pred, sensitive_features=s)
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_deo_hand_computed_with_signed_labels():
    # group 0: positives at rows 0, 1, 2 → predicted +1 twice → TPR 2/3
    # group 1: positives at rows 4, 5   → predicted +1 once  → TPR 1/2
    y_true = np.array([1, 1, 1, -1, 1, 1, -1])
    y_pred = np.array([1, 1, -1, 1, 1, -1, 1])
    s = np.array([0, 0, 0, 0, 1, 1, 1])
    assert true_positive_rates(y_true, y_pred, s) == {0: pytest.approx(2 / 3), 1: 0.5}
    assert equal_opportunity_difference(y_true, y_pred, sensitive_features=s) == pytest.approx(
        1 / 6
    )


def test_deo_nan_when_a_group_has_no_positive():
    assert np.isnan(equal_opportunity_difference([1, -1], [1, 1], sensitive_features=[0, 1]))


def test_beta_dependence_hand_computed_table():
    # n = 8. Joint counts (ŷ, s): (1,0)=3, (1,1)=1, (-1,0)=1, (-1,1)=3.
    # P(ŷ=1) = P(s=0) = 1/2, so every product is 1/4 and each cell differs by 1/8:
    # Σ |·| = 4 · 1/8 = 0.5 (Table-1 convention, no ½), 0.25 with Bradley's ½.
    y_pred = np.array([1, 1, 1, 1, -1, -1, -1, -1])
    s = np.array([0, 0, 0, 1, 0, 1, 1, 1])
    assert beta_dependence(y_pred, s) == pytest.approx(0.5)
    assert beta_dependence(y_pred, s, halve=True) == pytest.approx(0.25)


def test_beta_dependence_unbalanced_hand_computed():
    # n = 10; s=1 for 4 rows; ŷ=1 for 5 rows, 3 of them with s=1.
    # P(ŷ=1,s=1)=.3 vs .5·.4=.2; P(ŷ=1,s=0)=.2 vs .3; P(ŷ=0,s=1)=.1 vs .2; P(ŷ=0,s=0)=.4 vs .3
    y_pred = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0])
    s = np.array([1, 1, 1, 0, 0, 1, 0, 0, 0, 0])
    assert beta_dependence(y_pred, s) == pytest.approx(0.4)


def test_beta_dependence_zero_when_independent_by_construction():
    # Every prediction value occurs equally often in each group (a product design), so the
    # empirical joint law factorises exactly.
    s = np.repeat([0, 1], 60)
    y_pred = np.tile(np.repeat([1, -1, 1], [10, 30, 20]), 2)
    assert beta_dependence(y_pred, s) == pytest.approx(0.0, abs=1e-15)
    assert beta_dependence(np.ones(120), s) == 0.0  # constant predictions


def test_beta_dependence_maximum_and_labels_superset():
    s = np.repeat([0, 1], 50)
    assert beta_dependence(s, s) == pytest.approx(1.0)  # ŷ = S, balanced: the code's max
    y_pred = np.where(s == 1, 1, -1)
    assert beta_dependence(y_pred, s, labels=[-1, 1, 7]) == beta_dependence(y_pred, s)


def test_relative_beta_dependence():
    assert relative_beta_dependence(0.02, 0.06) == pytest.approx(1 / 3)
    assert np.isnan(relative_beta_dependence(0.1, 0.0))


# --------------------------------------------------------------------------- HSIC


def _hsic_loop(a, b):
    """HSIC by its definition, n⁻² Σ_ij K̃_ij L_ij, with explicit loops (the oracle)."""
    n = len(a)

    def gram(v):
        d = np.array([[float(np.sum((v[i] - v[j]) ** 2)) for j in range(n)] for i in range(n)])
        median = np.median([d[i, j] for i in range(n) for j in range(i + 1, n)])
        return np.exp(-d / median)

    K, L = gram(np.asarray(a, float)), gram(np.asarray(b, float))
    H = np.eye(n) - np.ones((n, n)) / n
    centred = H @ K @ H
    return sum(centred[i, j] * L[i, j] for i in range(n) for j in range(n)) / n**2


def test_hsic_equals_the_loop_definition():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=25), rng.normal(size=(25, 2))
    assert hsic(a, b) == pytest.approx(_hsic_loop(a, b), rel=1e-12)
    assert hsic(a, a**2) == pytest.approx(_hsic_loop(a, a**2), rel=1e-12)


def test_hsic_test_p_value_equals_a_loop_over_the_same_permutations():
    rng = np.random.default_rng(1)
    a = rng.normal(size=30)
    for b in (a**2 + 0.5 * rng.normal(size=30), rng.normal(size=30)):
        statistic, p_value = hsic_test(a, b, n_permutations=99, random_state=7)
        permutations = np.random.default_rng(7).permuted(np.tile(np.arange(30), (99, 1)), axis=1)
        null = [hsic(a, b[perm]) for perm in permutations]  # the median is permutation-free
        assert statistic == pytest.approx(hsic(a, b), rel=1e-12)
        assert p_value == (1 + sum(v >= statistic for v in null)) / 100


def test_hsic_test_sees_dependence_that_correlation_misses():
    # y = a² + noise is uncorrelated with a symmetric a, yet dependent: HSIC rejects, and
    # an independent pair gives a p-value that is not small.
    rng = np.random.default_rng(2)
    a = rng.normal(size=200)
    y = a**2 + 0.3 * rng.normal(size=200)
    assert abs(np.corrcoef(a, y)[0, 1]) < 0.2
    assert hsic_test(a, y, n_permutations=199, random_state=0)[1] == 1 / 200
    assert hsic_test(a, rng.normal(size=200), n_permutations=199, random_state=0)[1] > 0.05


def test_hsic_rejects_bad_input():
    with pytest.raises(ValueError, match="same length"):
        hsic(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="n_permutations"):
        hsic_test(np.arange(5.0), np.arange(5.0), n_permutations=0)


@pytest.mark.parametrize("scale", [1e-300, 1e-160, 1e160, 1e300])
def test_hsic_and_distance_correlation_do_not_depend_on_the_scale(scale):
    # Both are invariant to scaling an input; before, squared distances overflowed (NaN from
    # inf / inf) or underflowed (a zero median: HSIC and dCor of 0) at extreme scales.
    rng = np.random.default_rng(0)
    a = rng.normal(size=50)
    b = a + rng.normal(size=50)
    for statistic in (hsic, distance_correlation):
        reference = statistic(a, b)
        assert statistic(a * scale, b) == pytest.approx(reference, rel=1e-12)
        assert statistic(a, b * scale) == pytest.approx(reference, rel=1e-12)


def test_distance_correlation_against_a_loop_oracle():
    from krepro.metrics import distance_correlation, distance_correlation_test

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=30), rng.normal(size=30)

    def centred(x):
        d = np.array([[abs(xi - xj) for xj in x] for xi in x])
        return d - d.mean(0)[None, :] - d.mean(1)[:, None] + d.mean()

    A, B = centred(a), centred(b)
    expected = np.sqrt((A * B).mean() / np.sqrt((A * A).mean() * (B * B).mean()))
    assert distance_correlation(a, b) == pytest.approx(expected, rel=1e-12)
    assert distance_correlation(a, 2 * a + 3) == pytest.approx(1.0)
    # Uncorrelated but dependent: b = a² on a symmetric a.
    s = rng.uniform(-1, 1, 300)
    assert abs(np.corrcoef(s, s**2)[0, 1]) < 0.15
    assert distance_correlation_test(s, s**2, n_permutations=50, random_state=1)[1] == 1 / 51


def test_hsic_separates_dependence_from_independence():
    rng = np.random.default_rng(2)
    a = rng.normal(size=300)
    # A noiseless nonlinear function of a is strongly dependent; fresh noise is not. The
    # biased estimator of an independent pair is O(1/n) ≈ 0.003 here.
    assert hsic(a, a**2) > 10 * hsic(a, rng.normal(size=300))
