"""LinearHingeSVC solves libsvm's C-SVM problem exactly; gram_factor makes it a precomputed SVM."""

import numpy as np
import pytest
from sklearn.svm import SVC

from krepro.fairness.linear_svc import LinearHingeSVC, gram_factor, hinge_svm_objective


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((300, 3))
    y = np.where(Z @ np.array([1.5, -1.0, 0.5]) + 0.8 * rng.standard_normal(300) > 0.3, 7, 2)
    return Z, y


def _signed(model, y):
    return np.where(y == model.classes_[1], 1.0, -1.0)


def _libsvm_point(svc):
    return svc.dual_coef_[0] @ svc.support_vectors_, svc.intercept_[0]


@pytest.mark.parametrize("C", [0.01, 1.0, 30.0])
def test_matches_a_tight_libsvm_solve(data, C):
    Z, y = data
    exact = LinearHingeSVC(C=C).fit(Z, y)
    tight = SVC(kernel="linear", C=C, tol=1e-10).fit(Z, y)
    w, b = _libsvm_point(tight)
    reference = hinge_svm_objective(w, b, Z, _signed(exact, y), C)
    assert exact.objective_ <= reference + 1e-9 * abs(reference)
    np.testing.assert_allclose(exact.coef_, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(exact.decision_function(Z), tight.decision_function(Z), atol=1e-4)
    assert (exact.predict(Z) == tight.predict(Z)).all()
    assert set(exact.classes_) == {2, 7}


def test_beats_libsvm_where_smo_stops_early():
    """Overlapping classes at a large C (the students' test-set reading): libsvm's default
    tolerance stops above the optimum."""
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((100, 2))
    y = (rng.random(100) < 0.35).astype(int)  # labels independent of Z
    C = 2.0**8
    exact = LinearHingeSVC(C=C).fit(Z, y)
    w, b = _libsvm_point(SVC(kernel="linear", C=C).fit(Z, y))
    libsvm = hinge_svm_objective(w, b, Z, _signed(exact, y), C)
    assert exact.objective_ < libsvm * (1 - 1e-5)  # strictly below libsvm's stopping point


def test_objective_closed_form():
    Z = np.array([[1.0], [-1.0], [0.2]])
    y = np.array([1.0, -1.0, -1.0])
    # w = 2, b = 0: margins 2, 2, -0.4 → hinge 0, 0, 1.4.
    assert hinge_svm_objective(np.array([2.0]), 0.0, Z, y, 3.0) == pytest.approx(2.0 + 3 * 1.4)


def test_gram_factor_reproduces_a_low_rank_gram():
    rng = np.random.default_rng(1)
    A, B = rng.standard_normal((50, 3)), rng.standard_normal((20, 3))
    Z, Z_cross = gram_factor(A @ A.T, B @ A.T)
    assert Z.shape == (50, 3) and Z_cross.shape == (20, 3)
    np.testing.assert_allclose(Z @ Z.T, A @ A.T, atol=1e-10)
    np.testing.assert_allclose(Z_cross @ Z.T, B @ A.T, atol=1e-10)
    with pytest.raises(ValueError, match="rank 3 > max_rank = 2"):
        gram_factor(A @ A.T, max_rank=2)


def test_on_the_factor_equals_a_precomputed_svm(data):
    Z, y = data
    A = Z @ np.array([[1.0, 0.3], [0.0, 2.0], [0.5, -1.0]])  # rank-2 features
    rng = np.random.default_rng(2)
    B = rng.standard_normal((40, 2))
    F, F_test = gram_factor(A @ A.T, B @ A.T)
    exact = LinearHingeSVC(C=2.0).fit(F, y)
    tight = SVC(kernel="precomputed", C=2.0, tol=1e-10).fit(A @ A.T, y)
    np.testing.assert_allclose(
        exact.decision_function(F_test), tight.decision_function(B @ A.T), atol=1e-4
    )


def test_rejects_bad_input(data):
    Z, y = data
    with pytest.raises(ValueError, match="'C' parameter of LinearHingeSVC must be"):
        LinearHingeSVC(C=-1.0).fit(Z, y)
    with pytest.raises(ValueError, match="Only binary"):
        LinearHingeSVC().fit(Z, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="two classes; y has 1 class"):
        LinearHingeSVC().fit(Z, np.ones(len(y)))
    with pytest.raises(ValueError):
        LinearHingeSVC().fit(Z, y[:-1])
