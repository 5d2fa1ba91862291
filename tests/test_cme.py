r"""Tests of :mod:`krepro.cme` (conditional mean embeddings) and of the ``cme`` experiment.

The oracles work in explicit finite-dimensional feature spaces: the degree-2 polynomial
kernel :math:`(g\langle x, y\rangle + c)^2` has the feature map
:math:`\varphi(x) = (c, \sqrt{2cg}\,x_k, g\,x_k x_l)`, so the covariance operators of the note
are plain matrices and :math:`\hat C_{YX}(\hat C_{XX} + \lambda I)^{-1}\varphi(x)` can be
computed without the kernel trick.
"""

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.kernel_ridge import KernelRidge
from sklearn.utils.estimator_checks import parametrize_with_checks

from krepro.cme import CMEConditionalMean, ConditionalMeanEmbedding
from krepro.data import cme_law as law
from krepro.fairness.oblivious import ObliviousKernel
from krepro.fairness.ridge import ObliviousRidge
from krepro.studies.cme import figures, report
from krepro.studies.cme import run as experiment
from krepro.studies.cme.tables import CLAIM_QUANTITIES

GAMMA, COEF0 = 0.7, 1.3
OUT_GAMMA, OUT_COEF0 = 0.4, 0.8


def phi_poly2(x, g=GAMMA, c=COEF0):
    """Feature map of (g <x, y> + c)^2: [c, sqrt(2 c g) x_k, g x_k x_l for all (k, l)]."""
    x = np.atleast_1d(np.asarray(x, dtype=float))
    quadratic = [g * x[k] * x[l] for k in range(len(x)) for l in range(len(x))]
    return np.array([c, *(np.sqrt(2.0 * c * g) * x), *quadratic])


def features(phi, X):
    return np.array([phi(x) for x in X])


def rbf_gram(A, B, gamma):
    """exp(−γ‖a − b‖²) by explicit differences (independent of krepro.kernels.gram)."""
    A = np.asarray(A, dtype=float).reshape(len(A), -1)
    B = np.asarray(B, dtype=float).reshape(len(B), -1)
    return np.exp(-gamma * ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2))


def _regression_data(seed=0, n=30, d=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = np.column_stack([np.sin(X[:, 0]) + 0.1 * rng.normal(size=n), X[:, 1] ** 2])
    return X, Y, rng.normal(size=(9, d))


# ---------------------------------------------------------------------------------------------
# the estimator: covariance-operator form, weights, KernelRidge, category weights


@pytest.mark.parametrize("lam", [1e-3, 0.1, 2.0])
@pytest.mark.parametrize("output", ["linear", "poly2"])
def test_operator_form_equals_weighted_sum_of_output_features(lam, output):
    X, Y, X_query = _regression_data()
    n = len(X)
    if output == "linear":
        psi = lambda y: np.asarray(y, dtype=float)  # noqa: E731
        options = {"output_kernel": "linear"}
    else:  # ψ of (g' <y, y'> + c')^2 on the 2-d responses
        psi = lambda y: phi_poly2(y, OUT_GAMMA, OUT_COEF0)  # noqa: E731
        options = {
            "output_kernel": "poly",
            "output_gamma": OUT_GAMMA,
            "output_kernel_params": {"degree": 2, "coef0": OUT_COEF0},
        }
    cme = ConditionalMeanEmbedding(
        kernel="poly", degree=2, gamma=GAMMA, coef0=COEF0, alpha=lam, **options
    ).fit(X, Y)

    Phi, Psi = features(phi_poly2, X), features(psi, Y)
    C_xx = Phi.T @ Phi / n  # (1/n) Σ φ(x_i) ⊗ φ(x_i)
    C_yx = Psi.T @ Phi / n  # (1/n) Σ ψ(y_i) ⊗ φ(x_i)
    Phi_q = features(phi_poly2, X_query)
    operator = np.linalg.solve(C_xx + lam * np.eye(len(C_xx)), Phi_q.T).T @ C_yx.T  # rows: μ̂_x
    weighted = cme.weights(X_query) @ Psi  # Σ_i α_i(x) ψ(y_i)
    # Entries O(1-10); cond(C_xx + λI) ≤ ~1e4 for λ = 1e-3, so round-off stays ≲ 1e-11.
    np.testing.assert_allclose(weighted, operator, rtol=0, atol=1e-8)

    # embedding(x, y') = <μ̂_x, ψ(y')> and embedding_inner = <μ̂_a, μ̂_b>, in feature space.
    Y_eval = np.random.default_rng(1).normal(size=(5, 2))
    np.testing.assert_allclose(
        cme.embedding(X_query, Y_eval), operator @ features(psi, Y_eval).T, rtol=0, atol=1e-8
    )
    np.testing.assert_allclose(
        cme.embedding_inner(X_query, X[:4]),
        operator @ (np.linalg.solve(C_xx + lam * np.eye(len(C_xx)), Phi[:4].T).T @ C_yx.T).T,
        rtol=0,
        atol=1e-8,
    )


@pytest.mark.parametrize("lam", [1e-6, 1e-2, 1.0])
def test_weights_equal_direct_solve_with_n_lambda(lam):
    rng = np.random.default_rng(2)
    X, X_query = rng.uniform(size=(40, 2)), rng.uniform(size=(7, 2))
    W = ConditionalMeanEmbedding(kernel="rbf", gamma=3.0, alpha=lam).fit(X, rng.normal(size=40))
    K, k_x = rbf_gram(X, X, 3.0), rbf_gram(X, X_query, 3.0)
    direct = np.linalg.solve(K + 40 * lam * np.eye(40), k_x).T  # (K + nλI)^{-1} k_x, per row
    # Cholesky vs LU; cond(K + nλI) ≤ 40 / (40 λ) = 1e6 at λ = 1e-6: error ≲ 1e-10 · |α|.
    scale = max(1.0, np.abs(direct).max())
    np.testing.assert_allclose(W.weights(X_query), direct, rtol=0, atol=1e-9 * scale)


@pytest.mark.parametrize(
    "kernel",
    [
        {"kernel": "rbf", "gamma": 2.0},
        {"kernel": "linear"},
        {"kernel": "poly", "degree": 3, "gamma": 0.5, "coef0": 1.0},
    ],
    ids=["rbf", "linear", "poly"],
)
@pytest.mark.parametrize("lam", [1e-4, 0.05])
def test_linear_output_kernel_mean_equals_kernel_ridge(kernel, lam):
    X, Y, X_query = _regression_data(3, n=50)
    y = Y[:, 0]
    cme = ConditionalMeanEmbedding(**kernel, output_kernel="linear", alpha=lam).fit(X, y)
    # Scaling: the CME solves (K + nλI)α = k_x (empirical covariances carry 1/n), KernelRidge
    # solves (K + α' I) c = y; the two predictions agree for α' = n·λ.
    ridge = KernelRidge(**kernel, alpha=len(y) * lam).fit(X, y)
    np.testing.assert_allclose(cme.predict_mean(X_query), ridge.predict(X_query), rtol=0, atol=1e-8)
    # multi-output responses: one KernelRidge per column, same system
    np.testing.assert_allclose(
        ConditionalMeanEmbedding(**kernel, output_kernel="linear", alpha=lam)
        .fit(X, Y)
        .predict_mean(X_query),
        KernelRidge(**kernel, alpha=len(y) * lam).fit(X, Y).predict(X_query),
        rtol=0,
        atol=1e-8,
    )
    if lam >= 0.01:  # ... and the λ of the note used unscaled is a different (less
        # regularised) fit: the factor n matters. (For tiny λ both are near-interpolants.)
        unscaled = KernelRidge(**kernel, alpha=lam).fit(X, y).predict(X_query)
        assert np.abs(cme.predict_mean(X_query) - unscaled).max() > 1e-3


def _categorical(seed=4, n=60):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 1))
    labels = np.array(["a", "b", "c"])
    C = labels[(X[:, 0] * 3 + 0.5 * rng.normal(size=n)).clip(0, 2.99).astype(int)]
    return X, C


@pytest.mark.parametrize("lam", [1e-4, 1e-2, 1.0])
def test_delta_output_kernel_gives_regularised_category_weights(lam):
    X, C = _categorical()
    X_query = np.linspace(-0.2, 1.2, 15)[:, None]
    cme = ConditionalMeanEmbedding(gamma=5.0, output_kernel="delta", alpha=lam).fit(X, C)
    np.testing.assert_array_equal(cme.classes_, ["a", "b", "c"])
    W = cme.weights(X_query)
    scores = cme.category_scores(X_query)
    explicit = np.column_stack([W[:, C == c].sum(axis=1) for c in cme.classes_])  # Σ α_i 1{y_i=c}
    np.testing.assert_allclose(scores, explicit, rtol=0, atol=1e-12)
    # The embedding under the delta kernel, evaluated at each class, is the same vector.
    np.testing.assert_allclose(cme.embedding(X_query, cme.classes_), scores, rtol=0, atol=1e-12)
    # Row sums are the weight sums (every training point is in exactly one class).
    np.testing.assert_allclose(scores.sum(axis=1), W.sum(axis=1), rtol=0, atol=1e-12)


def test_weight_sum_tends_to_one_only_as_lambda_tends_to_zero():
    # Eleven evenly spaced points, RBF with γ = 20: cond(K) ≈ 1.2e4, ‖K^{-1}‖ ≈ 3.2e3.
    n = 11
    X = np.linspace(0.0, 1.0, n)[:, None]
    C = np.arange(n) % 3
    inverse_norm = 1.0 / np.linalg.eigvalsh(rbf_gram(X, X, 20.0)).min()
    between = np.array([[0.05], [0.45], [0.95]])  # dense query points between the data
    sums, sums_between = {}, {}
    for lam in [1e-12, 1e-9, 1e-6, 1e-3, 1.0, 1e4, 1e8]:
        cme = ConditionalMeanEmbedding(gamma=20.0, output_kernel="delta", alpha=lam).fit(X, C)
        sums[lam] = cme.category_scores(X).sum(axis=1)
        sums_between[lam] = cme.weights(between).sum(axis=1)
        # In-sample, α(x_j) = (K + nλI)^{-1} K e_j = e_j − nλ (K + nλI)^{-1} e_j, so
        # |Σα(x_j) − 1| ≤ nλ ‖1‖ ‖K^{-1}‖ = n^{3/2} λ ‖K^{-1}‖ (plus round-off ~1e-12·cond K).
        bound = n**1.5 * lam * inverse_norm + 1e-10
        assert np.abs(sums[lam] - 1.0).max() <= bound
    # λ → 0: the sum → 1 at training points: |Σα − 1| < 1e-6 at λ = 1e-9 (bound 1.2e-4) ...
    assert np.abs(sums[1e-9] - 1.0).max() < 1e-6
    # ... and at dense query points between them it → 1ᵀK^{-1}k_x, the kernel interpolant of
    # the constant 1, which is within 0.01 of one for a grid spacing of 0.1 ≈ 0.45 length scales.
    assert np.abs(sums_between[1e-9] - 1.0).max() < 0.01
    assert np.abs(sums_between[1e-9] - 1.0).max() > 1e-5  # ... but not exactly one
    # Intermediate λ: ridge shrinkage, the sum is visibly below one.
    assert np.all(sums[1.0] < 0.5)
    # λ → ∞: α ≈ k_x / (nλ) → 0, so |Σα| ≤ Σ_i k(x_i, x) / (nλ) ≤ 1/λ.
    for lam in [1e4, 1e8]:
        assert np.all(np.abs(sums[lam]) <= 1.0 / lam)
        assert np.all(np.abs(sums_between[lam]) <= 1.0 / lam)


def test_negative_weight_and_negative_category_score_exist():
    # Six points on a line, a narrow RBF and a small λ: α(x) ≈ K^{-1} k_x are the cardinal
    # functions of kernel interpolation, which undershoot zero between and beyond the data.
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    C = np.array([0, 1, 0, 1, 1, 1])
    cme = ConditionalMeanEmbedding(gamma=1.0, output_kernel="delta", alpha=1e-4).fit(X, C)
    grid = np.linspace(-1.0, 6.0, 701)[:, None]
    W = cme.weights(grid)
    row, column = np.unravel_index(np.argmin(W), W.shape)
    # A weight of −0.05 or less is far from round-off (cond(K + nλI) ≲ 1e3).
    assert W[row, column] < -0.05, W[row, column]
    direct = np.linalg.solve(rbf_gram(X, X, 1.0) + 6e-4 * np.eye(6), rbf_gram(X, grid[[row]], 1.0))
    assert direct[column, 0] < -0.05  # the same weight, without krepro
    scores = cme.category_scores(grid)
    assert scores.min() < -0.05  # a negative "probability" of a category
    assert np.any(scores.sum(axis=1) > 1.0 + 1e-3) or np.any(scores.sum(axis=1) < 1.0 - 1e-3)


def test_string_and_multi_column_responses():
    X, C = _categorical(6, n=30)
    cme = ConditionalMeanEmbedding(gamma=2.0, output_kernel="delta", alpha=1e-3).fit(X, C)
    assert cme.category_scores(X[:4]).shape == (4, 3)
    pairs = np.column_stack([C == "a", C == "b"]).astype(int)
    cme2 = ConditionalMeanEmbedding(gamma=2.0, output_kernel="delta", alpha=1e-3).fit(X, pairs)
    # rows (1,0), (0,1), (0,0) are the classes a, b, c in lexicographic row order
    np.testing.assert_array_equal(cme2.classes_, [[0, 0], [0, 1], [1, 0]])
    np.testing.assert_allclose(
        cme2.category_scores(X[:4]), cme.category_scores(X[:4])[:, [2, 1, 0]], atol=1e-12
    )


def test_invalid_alpha_and_predict_mean_without_linear_kernel_raise():
    X, Y, _ = _regression_data()
    for bad in [0.0, -1.0]:
        with pytest.raises(ValueError, match=r"'alpha' parameter .* range \(0.0, inf\)"):
            ConditionalMeanEmbedding(alpha=bad).fit(X, Y[:, 0])
        with pytest.raises(ValueError, match=r"'alpha' parameter .* range \(0.0, inf\)"):
            CMEConditionalMean(alpha=bad).fit(X[:, :1])
    with pytest.raises(ValueError, match='predict_mean needs output_kernel="linear"'):
        ConditionalMeanEmbedding(output_kernel="rbf").fit(X, Y[:, 0]).predict_mean(X)


@parametrize_with_checks([ConditionalMeanEmbedding()])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


# ---------------------------------------------------------------------------------------------
# CME estimator of E[φ(X) | S] inside the oblivious kernel

S_GAMMA, S_LAMBDA = 4.0, 1e-2


def phi_linear(x):
    return np.asarray(x, dtype=float).copy()


FEATURE_MAPS = {
    "linear": (phi_linear, {"kernel": "linear"}),
    "poly2": (phi_poly2, {"kernel": "poly", "degree": 2, "gamma": GAMMA, "coef0": COEF0}),
}


def cme_weights(S_est, S, gamma=S_GAMMA, lam=S_LAMBDA):
    """α(s) = (K_S + mλI)^{-1} k_S(s) by a direct solve, one row per query."""
    m = len(S_est)
    return np.linalg.solve(
        rbf_gram(S_est, S_est, gamma) + m * lam * np.eye(m), rbf_gram(S_est, S, gamma)
    ).T


def explicit_Z(phi, X, S, X_est, S_est):
    """Z = φ(x) − Σ_v α_v(s) φ(x_v) + mean_v φ(x_v)."""
    Phi_est = features(phi, X_est)
    return features(phi, X) - cme_weights(S_est, S) @ Phi_est + Phi_est.mean(axis=0)


def _continuous_scenario(d_s, seed=7, m=25, n_a=11, n_b=6, d=2):
    rng = np.random.default_rng(seed)
    S_est, S_a, S_b = (rng.uniform(size=(k, d_s)) for k in (m, n_a, n_b))
    # X depends on S, so that the correction is far from negligible.
    X_est, X_a, X_b = (rng.normal(size=(len(S), d)) + 2.0 * S[:, :1] for S in (S_est, S_a, S_b))
    if d_s == 1:
        S_est, S_a, S_b = S_est[:, 0], S_a[:, 0], S_b[:, 0]
    return X_est, S_est, X_a, S_a, X_b, S_b


@pytest.mark.parametrize("d_s", [1, 2])
@pytest.mark.parametrize("feature_map", sorted(FEATURE_MAPS))
def test_oblivious_gram_with_cme_equals_explicit_feature_space(feature_map, d_s):
    phi, kernel_options = FEATURE_MAPS[feature_map]
    X_est, S_est, X_a, S_a, X_b, S_b = _continuous_scenario(d_s)
    estimator = CMEConditionalMean(kernel="rbf", gamma=S_GAMMA, alpha=S_LAMBDA)
    ok = ObliviousKernel(**kernel_options, conditional_mean=estimator)
    ok.fit(X_est, sensitive_features=S_est)
    Z_a = explicit_Z(phi, X_a, S_a, X_est, S_est)
    Z_b = explicit_Z(phi, X_b, S_b, X_est, S_est)
    correction = Z_a - features(phi, X_a)
    assert np.abs(correction - correction.mean(axis=0)).max() > 0.5  # S-dependent, not trivial
    # Entries O(1-100), weights |α| ≲ 10: 1e-10 leaves only round-off.
    np.testing.assert_allclose(ok.gram(X_a, S_a), Z_a @ Z_a.T, rtol=0, atol=1e-10)
    np.testing.assert_allclose(ok.gram(X_a, S_a, X_b, S_b), Z_a @ Z_b.T, rtol=0, atol=1e-10)
    np.testing.assert_allclose(
        ok.mixed_gram(X_a, S_a, X_b), Z_a @ features(phi, X_b).T, rtol=0, atol=1e-10
    )


@pytest.mark.parametrize("mode", ["oblivious", "m-oblivious"])
def test_oblivious_ridge_with_cme_equals_gram_based_solve(mode):
    X_est, S_est, X, S, X_test, S_test = _continuous_scenario(2, seed=8, n_a=20)
    y = np.sin(X[:, 0]) + S[:, 1]
    model = ObliviousRidge(
        alpha=0.3,
        mode=mode,
        kernel="poly",
        degree=2,
        gamma=GAMMA,
        coef0=COEF0,
        conditional_mean=CMEConditionalMean(gamma=S_GAMMA, alpha=S_LAMBDA),
    ).fit(X, y, sensitive_features=S, X_estimation=X_est, sensitive_features_estimation=S_est)
    Z, Z_test = (
        explicit_Z(phi_poly2, X, S, X_est, S_est),
        explicit_Z(phi_poly2, X_test, S_test, X_est, S_est),
    )
    Phi = features(phi_poly2, X)
    train = Z if mode == "oblivious" else Phi  # ORR fits on Z, M-ORR on φ(X)
    dual = np.linalg.solve(train @ train.T + 0.3 * np.eye(len(y)), y)
    expected = Z_test @ train.T @ dual
    # Predictions O(1-10); cond(O + 0.3 I) ≲ 1e4.
    np.testing.assert_allclose(model.dual_coef_, dual, rtol=0, atol=1e-8)
    np.testing.assert_allclose(
        model.predict(X_test, sensitive_features=S_test), expected, rtol=0, atol=1e-8
    )


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


SMALL = {
    "n_train": 80,
    "n_heldout": 100,
    "n_query": 21,
    "n_repetitions": 2,
    "lambdas": [1e-2, 1e-4, 1.0],
    "n_eval": 31,
}


def test_run_structure_determinism_and_library_identities():
    results = experiment.run(seed=3, **SMALL)
    table, claims = results["table"], results["claims"]
    assert list(table.columns[:4]) == [
        "lambda",
        "mean_abs_weight_sum_minus_one",
        "share_negative_weights",
        "mmd_error",
    ]
    np.testing.assert_array_equal(table["lambda"], [1e-4, 1e-2, 1.0])  # sorted
    assert (table["n_reps"] == 2).all()
    for kernel in experiment.OUTPUT_KERNELS:
        assert table[f"selected_{kernel}"].sum() == 1
    assert set(claims["claim"]) == {"setup", *experiment.CLAIMS}
    assert len(results["query"]) == 3 * 21 and len(results["sample"]) == 80
    assert len(results["curves"]) == 3 * 3 * 31 and len(results["weights"]) == 3 * 2 * 80
    # same seed → same numbers; another seed → other numbers
    again = experiment.run(seed=3, **SMALL)
    pd.testing.assert_frame_equal(table, again["table"])
    assert not np.allclose(
        table["mmd_error"], experiment.run(seed=4, **SMALL)["table"]["mmd_error"]
    )

    # The experiment forms the linear and delta embeddings from shared weights: they equal
    # the library's predict_mean and category_scores fitted on the same sample.
    sample, query = results["sample"], results["query"]
    X = sample[["x"]].to_numpy()
    for lam in SMALL["lambdas"]:
        grid = query[np.isclose(query["lambda"], lam)]
        x = grid[["x"]].to_numpy()
        linear = ConditionalMeanEmbedding(gamma=20.0, output_kernel="linear", alpha=lam)
        np.testing.assert_allclose(
            grid["mean_linear"], linear.fit(X, sample["y"]).predict_mean(x), atol=1e-10
        )
        delta = ConditionalMeanEmbedding(gamma=20.0, output_kernel="delta", alpha=lam)
        scores = delta.fit(X, sample["c"]).category_scores(x)
        np.testing.assert_allclose(grid[["score_0", "score_1", "score_2"]], scores, atol=1e-10)
        np.testing.assert_allclose(grid["weight_sum"], scores.sum(axis=1), atol=1e-10)


def test_run_rejects_bad_parameters():
    with pytest.raises(ValueError, match="Unknown cme parameter"):
        experiment.run(seed=0, n_points=10)
    with pytest.raises(ValueError, match="lambdas"):
        experiment.run(seed=0, lambdas=[1e-3])
    with pytest.raises(ValueError, match="n_repetitions"):
        experiment.run(seed=0, n_repetitions=1)


REFERENCE = yaml.safe_load(open("config/paper_reference.yaml", encoding="utf-8"))["cme"]
IDENTITIES = {
    "operator_form",
    "squared_loss_target",
    "linear_mean_only",
    "weights_not_probabilities",
}
TESTED = {"gaussian_separates", "delta_frequencies"}


@pytest.fixture(scope="module")
def default_results():
    return experiment.run(seed=2021)  # the defaults: ~2 s


def _verdicts(claims, runs):
    records = report.cme_verdicts(claims, runs, REFERENCE, "test")
    assert [r.claim_id for r in records] == list(REFERENCE["claims"])
    return {r.claim_id: r for r in records}


def test_reference_labels_identities_and_tests():
    claims = REFERENCE["claims"]
    assert {k for k, c in claims.items() if c.get("kind") == "identity"} == IDENTITIES
    assert all("test" in claims[k] and "margin" in claims[k] for k in TESTED)
    assert "min_repetitions" not in REFERENCE


def test_defaults_reproduce_every_claim_and_section_renders(default_results):
    r = default_results
    section = report.cme_section(r["table"], r["claims"], r["runs"], REFERENCE, scale="test")
    assert {v.verdict for v in section.verdicts} == {"reproduced"}, section.verdicts
    assert all(v.primary and v.protocol == "primary" for v in section.verdicts)
    for record in section.verdicts:
        if record.claim_id in IDENTITIES:
            assert record.kind == "identity" and record.stability == 1.0
            assert record.n_repetitions is None and not record.test
            assert "Identity" in record.detail
        else:
            assert record.n_repetitions == 5 and record.test in ("equivalence", "non-inferiority")
            assert 0.0 <= record.stability <= 1.0 and record.ci_low <= record.ci_high
    assert "| λ |" in section.body and "selected for" in section.body
    # every table row has as many cells as the header (no stray '|' in a cell)
    rows = [line for line in section.body.splitlines() if line.startswith("|")]
    assert len({line.count("|") for line in rows}) == 1


def _modified(claims, claim, quantity, value):
    out = claims.copy()
    out.loc[(out["claim"] == claim) & (out["quantity"] == quantity), "value"] = value
    return out


def test_identities_react_to_their_exact_checks(default_results):
    claims, runs = default_results["claims"], default_results["runs"]

    def verdict(c):
        return {k: v.verdict for k, v in _verdicts(c, runs).items()}

    broken = _modified(claims, "operator_form", "operator_max_abs_difference", 1e-3)
    assert verdict(broken)["operator_form"] == "not reproduced"
    lost_factor = _modified(claims, "operator_form", "kernel_ridge_lambda_max_abs_difference", 0.0)
    assert verdict(lost_factor)["operator_form"] == "not reproduced"
    decomposition = _modified(claims, "squared_loss_target", "max_abs_decomposition_z_delta", 9.0)
    assert verdict(decomposition)["squared_loss_target"] == "not reproduced"
    same_law = _modified(claims, "linear_mean_only", "conditional_sd_high", 0.5)
    assert verdict(same_law)["linear_mean_only"] == "not reproduced"
    probabilities = _modified(claims, "weights_not_probabilities", "deviation_largest", 0.0)
    assert verdict(probabilities)["weights_not_probabilities"] == "not reproduced"


def _runs_at(runs, claims, claim, column, values):
    """``runs`` with ``column`` at the claim's selected λ replaced by ``values``."""
    lam = report._values(claims, claim)[0]["lambda"]
    out = runs.copy()
    rows = np.isclose(out["lambda"], lam)
    out.loc[rows, column] = np.resize(np.asarray(values, dtype=float), int(rows.sum()))
    return out


def test_gaussian_separates_is_an_equivalence_test(default_results):
    claims, runs = default_results["claims"], default_results["runs"]
    true = report._values(claims, "gaussian_separates")[0]["contrast_true"]
    column = "contrast_mmd_predicted"

    def record(values):
        modified = _runs_at(runs, claims, "gaussian_separates", column, values)
        return _verdicts(claims, modified)["gaussian_separates"]

    close = record(true * np.array([1.01, 0.99, 1.02, 0.98, 1.0]))
    assert close.verdict == "reproduced" and close.family_size == 1
    far = record(true * np.array([0.5, 0.52, 0.48, 0.51, 0.49]))  # half the true distance
    assert far.verdict == "not reproduced"
    noisy = record(true * np.array([1.3, 0.7, 1.25, 0.75, 1.0]))
    assert noisy.verdict == "inconclusive"
    assert "would need about" in noisy.detail


def test_delta_frequencies_is_a_non_inferiority_test(default_results):
    claims, runs = default_results["claims"], default_results["runs"]

    def record(values):
        modified = _runs_at(runs, claims, "delta_frequencies", "category_abs_error", values)
        return _verdicts(claims, modified)["delta_frequencies"]

    assert record([0.03, 0.031, 0.029, 0.032, 0.03]).verdict == "reproduced"
    assert record([0.2, 0.21, 0.19, 0.2, 0.2]).verdict == "not reproduced"
    noisy = record([0.0213, 0.0827, 0.0341, 0.0671, 0.0587])
    assert noisy.verdict == "inconclusive" and "would need about" in noisy.detail


def test_claims_table_lists_every_quantity_the_checks_read(default_results):
    claims = default_results["claims"]
    assert not claims.duplicated(["claim", "quantity"]).any()
    read = {(c, q) for c, q, _, _ in CLAIM_QUANTITIES}
    assert read <= set(zip(claims["claim"], claims["quantity"], strict=True))


def test_plot_cme_writes_png_atomically(default_results, tmp_path):
    path = tmp_path / "figures" / "cme.png"
    r = default_results
    figures.plot_cme(r["table"], r["sample"], r["query"], r["curves"], r["weights"], path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in path.parent.iterdir()] == ["cme.png"]  # no temporary left behind


@pytest.mark.filterwarnings("ignore::krepro.kernels.DegenerateKernelWarning")
@pytest.mark.parametrize(("scale", "gamma"), [(1e160, 1.0), (1e154, 1.7e308), (1e300, 1e-300)])
def test_embedding_is_finite_at_extreme_scales(scale, gamma):
    # Before: NaN in the input Gram matrix ("array must not contain infs or NaNs" from the
    # Cholesky factorisation) for inputs of magnitude 1e154 and beyond.
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 2)) * scale, rng.normal(size=30)
    model = ConditionalMeanEmbedding(gamma=gamma, output_kernel="linear").fit(X, y)
    assert np.isfinite(model.predict_mean(X)).all()
    assert np.isfinite(model.weights(X[:4])).all()
