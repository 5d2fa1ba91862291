"""The CME study's data law (krepro.data.cme_law): true embedding, MMD to the truth,
sampling."""

import numpy as np

from krepro.data import cme_law as law

# ---------------------------------------------------------------------------------------------
# the cme experiment: closed forms against Monte Carlo, run(), figure and verdicts

LAW = {"output_gamma": 1.3, "noise_sd": 0.4}


def _draw_at(rng, x, size, noise_sd=LAW["noise_sd"]):
    """Y | X = x by hand: ±2x with equal probability plus N(0, s²) noise."""
    return rng.choice([-2.0 * x, 2.0 * x], size=size) + noise_sd * rng.normal(size=size)


def test_true_embedding_and_inner_products_match_monte_carlo():
    rng = np.random.default_rng(11)
    N = 200_000
    l = lambda a, b: np.exp(-LAW["output_gamma"] * (a - b) ** 2)  # noqa: E731
    xs, ys = np.array([0.0, 0.3, 0.9]), np.array([-1.5, 0.0, 0.7])
    draws = {x: _draw_at(rng, x, N) for x in xs}
    fresh = {x: _draw_at(rng, x, N) for x in xs}
    mu = law.true_embedding(xs, ys, **LAW)
    inner = law.true_embedding_inner(xs, xs, **LAW)
    # l ∈ (0, 1]: the Monte Carlo standard error is at most 0.5 / sqrt(N) ≈ 1.1e-3; 5e-3 ≈ 4.5 se.
    for a, x in enumerate(xs):
        for b, y in enumerate(ys):
            assert abs(mu[a, b] - l(draws[x], y).mean()) < 5e-3
        for b, x2 in enumerate(xs):
            assert abs(inner[a, b] - l(draws[x], fresh[x2]).mean()) < 5e-3
    np.testing.assert_allclose(inner, inner.T, rtol=0, atol=1e-15)
    mmd = law.true_mmd(xs, xs, **LAW)
    np.testing.assert_allclose(np.diag(mmd), 0.0, atol=1e-7)
    assert mmd[0, 2] > 0.5  # same mean, different laws: far apart in MMD


def test_mmd_to_truth_of_an_empirical_measure():
    rng = np.random.default_rng(12)
    N = 2000
    Y = _draw_at(rng, 0.6, N)
    uniform = np.full((2, N), 1.0 / N)  # the empirical measure of a sample from P_{Y|x=0.6}
    mmd = law.mmd_to_truth(uniform, Y, np.array([0.6, 0.0]), **LAW)
    # E MMD² of an empirical measure = (1 − ‖μ‖²) / N ≤ 1/N, so MMD ≲ 0.022 (and ≥ 0 exactly).
    assert 0.0 <= mmd[0] < 0.05
    assert mmd[1] > 0.3  # against the law at x = 0 (unimodal, narrower)
    exact = law.true_mmd(np.array([0.6]), np.array([0.0]), **LAW)[0, 0]
    assert abs(mmd[1] - exact) < 0.05


def test_sample_follows_the_stated_law():
    rng = np.random.default_rng(13)
    X, Y, C = law.sample(rng, 200_000, noise_sd=0.3)
    assert X.min() >= 0.0 and X.max() <= 1.0
    # E[Y | x] = 0 and E[Y² | x] = 4x² + s²: residual means, standard errors ≲ 0.01.
    assert abs(Y.mean()) < 0.02
    assert abs(np.mean(Y**2 - law.conditional_sd(X, 0.3) ** 2)) < 0.02
    p = law.class_probabilities(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-15)
    assert np.all(p >= 0)
    for c in range(3):  # E[1{C = c} − p_c(X)] = 0; standard error ≤ 0.5 / sqrt(2e5) ≈ 1.1e-3
        assert abs(np.mean((C == c) - p[:, c])) < 6e-3
