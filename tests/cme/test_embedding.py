r"""Tests of :mod:`krepro.cme` (conditional mean embeddings): the estimator, its GCV selection,
and the embeddings inside the oblivious kernel and ridge.

The oracles work in explicit finite-dimensional feature spaces: the degree-2 polynomial
kernel :math:`(g\langle x, y\rangle + c)^2` has the feature map
:math:`\varphi(x) = (c, \sqrt{2cg}\,x_k, g\,x_k x_l)`, so the covariance operators of the note
are plain matrices and :math:`\hat C_{YX}(\hat C_{XX} + \lambda I)^{-1}\varphi(x)` can be
computed without the kernel trick.
"""

import numpy as np
import pytest
from scipy import linalg
from sklearn.kernel_ridge import KernelRidge
from sklearn.utils.estimator_checks import parametrize_with_checks

from krepro.cme import CMEConditionalMean, ConditionalMeanEmbedding
from krepro.cme.embedding import _range_eigenpairs
from krepro.fairness.oblivious import ObliviousKernel
from krepro.fairness.ridge import ObliviousRidge
from krepro.kernels import gram

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


def test_gcv_scores_match_the_explicit_hat_matrix_formula():
    rng = np.random.default_rng(0)
    m = 50
    S = rng.uniform(-1, 1, m)
    X = np.sin(3 * S)[:, None] + 0.3 * rng.normal(size=(m, 1))
    K_X = gram(X, kernel="rbf", gamma=1.0)
    grid = [1e-4, 1e-3, 1e-2, 1e-1]
    estimator = CMEConditionalMean(gamma=2.0, alphas=grid).fit(S, output_gram=K_X)
    K_S = gram(S, kernel="rbf", gamma=2.0)
    for lam, score in zip(grid, estimator.gcv_scores_, strict=True):
        residual = np.eye(m) - K_S @ np.linalg.inv(K_S + m * lam * np.eye(m))
        brute = m * np.trace(residual @ K_X @ residual.T) / np.trace(residual) ** 2
        assert score == pytest.approx(brute, rel=1e-8)
    assert estimator.alpha_ == grid[int(np.argmin(estimator.gcv_scores_))]
    with pytest.raises(ValueError, match="output_gram"):
        CMEConditionalMean(alphas=grid).fit(S)


def _eigh_gcv_scores(K_S, K_X, grid):
    """GCV from the full eigendecomposition (the selection before the low-rank range)."""
    m = len(K_S)
    w, V = linalg.eigh(K_S)
    w = np.clip(w, 0.0, None)
    rotated = np.einsum("ij,ij->j", V, K_X @ V)
    shrink = m * grid[:, None] / (w[None, :] + m * grid[:, None])
    return m * ((shrink**2) @ rotated) / shrink.sum(axis=1) ** 2


@pytest.mark.parametrize(("d", "gamma", "m"), [(1, 10.0, 400), (2, 10.0, 800), (1, 1e4, 300)])
def test_gcv_from_the_numerical_range_matches_the_full_eigendecomposition(d, gamma, m):
    # A smooth kernel on [0, 1]^d has a numerical rank far below m (the pivoted-Cholesky
    # path); a very narrow one is nearly the identity (full rank: the eigh path). Either way
    # the scores equal those of all m eigenpairs to well within the rounding of eigh's
    # smallest eigenvalues (~1e-13 absolute, relative to mλ ≥ 3e-4 here).
    rng = np.random.default_rng(d)
    S = rng.uniform(size=(m, d))
    X = S.mean(axis=1, keepdims=True) + 0.5 * rng.normal(size=(m, 1))
    K_S, K_X = gram(S, kernel="rbf", gamma=gamma), gram(X, kernel="rbf", gamma=1.0)
    w, V = _range_eigenpairs(K_S)
    assert (len(w) < m // 2) == (gamma == 10.0)
    np.testing.assert_allclose(V.T @ V, np.eye(len(w)), atol=1e-12)
    np.testing.assert_allclose((V * w) @ V.T, K_S, atol=1e-11)
    grid = 10.0 ** np.arange(-6.0, 0.0)
    estimator = CMEConditionalMean(gamma=gamma, alphas=grid).fit(S, output_gram=K_X)
    np.testing.assert_allclose(estimator.gcv_scores_, _eigh_gcv_scores(K_S, K_X, grid), rtol=1e-8)


def test_oblivious_kernel_passes_its_gram_to_the_cme_selection():
    rng = np.random.default_rng(1)
    S = rng.uniform(-5, 5, (80, 2))
    X = S.sum(axis=1, keepdims=True) / np.sqrt(2) + 0.1 * rng.normal(size=(80, 1))
    estimator = CMEConditionalMean(gamma=0.5, alphas=10.0 ** np.arange(-6, 0))
    ok = ObliviousKernel(gamma=1.0, conditional_mean=estimator).fit(X, sensitive_features=S)
    assert ok.conditional_mean_.alpha_ in estimator.alphas
    assert estimator.__dict__.get("alpha_") is None  # the given estimator is cloned
    O = ok.gram(X[:10], S[:10])
    assert np.array_equal(O, O.T) and np.linalg.eigvalsh(O).min() > -1e-10


def test_cme_coefficients_are_computed_once_per_distinct_s(monkeypatch):
    """gram/mixed_gram reuse the CME weights of an S seen before (content-keyed cache)."""
    rng = np.random.default_rng(4)
    X_est, S_est = rng.normal(size=(80, 1)), rng.normal(size=80)
    X, S = rng.normal(size=(30, 1)), rng.normal(size=30)
    X_test, S_test = rng.normal(size=(20, 1)), rng.normal(size=20)

    def kernel():
        cme = CMEConditionalMean(kernel="rbf", gamma=0.5, alpha=1e-2)
        return ObliviousKernel(kernel="rbf", gamma=1.0, conditional_mean=cme).fit(
            X_est, sensitive_features=S_est
        )

    fresh = [kernel() for _ in range(3)]
    expected = [
        fresh[0].gram(X, S),
        fresh[1].gram(X_test, S_test, X, S),
        fresh[2].mixed_gram(X_test, S_test, X),
    ]
    cached = kernel()
    calls = []
    membership = cached.conditional_mean_.membership
    monkeypatch.setattr(
        cached.conditional_mean_, "membership", lambda s: calls.append(len(s)) or membership(s)
    )
    got = [
        cached.gram(X, S),
        cached.gram(X_test, S_test, X, S),
        cached.mixed_gram(X_test, S_test, X),
        cached.gram(X, S + 0.0),  # an equal copy hits the cache too
    ]
    assert sorted(calls) == [20, 30]  # one CME solve per distinct S
    for a, b in zip(got, [*expected, expected[0]], strict=True):
        np.testing.assert_array_equal(a, b)
    cached.fit(X_est, sensitive_features=S_est)
    assert len(cached.coefficients_cache_) == 0  # emptied by fit
