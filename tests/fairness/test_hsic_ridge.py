"""HSIC-penalised kernel ridge regression (fair kernel learning): closed form vs a direct
minimisation, the μ = 0 case vs scikit-learn's KernelRidge, and the trade-off it controls."""

import itertools

import numpy as np
import pytest
from scipy import optimize
from sklearn.kernel_ridge import KernelRidge
from sklearn.utils._param_validation import InvalidParameterError

from krepro import HSICRidge
from krepro.fairness.hsic_ridge import median_heuristic_gamma
from krepro.metrics import hsic


def _data(n=20, seed=1):
    rng = np.random.default_rng(seed)
    S = rng.uniform(size=n)
    X = np.column_stack([S + 0.5 * rng.normal(size=n), rng.normal(size=n)])
    y = X[:, 0] + S + 0.1 * rng.normal(size=n)
    return X, y, S


@pytest.mark.parametrize("sensitive_kernel", ["rbf", "linear"])
@pytest.mark.parametrize(("alpha", "mu"), [(0.05, 20.0), (0.01, 0.5)])
def test_closed_form_equals_a_direct_minimisation_of_the_objective(sensitive_kernel, alpha, mu):
    X, y, S = _data()
    model = HSICRidge(alpha=alpha, mu=mu, gamma=2.0, sensitive_kernel=sensitive_kernel)
    model.fit(X, y, sensitive_features=S)
    K = model._kernel(X)
    n = len(y)
    H = np.eye(n) - 1.0 / n
    if sensitive_kernel == "rbf":
        gamma_s = median_heuristic_gamma(S[:, None])
        L = np.exp(-gamma_s * (S[:, None] - S[None, :]) ** 2)
    else:
        L = np.outer(S, S)

    def objective(a):  # the documented J(α), written out independently
        f = K @ a
        return (
            np.sum((y - f) ** 2) / n
            + alpha * a @ K @ a
            + mu / n**2 * np.trace(np.outer(f, f) @ H @ L @ H)
        )

    result = optimize.minimize(
        objective, np.zeros(n), method="BFGS", options={"gtol": 1e-10, "maxiter": 10_000}
    )
    closed = objective(model.dual_coef_)
    assert closed <= result.fun + 1e-12
    assert closed == pytest.approx(result.fun, rel=1e-10)
    assert model.objective(model.dual_coef_, X, y, S) == pytest.approx(closed, rel=1e-12)
    np.testing.assert_allclose(model.predict(X), K @ result.x, atol=1e-5)


def test_mu_zero_is_kernel_ridge_with_alpha_n_lambda():
    X, y, S = _data(n=40)
    ours = HSICRidge(alpha=0.01, mu=0.0, gamma=0.5).fit(X, y, sensitive_features=S)
    theirs = KernelRidge(alpha=0.01 * 40, kernel="rbf", gamma=0.5).fit(X, y)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, rtol=1e-10, atol=1e-12)
    X_new = np.random.default_rng(5).normal(size=(7, 2))
    np.testing.assert_allclose(ours.predict(X_new), theirs.predict(X_new), atol=1e-12)
    # without sensitive features L is constant, HLH = 0: the same fit whatever mu
    single = HSICRidge(alpha=0.01, mu=100.0, gamma=0.5).fit(X, y)
    np.testing.assert_allclose(single.predict(X_new), theirs.predict(X_new), atol=1e-12)


def test_multi_output_fits_each_target_as_its_own_problem():
    X, y, S = _data(n=30)
    Y = np.column_stack([y, -2 * y + 1])
    both = HSICRidge(alpha=0.01, mu=3.0, gamma=1.0).fit(X, Y, sensitive_features=S)
    for k in range(2):
        one = HSICRidge(alpha=0.01, mu=3.0, gamma=1.0).fit(X, Y[:, k], sensitive_features=S)
        np.testing.assert_allclose(both.dual_coef_[:, k], one.dual_coef_, atol=1e-10)


def test_hsic_of_the_predictions_decreases_with_mu():
    rng = np.random.default_rng(3)
    n = 200
    S = rng.uniform(-1, 1, n)
    X = np.column_stack([S + 0.3 * rng.normal(size=n), rng.normal(size=n)])
    y = X[:, 0] ** 2 + X[:, 1] + S + 0.1 * rng.normal(size=n)
    values, errors = [], []
    for mu in [0.0, 1.0, 10.0, 100.0, 1000.0]:
        predictions = (
            HSICRidge(alpha=1e-3, mu=mu, gamma=0.5).fit(X, y, sensitive_features=S).predict(X)
        )
        values.append(hsic(predictions, S))
        errors.append(np.mean((predictions - y) ** 2))
    assert all(b < a for a, b in itertools.pairwise(values)), values
    assert values[-1] < 0.25 * values[0]
    assert all(b > a for a, b in itertools.pairwise(errors)), errors


def test_median_heuristic_matches_the_hsic_metric_convention():
    S = np.array([[0.0], [1.0], [3.0]])  # squared distances 1, 9, 4: median 4
    assert median_heuristic_gamma(S) == 0.25
    assert median_heuristic_gamma(np.zeros((5, 1))) == 1.0


@pytest.mark.parametrize(
    ("param", "bad"),
    [
        ("alpha", -1.0),
        ("mu", -0.5),
        ("mu", "a"),
        ("sensitive_kernel", "poly"),
        ("sensitive_gamma", 0.0),
        ("gamma", np.inf),
    ],
)
def test_bad_hyperparameters_are_named(param, bad):
    X, y, S = _data()
    with pytest.raises(InvalidParameterError, match=rf"'{param}' parameter of HSICRidge"):
        HSICRidge(**{param: bad}).fit(X, y, sensitive_features=S)


def test_bad_data_is_named():
    X, y, S = _data()
    with pytest.raises(ValueError, match="sensitive_features must have one entry per sample"):
        HSICRidge().fit(X, y, sensitive_features=S[:-1])
    with pytest.raises(ValueError, match="sensitive_features must be numeric"):
        HSICRidge().fit(X, y, sensitive_features=np.array(["a", "b"] * 10))
    bad = S.copy()
    bad[2] = np.nan
    with pytest.raises(ValueError, match="sensitive_features contains missing values"):
        HSICRidge().fit(X, y, sensitive_features=bad)
    with pytest.raises(ValueError, match=r"singular at alpha=0\.0"):
        HSICRidge(alpha=0.0, mu=0.0, kernel="linear").fit(np.vstack([X, X]), np.concatenate([y, y]))
    model = HSICRidge().fit(X, y, sensitive_features=S)
    with pytest.raises(ValueError, match="X has 3 features"):
        model.predict(np.ones((2, 3)))
