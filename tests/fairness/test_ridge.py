"""ORR / M-ORR (:mod:`krepro.fairness.ridge`) against direct linear solves and scikit-learn."""

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge

from krepro.fairness.oblivious import ObliviousKernel
from krepro.fairness.ridge import MODES, ObliviousRidge, ridge_path, select_by_validation
from krepro.kernels import gram

ALPHAS = [1e-3, 1e-2, 0.1, 1.0, 10.0]


def _data(seed=0, n=40, d=2, n_groups=2):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, n_groups, size=n)
    X = rng.normal(size=(n, d)) + S[:, None]
    y = np.sin(X[:, 0]) + 0.5 * S + 0.1 * rng.normal(size=n)
    return X, y, S


def _rbf_gram(seed=1, n=30):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return gram(X, kernel="rbf", gamma=0.5), rng.normal(size=n)


# ---------------------------------------------------------------------------------------------
# ridge_path and select_by_validation


def test_ridge_path_equals_solve_and_sklearn():
    K, y = _rbf_gram()
    coefs = ridge_path(K, y, ALPHAS)
    assert coefs.shape == (30, len(ALPHAS))
    for column, alpha in enumerate(ALPHAS):
        direct = np.linalg.solve(K + alpha * np.eye(len(y)), y)
        sk = KernelRidge(kernel="precomputed", alpha=alpha).fit(K, y).dual_coef_
        # eigen-decomposition vs LU/Cholesky: error ~ cond(K + αI) * eps <= 3e4 * 2e-16 * |α|.
        scale = np.abs(direct).max()
        np.testing.assert_allclose(coefs[:, column], direct, rtol=0, atol=1e-9 * scale)
        np.testing.assert_allclose(coefs[:, column], sk, rtol=0, atol=1e-9 * scale)
    # different λ give different coefficients, so the comparison per column is informative
    assert np.abs(coefs[:, 0] - coefs[:, -1]).max() > 0.1


def test_ridge_path_on_oblivious_gram():
    X, y, S = _data(2)
    ok = ObliviousKernel(gamma=0.5).fit(X[20:], sensitive_features=S[20:])
    O = ok.gram(X[:20], S[:20])
    coefs = ridge_path(O, y[:20], ALPHAS)
    for column, alpha in enumerate(ALPHAS):
        direct = np.linalg.solve(O + alpha * np.eye(20), y[:20])
        # as above, cond(O + αI) <= 2e4 here
        np.testing.assert_allclose(
            coefs[:, column], direct, rtol=0, atol=1e-9 * np.abs(direct).max()
        )


@pytest.mark.parametrize("alphas", [[0.0, 1.0], [-1.0], [1.0, -0.5]])
def test_ridge_path_rejects_nonpositive_alphas(alphas):
    K, y = _rbf_gram()
    with pytest.raises(ValueError, match="positive"):
        ridge_path(K, y, alphas)


def test_select_by_validation_picks_argmin_of_loop_mse():
    rng = np.random.default_rng(3)
    coefs = rng.normal(size=(8, 6))
    V = rng.normal(size=(5, 8))
    y_val = V @ coefs[:, 4] + 0.01 * rng.normal(size=5)  # column 4 fits best
    best, mse = select_by_validation(coefs, V, y_val)
    expected = []
    for column in range(6):
        residual = [sum(V[i, k] * coefs[k, column] for k in range(8)) - y_val[i] for i in range(5)]
        expected.append(sum(r**2 for r in residual) / 5)
    np.testing.assert_allclose(mse, expected, rtol=1e-12)  # same sums, different order
    assert best == int(np.argmin(expected)) == 4


def test_select_by_validation_ties_go_to_first():
    coefs = np.array([[1.0, 2.0, 1.0, 2.0]])
    V = np.array([[1.0], [1.0]])
    best, mse = select_by_validation(coefs, V, [2.0, 2.0])
    assert best == 1
    assert mse[1] == mse[3] == 0.0


def test_ridge_path_with_validation_selects_reasonable_alpha():
    X, y, _ = _data(4, n=60)
    K = gram(X[:40], kernel="rbf", gamma=0.5)
    K_val = gram(X[40:], X[:40], kernel="rbf", gamma=0.5)
    coefs = ridge_path(K, y[:40], ALPHAS)
    best, mse = select_by_validation(coefs, K_val, y[40:])
    assert mse[best] == mse.min()
    direct = KernelRidge(kernel="rbf", gamma=0.5, alpha=ALPHAS[best]).fit(X[:40], y[:40])
    # prediction through the path equals sklearn's for the selected λ (eigh vs Cholesky)
    np.testing.assert_allclose(K_val @ coefs[:, best], direct.predict(X[40:]), atol=1e-8)


# ---------------------------------------------------------------------------------------------
# ObliviousRidge


@pytest.mark.parametrize("mode", MODES)
def test_no_sensitive_features_equals_sklearn_kernel_ridge(mode):
    X, y, _ = _data(5)
    X_test = np.random.default_rng(6).normal(size=(10, 2))
    model = ObliviousRidge(alpha=0.3, gamma=0.8, mode=mode).fit(X, y)
    reference = KernelRidge(kernel="rbf", gamma=0.8, alpha=0.3).fit(X[:20], y[:20])
    np.testing.assert_array_equal(model.X_fit_, X[:20])
    # Z = φ(x) exactly in exact arithmetic; round-off of the (cancelling) correction only.
    np.testing.assert_allclose(model.dual_coef_, reference.dual_coef_, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(model.predict(X_test), reference.predict(X_test), atol=1e-10)


def test_estimation_fraction_controls_the_split():
    X, y, _ = _data(7)
    model = ObliviousRidge(alpha=0.3, gamma=0.8, estimation_fraction=0.25).fit(X, y)
    np.testing.assert_array_equal(model.X_fit_, X[:30])
    np.testing.assert_array_equal(model.oblivious_kernel_.X_estimation_, X[30:])
    reference = KernelRidge(kernel="rbf", gamma=0.8, alpha=0.3).fit(X[:30], y[:30])
    np.testing.assert_allclose(model.predict(X[:5]), reference.predict(X[:5]), atol=1e-10)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("partition", ["values", "dyadic"])
def test_explicit_estimation_sample_equals_automatic_split(mode, partition):
    X, y, S = _data(8)
    options = {"partition": partition}
    if partition == "dyadic":
        S = np.random.default_rng(9).uniform(0.0, 1.0, size=40)
        options.update(partition_bounds=(0.0, 1.0), cells_per_axis=4)
    auto = ObliviousRidge(alpha=0.2, gamma=0.5, mode=mode, **options)
    auto.fit(X, y, sensitive_features=S)
    explicit = ObliviousRidge(alpha=0.2, gamma=0.5, mode=mode, **options).fit(
        X[:20],
        y[:20],
        sensitive_features=S[:20],
        X_estimation=X[20:],
        sensitive_features_estimation=S[20:],
    )
    # identical inputs to identical computations
    np.testing.assert_array_equal(explicit.dual_coef_, auto.dual_coef_)
    np.testing.assert_array_equal(
        explicit.predict(X[:7], sensitive_features=S[:7]),
        auto.predict(X[:7], sensitive_features=S[:7]),
    )


def _fitted_pair(seed, mode, alpha=0.1):
    X, y, S = _data(seed)
    rng = np.random.default_rng(seed + 100)
    S_test = rng.integers(0, 2, size=9)
    X_test = rng.normal(size=(9, 2)) + S_test[:, None]
    model = ObliviousRidge(alpha=alpha, gamma=0.6, mode=mode).fit(X, y, sensitive_features=S)
    ok = ObliviousKernel(gamma=0.6).fit(X[20:], sensitive_features=S[20:])
    return model, ok, X[:20], y[:20], S[:20], X_test, S_test


def test_orr_predictions_equal_oblivious_solve():
    model, ok, X, y, S, X_test, S_test = _fitted_pair(10, "oblivious")
    alpha = np.linalg.solve(ok.gram(X, S) + 0.1 * np.eye(20), y)
    expected = ok.gram(X_test, S_test, X, S) @ alpha
    # Cholesky vs LU on a system with cond <= 1e3: agreement to ~1e-12 relative
    np.testing.assert_allclose(model.dual_coef_, alpha, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(
        model.predict(X_test, sensitive_features=S_test), expected, atol=1e-9
    )
    # ORR is not KRR: the oblivious Gram changes the solution
    plain = np.linalg.solve(gram(X, kernel="rbf", gamma=0.6) + 0.1 * np.eye(20), y)
    assert np.abs(alpha - plain).max() > 1e-2


def test_m_orr_predictions_equal_mixed_gram_times_krr_coefficients():
    model, ok, X, y, _, X_test, S_test = _fitted_pair(11, "m-oblivious")
    alpha = np.linalg.solve(gram(X, kernel="rbf", gamma=0.6) + 0.1 * np.eye(20), y)
    expected = ok.mixed_gram(X_test, S_test, X) @ alpha
    # as above
    np.testing.assert_allclose(model.dual_coef_, alpha, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(
        model.predict(X_test, sensitive_features=S_test), expected, atol=1e-9
    )
    # M-ORR differs from plain KRR prediction at the same points
    plain = gram(X_test, X, kernel="rbf", gamma=0.6) @ alpha
    assert np.abs(expected - plain).max() > 1e-2


def _explicit_Z(X, S, X_est, S_est):
    """Linear kernel, finite S: Z = x − mean_est(x | s) (0 if s unseen) + mean_est(x)."""
    Z = []
    for x, s in zip(X, S, strict=True):
        members = [v for v in range(len(X_est)) if S_est[v] == s]
        cell_mean = X_est[members].mean(axis=0) if members else np.zeros(X.shape[1])
        Z.append(x - cell_mean + X_est.mean(axis=0))
    return np.array(Z)


@pytest.mark.parametrize("mode", MODES)
def test_linear_kernel_equals_primal_ridge_on_explicit_features(mode):
    X, y, S = _data(12, d=3, n_groups=3)
    X_test, S_test = X[:6] + 0.3, np.array([0, 1, 2, 0, 2, 1])
    model = ObliviousRidge(alpha=0.5, kernel="linear", mode=mode).fit(X, y, sensitive_features=S)
    Z_train = _explicit_Z(X[:20], S[:20], X[20:], S[20:])
    Z_test = _explicit_Z(X_test, S_test, X[20:], S[20:])
    # ORR: ridge regression of y on Z; M-ORR: ridge regression of y on x, applied to Z.
    features = Z_train if mode == "oblivious" else X[:20]
    w = np.linalg.solve(features.T @ features + 0.5 * np.eye(3), features.T @ y[:20])
    # primal vs dual solve of a well-conditioned 3-dimensional problem
    np.testing.assert_allclose(
        model.predict(X_test, sensitive_features=S_test), Z_test @ w, rtol=0, atol=1e-9
    )
    with pytest.raises(ValueError, match=r"never seen in fit: \[3\]"):
        model.predict(X_test, sensitive_features=[0, 1, 2, 0, 3, 1])


def test_multi_output_targets_are_fitted_column_wise():
    X, y, S = _data(13)
    Y = np.column_stack([y, -2.0 * y + 1.0])
    both = ObliviousRidge(alpha=0.2, gamma=0.5).fit(X, Y, sensitive_features=S)
    assert both.dual_coef_.shape == (20, 2)
    pred = both.predict(X[:4], sensitive_features=S[:4])
    assert pred.shape == (4, 2)
    for column in range(2):
        single = ObliviousRidge(alpha=0.2, gamma=0.5).fit(X, Y[:, column], sensitive_features=S)
        # same linear system, one right-hand side at a time
        np.testing.assert_allclose(
            pred[:, column], single.predict(X[:4], sensitive_features=S[:4]), atol=1e-10
        )


def test_invalid_mode_raises():
    X, y, _ = _data(14)
    with pytest.raises(ValueError, match="'orr'"):
        ObliviousRidge(mode="orr").fit(X, y)


@pytest.mark.parametrize("fraction", [0.0, 1.0, 1.5, -0.2])
def test_invalid_estimation_fraction_raises(fraction):
    X, y, _ = _data(15)
    with pytest.raises(ValueError, match=f"'estimation_fraction' .* Got {fraction!r}"):
        ObliviousRidge(estimation_fraction=fraction).fit(X, y)


def test_too_few_samples_raises():
    with pytest.raises(ValueError, match="n_samples = 1"):
        ObliviousRidge().fit(np.ones((1, 2)), [1.0])


def test_predict_with_wrong_number_of_sensitive_values_raises():
    X, y, S = _data(16)
    model = ObliviousRidge(gamma=0.5).fit(X, y, sensitive_features=S)
    with pytest.raises(ValueError, match="expected 3 rows"):
        model.predict(X[:3], sensitive_features=S[:2])


def test_predict_needs_sensitive_features_when_fitted_with_them():
    rng = np.random.default_rng(3)
    S = rng.integers(0, 2, 40)
    X = S[:, None] + rng.normal(size=(40, 1))
    y = X[:, 0] ** 2
    for mode in ("oblivious", "m-oblivious"):
        model = ObliviousRidge(gamma=1.0, mode=mode).fit(X, y, sensitive_features=S)
        with pytest.raises(ValueError, match="sensitive_features are required"):
            model.predict(X)
