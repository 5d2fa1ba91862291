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


def _one_hot_data(n=400, seed=4):
    """Adult-like: standardised numbers beside one-hot blocks whose columns sum to 1 (X has
    lower rank than its width, the constant lies in its column span)."""
    rng = np.random.default_rng(seed)
    numbers = rng.standard_normal((n, 3))
    blocks = [np.eye(k)[rng.integers(0, k, n)] for k in (4, 6)]
    X = np.hstack([numbers, *blocks])
    score = numbers @ np.array([1.0, -0.5, 0.3]) + blocks[0] @ np.array([0.5, -0.5, 0.0, 1.0])
    y = np.where(score + rng.standard_normal(n) > 0.4, 1, -1)
    return X, y


@pytest.mark.parametrize("C", [0.01, 1.0, 30.0])
def test_ipm_matches_a_tight_libsvm_solve(data, C):
    Z, y = data
    exact = LinearHingeSVC(C=C, solver="ipm").fit(Z, y)
    assert isinstance(exact.n_iter_, int)  # the dedicated method converged (no fallback)
    tight = SVC(kernel="linear", C=C, tol=1e-10).fit(Z, y)
    w, b = _libsvm_point(tight)
    reference = hinge_svm_objective(w, b, Z, _signed(exact, y), C)
    assert exact.objective_ <= reference + 1e-9 * abs(reference)
    # libsvm keeps its kernel cache in single precision: at C = 30 its w is 1e-5 off the
    # optimum (objective 8e-8 above it, however small its tol), where PIQP agrees with the IPM
    close = 1e-6 if C <= 1 else 2e-5
    np.testing.assert_allclose(exact.coef_, w, rtol=close, atol=close)
    decision = tight.decision_function(Z)
    np.testing.assert_allclose(exact.decision_function(Z), decision, rtol=close, atol=close)
    piqp = LinearHingeSVC(C=C, tol=1e-12).fit(Z, y)
    np.testing.assert_allclose(exact.decision_function(Z), piqp.decision_function(Z), atol=1e-6)
    assert set(exact.classes_) == {2, 7}


@pytest.mark.parametrize("C", [2.0**-4, 1.0, 2.0**4])
@pytest.mark.parametrize("shape", ["one_hot", "wide"])
def test_ipm_and_piqp_reach_the_same_optimum(shape, C):
    """Rank-deficient one-hot features (the (d + 1)-square Newton systems) and more features
    than rows (the n-square ones): the objective of PIQP's primal QP, to 1e-9."""
    if shape == "one_hot":
        X, y = _one_hot_data()
    else:
        rng = np.random.default_rng(5)
        X = rng.standard_normal((40, 60))
        y = np.where(X[:, 0] + 0.5 * rng.standard_normal(40) > 0, 1, -1)
    ipm = LinearHingeSVC(C=C, solver="ipm").fit(X, y)
    piqp = LinearHingeSVC(C=C).fit(X, y)
    assert isinstance(ipm.n_iter_, int) and piqp.n_iter_ is None
    # both stop at a relative duality gap of 1e-9: neither is more than that above the other
    assert ipm.objective_ <= piqp.objective_ * (1 + 1e-9)
    assert piqp.objective_ <= ipm.objective_ * (1 + 1e-8)
    assert (ipm.predict(X) == piqp.predict(X)).all()


def test_ipm_beats_libsvm_where_smo_stops_early():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((100, 2))
    y = (rng.random(100) < 0.35).astype(int)  # labels independent of Z
    C = 2.0**8
    exact = LinearHingeSVC(C=C, solver="ipm").fit(Z, y)
    w, b = _libsvm_point(SVC(kernel="linear", C=C).fit(Z, y))
    assert exact.objective_ < hinge_svm_objective(w, b, Z, _signed(exact, y), C) * (1 - 1e-5)
    assert exact.objective_ == pytest.approx(LinearHingeSVC(C=C).fit(Z, y).objective_, rel=1e-9)


def test_ipm_hands_extreme_scales_to_piqp(data):
    """Where the dedicated method does not converge (here H Hᵀ overflows), the primal QP is
    solved by PIQP: the same answer or the same refusal as ``solver="piqp"``."""
    Z, y = data
    for scale in (1e6, 1e200):
        outcomes = []
        for solver in ("ipm", "piqp"):
            try:
                model = LinearHingeSVC(C=1.0, solver=solver).fit(Z * scale, y)
                outcomes.append((model.n_iter_, model.decision_function(Z * scale)))
            except ValueError as error:
                outcomes.append(str(error))
        if isinstance(outcomes[1], str):
            assert outcomes[0] == outcomes[1]
        else:
            assert outcomes[0][0] is None
            np.testing.assert_array_equal(outcomes[0][1], outcomes[1][1])


@pytest.mark.parametrize("C", [0.01, 1.0, 30.0])
def test_ipm_solution_is_polished_onto_its_active_set(data, C):
    """The interior-point iterate pins the margins of the free support vectors to ~1e-7;
    solved on its active set, every margin is 1 to round-off or clearly away from 1."""
    Z, y = data
    model = LinearHingeSVC(C=C, solver="ipm").fit(Z, y)
    margin = _signed(model, y) * model.decision_function(Z)
    near = np.abs(margin - 1) < 1e-4
    assert near.sum() >= 2
    assert np.max(np.abs(margin[near] - 1)) < 1e-11
