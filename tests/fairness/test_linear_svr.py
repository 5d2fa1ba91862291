"""LinearEpsilonSVR solves libsvm's linear ε-SVR problem exactly."""

import numpy as np
import pytest
from sklearn.svm import SVR

from krepro.fairness.linear_svr import LinearEpsilonSVR, epsilon_svr_objective


@pytest.fixture
def data():
    rng = np.random.default_rng(5)
    Z = rng.standard_normal((400, 5))
    y = 20 + Z @ np.array([3.0, -1.0, 0.5, 0.0, 2.0]) + 4 * rng.standard_normal(400)
    return Z, y


@pytest.mark.parametrize("C, epsilon", [(1.0, 0.1), (0.05, 1.0), (10.0, 0.0)])
def test_matches_a_tight_libsvm_solve(data, C, epsilon):
    Z, y = data
    exact = LinearEpsilonSVR(C=C, epsilon=epsilon).fit(Z, y)
    tight = SVR(kernel="linear", C=C, epsilon=epsilon, tol=1e-10).fit(Z, y)
    w = tight.dual_coef_[0] @ tight.support_vectors_
    reference = epsilon_svr_objective(w, tight.intercept_[0], Z, y, C, epsilon)
    # The optimum: never above libsvm's point, and the same point.
    assert exact.objective_ <= reference + 1e-9 * abs(reference)
    np.testing.assert_allclose(exact.coef_, w, atol=1e-5)
    np.testing.assert_allclose(exact.predict(Z), tight.predict(Z), atol=1e-4)


def test_beats_libsvm_at_its_default_tolerance(data):
    Z, y = data
    exact = LinearEpsilonSVR(C=1.0, epsilon=0.1).fit(Z, y)
    default = SVR(kernel="linear", C=1.0, epsilon=0.1).fit(Z, y)
    w = default.dual_coef_[0] @ default.support_vectors_
    assert exact.objective_ <= epsilon_svr_objective(w, default.intercept_[0], Z, y, 1.0, 0.1)


def test_objective_closed_form():
    Z = np.array([[1.0], [2.0]])
    y = np.array([0.0, 5.0])
    # w = 1, b = 0: residuals -1, 3; loss beyond eps = 0.5: 0.5 + 2.5.
    assert epsilon_svr_objective(np.array([1.0]), 0.0, Z, y, 2.0, 0.5) == pytest.approx(
        0.5 + 2.0 * 3.0
    )


def test_rejects_bad_parameters(data):
    Z, y = data
    with pytest.raises(ValueError, match="'C' parameter of LinearEpsilonSVR must be"):
        LinearEpsilonSVR(C=0.0).fit(Z, y)
    with pytest.raises(ValueError, match="epsilon"):
        LinearEpsilonSVR(epsilon=-1.0).fit(Z, y)
    with pytest.raises(ValueError):
        LinearEpsilonSVR().fit(Z, y[:-1])
