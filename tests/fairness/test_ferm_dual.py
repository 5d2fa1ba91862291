"""Exact FERM dual (krepro.fairness.ferm_dual): constraint, projection, objectives, memory."""

import tracemalloc

import numpy as np
import pytest
from sklearn.svm import SVC

from krepro.fairness.ferm import FERMClassifier, LinearFERM, solve_ferm_dual
from krepro.fairness.ferm_dual import fairness_direction, project_gram, solve_exact_dual
from krepro.kernels import gram


def _data(n=240, seed=0, d=3):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    X = rng.normal(size=(n, d)) + 0.8 * s[:, None]
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=n) > 0.6, 1, -1)
    return X, y, s


def _direction(y, s):
    """v with u = Σ v_i φ(x_i): positives of group 1 minus positives of group 0 (means)."""
    high, low = (y > 0) & (s == 1), (y > 0) & (s == 0)
    return high / high.sum() - low / low.sum()


def _expansion(clf, n):
    beta = np.zeros(n)
    beta[clf.support_] = clf.dual_coef_[0]
    return beta


def _primal(clf, X, y, K):
    """½‖w‖² + C Σ hinge from the fitted expansion and decision_function (independent path)."""
    beta = _expansion(clf, len(y))
    return 0.5 * beta @ K @ beta + clf.C * np.maximum(0, 1 - y * clf.decision_function(X)).sum()


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_exact_constraint_holds_to_round_off(kernel):
    # ⟨w, u⟩ = vᵀKβ from a fresh kernel matrix; the SVM itself violates it by ≫ 1e-10.
    X, y, s = _data(seed=1)
    clf = FERMClassifier(kernel=kernel, C=1.0, gamma=0.5, degree=2, coef0=1.0)
    clf.fit(X, y, sensitive_features=s)
    K = gram(X, kernel=kernel, **({"gamma": 0.5} if kernel == "rbf" else {}))
    if kernel == "poly":
        K = gram(X, kernel="poly", gamma=0.5, degree=2, coef0=1.0)
    v = _direction(y, s)
    assert abs(v @ K @ _expansion(clf, len(y))) < 1e-10
    assert abs(clf.fairness_gap_) < 1e-10
    svc = SVC(kernel="precomputed", C=1.0).fit(K, y)
    assert abs(v @ K[:, svc.support_] @ svc.dual_coef_[0]) > 0.1


def test_exact_linear_kernel_is_the_explicit_projection_not_linear_ferm():
    # Finite-dimensional φ(x) = x: project onto u⊥ explicitly, then a linear SVM. The exact
    # dual must give the same w and scores; LinearFERM (eliminates a coordinate, which
    # changes the regulariser) reaches a strictly higher primal objective on the same data.
    X, y, s = _data(n=200, seed=4, d=4)
    X_test = _data(n=50, seed=5, d=4)[0]
    C = 0.5
    u = X[(y > 0) & (s == 1)].mean(0) - X[(y > 0) & (s == 0)].mean(0)
    project = np.eye(4) - np.outer(u, u) / (u @ u)
    svm = SVC(kernel="linear", C=C, tol=1e-10).fit(X @ project, y)
    exact = FERMClassifier(kernel="linear", C=C, tol=1e-10).fit(X, y, sensitive_features=s)
    w = exact.support_vectors_.T @ exact.dual_coef_[0]
    # libsvm at tol 1e-10 on both sides: the two runs see Gram matrices equal to ~1e-15
    np.testing.assert_allclose(w, svm.coef_[0], atol=1e-7)
    assert abs(w @ u) < 1e-12
    np.testing.assert_allclose(
        exact.decision_function(X_test), svm.decision_function(X_test @ project), atol=1e-7
    )
    linear_ferm = LinearFERM(C=C, tol=1e-10).fit(X, y, sensitive_features=s)
    coef = linear_ferm.coef_[0]
    hinge = np.maximum(0, 1 - y * linear_ferm.decision_function(X)).sum()
    assert abs(coef @ u) < 1e-10  # feasible, so never below the exact optimum ...
    assert 0.5 * coef @ coef + C * hinge > exact.primal_objective_ + 1e-3  # ... and above it


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("epsilon", [0.0, 0.05])
def test_exact_primal_objective_never_above_donini(kernel, epsilon):
    # Every eq.-(14) solution is feasible for the constrained primal the exact dual solves.
    X, y, s = _data(n=160, seed=2)
    K = gram(X, kernel=kernel, **({"gamma": 0.5} if kernel == "rbf" else {}))
    fits = {
        f: FERMClassifier(
            kernel=kernel, C=1.0, gamma=0.5, epsilon=epsilon, formulation=f, tol=1e-10
        ).fit(X, y, sensitive_features=s)
        for f in ("exact", "donini")
    }
    for clf in fits.values():  # the attribute is the primal of the stored classifier
        assert clf.primal_objective_ == pytest.approx(_primal(clf, X, y, K), rel=1e-6)
    exact, donini = fits["exact"], fits["donini"]
    assert exact.primal_objective_ <= donini.primal_objective_ + 1e-8
    assert donini.primal_objective_ - exact.primal_objective_ > 1e-3  # eq. (14) is restricted
    # strong duality: the exact dual objective is minus the primal optimum (libsvm tol 1e-10;
    # the QP of an active ε > 0 stops at ~1e-8 relative)
    assert exact.objective_ == pytest.approx(-exact.primal_objective_, rel=1e-6)


@pytest.mark.parametrize("epsilon", [0.0, 0.05])
def test_exact_decision_function_is_the_projected_kernel_formula(epsilon):
    # f(x) = Σ α_i y_i K'(x_i, x) + e τ(x)/‖u‖² + b with K'(x_i, x) = k(x_i, x) − τ_i τ(x)/‖u‖²,
    # τ(x) = ⟨φ(x), u⟩ by explicit group means (a loop over the test points: the oracle).
    X, y, s = _data(seed=3)
    X_test = X[:30] + 0.2
    clf = FERMClassifier(C=1.0, gamma=0.5, epsilon=epsilon).fit(X, y, sensitive_features=s)
    high, low = (y > 0) & (s == 1), (y > 0) & (s == 0)

    def tau(x):
        k = gram(x[None, :], X, "rbf", gamma=0.5)[0]
        return k[high].mean() - k[low].mean()

    tau_train = np.array([tau(x) for x in X])
    norm2 = tau_train[high].mean() - tau_train[low].mean()  # ‖u‖² = ⟨u, u⟩
    gap = clf.fairness_gap_
    assert abs(gap) == pytest.approx(epsilon, abs=1e-9)
    expected = []
    for x in X_test:
        k = gram(x[None, :], X, "rbf", gamma=0.5)[0]
        projected = k - tau_train * tau(x) / norm2
        expected.append(clf.alpha_ * y @ projected + gap * tau(x) / norm2 + clf.intercept_[0])
    np.testing.assert_allclose(clf.decision_function(X_test), expected, rtol=1e-10, atol=1e-10)


def test_exact_equals_libsvm_on_the_projected_gram():
    # ε = 0: the exact formulation is SVC(kernel="precomputed") on K' (train) and K'(test, train).
    X, y, s = _data(seed=6)
    X_test = X[:40] + 0.3
    v = _direction(y, s)
    K, K_test = gram(X, kernel="rbf", gamma=0.5), gram(X_test, X, "rbf", gamma=0.5)
    tau, norm2 = K @ v, v @ K @ v
    svc = SVC(kernel="precomputed", C=2.0, tol=1e-10)
    svc.fit(K - np.outer(tau, tau) / norm2, y)
    reference = svc.decision_function(K_test - np.outer(K_test @ v, tau) / norm2)
    clf = FERMClassifier(C=2.0, gamma=0.5, tol=1e-10).fit(X, y, sensitive_features=s)
    np.testing.assert_allclose(clf.decision_function(X_test), reference, atol=1e-8)
    assert set(np.flatnonzero(clf.alpha_)) == set(svc.support_)


def test_project_gram_updates_in_place_and_stays_symmetric():
    X, y, s = _data(n=50, seed=7)
    K = gram(X, kernel="rbf", gamma=0.5)
    K = (K + K.T) / 2  # exactly symmetric (gram's GEMM is symmetric only to round-off)
    tau, norm2 = fairness_direction(K, _direction(y, s))
    expected = K - np.outer(tau, tau) / norm2
    out = project_gram(K, tau, norm2)
    assert out is K
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_allclose(K, expected, rtol=0, atol=1e-15)


def test_exact_fit_allocates_no_second_gram_matrix():
    # tracemalloc sees numpy's allocations (not libsvm's kernel cache, which cache_size bounds):
    # fit needs K plus O(n · n_features) — a second n × n array would double the peak.
    X, y, s = _data(n=1200, seed=8)
    n_squared_bytes = 8 * len(y) ** 2
    tracemalloc.start()
    FERMClassifier(C=1.0, gamma=0.5).fit(X, y, sensitive_features=s)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1.25 * n_squared_bytes
    K = gram(X, kernel="rbf", gamma=0.5)
    tracemalloc.start()
    solve_exact_dual(K, y.astype(float), 1.0, _direction(y, s))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 0.1 * n_squared_bytes


def test_donini_overwrite_kernel_is_bit_identical():
    X, y, s = _data(n=80, seed=9)
    yy = y.astype(float)
    K = gram(X, kernel="rbf", gamma=0.5)
    row = yy * (K[(y > 0) & (s == 1)].mean(0) - K[(y > 0) & (s == 0)].mean(0))
    hessian = np.outer(yy, yy) * K
    alpha = solve_ferm_dual(K, yy, 1.0, row)
    alpha_overwrite = solve_ferm_dual(K, yy, 1.0, row, overwrite_kernel=True)
    np.testing.assert_array_equal(K, hessian)
    np.testing.assert_array_equal(alpha, alpha_overwrite)


def test_zero_direction_is_the_plain_svm():
    # Both groups' positives are the same points: u = 0, every w satisfies the constraint.
    X, y, _ = _data(n=100, seed=10)
    X2, y2 = np.vstack([X, X]), np.r_[y, y]
    s2 = np.r_[np.zeros(100, int), np.ones(100, int)]
    clf = FERMClassifier(C=1.0, gamma=0.5, tol=1e-10).fit(X2, y2, sensitive_features=s2)
    svc = SVC(C=1.0, gamma=0.5, tol=1e-10).fit(X2, y2)
    np.testing.assert_allclose(clf.decision_function(X), svc.decision_function(X), atol=1e-8)
    assert clf.direction_coef_ == 0.0


@pytest.mark.parametrize("epsilon", [0.0, 0.05])
@pytest.mark.parametrize("C", [0.1, 10.0])
def test_donini_lifted_linear_solve_equals_the_dense_qp(epsilon, C):
    # K = XXᵀ: the lifted QP (w = Xᵀ(y∘α) as extra variables) is eq. (14) with w eliminated,
    # so α, the objective and the fairness row agree with the dense n × n solve.
    X, y, s = _data(n=300, seed=11, d=6)
    yy = y.astype(float)
    K = X @ X.T
    row = yy * (K[(y > 0) & (s == 1)].mean(0) - K[(y > 0) & (s == 0)].mean(0))
    dense = solve_ferm_dual(K.copy(), yy, C, row, epsilon)
    lifted = solve_ferm_dual(K, yy, C, row, epsilon, features=X)
    np.testing.assert_array_equal(K, X @ X.T)  # left untouched
    hessian = np.outer(yy, yy) * K

    def objective(alpha):
        return 0.5 * alpha @ hessian @ alpha - alpha.sum()

    assert abs(objective(lifted) - objective(dense)) <= 1e-7 * abs(objective(dense))
    np.testing.assert_allclose(X.T @ (yy * lifted), X.T @ (yy * dense), atol=1e-6 * C)
    assert abs(yy @ lifted) < 1e-7 * C and abs(row @ lifted) <= epsilon + 1e-7 * C
    # A different box gives a different solution (the comparison can fail).
    other = solve_ferm_dual(K, yy, C / 100, row, epsilon, features=X)
    assert np.abs(X.T @ (yy * other) - X.T @ (yy * lifted)).max() > 1e-3


def test_linear_donini_classifier_equals_the_dense_solve_of_the_same_kernel():
    # (1·⟨x, y⟩ + 0)¹ is the linear kernel, solved by the dense n × n QP; "linear" takes
    # the lifted solve (fewer features than samples).
    X, y, s = _data(n=260, seed=12, d=5)
    lifted = FERMClassifier(kernel="linear", C=1.0, formulation="donini")
    dense = FERMClassifier(
        kernel="poly", degree=1, gamma=1.0, coef0=0.0, C=1.0, formulation="donini"
    )
    for clf in (lifted, dense):
        clf.fit(X, y, sensitive_features=s)
    np.testing.assert_allclose(lifted.objective_, dense.objective_, rtol=1e-7)
    np.testing.assert_array_equal(lifted.support_, dense.support_)
    np.testing.assert_allclose(lifted.intercept_, dense.intercept_, atol=1e-5)
    np.testing.assert_allclose(lifted.decision_function(X), dense.decision_function(X), atol=1e-5)


def _donini_problem(n, gamma, seed):
    X, y, s = _data(n=n, seed=seed, d=3)
    yy = y.astype(float)
    K = gram(X, kernel="rbf", gamma=gamma)
    row = yy * (K[(y > 0) & (s == 1)].mean(0) - K[(y > 0) & (s == 0)].mean(0))
    return K, yy, row


@pytest.mark.parametrize("epsilon", [0.0, 0.02])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_donini_working_set_solve_equals_the_full_qp(C, epsilon, monkeypatch):
    # The decomposition (QP over a working set, grown by KKT violators) reaches eq. (14)'s
    # optimum: feasible, with the objective of one interior-point QP over all rows (a
    # feasible point of a convex QP at the optimal value is optimal) and its decisions.
    # (ε = 0 is solved by the active-set method first; here it is switched off.)
    import krepro.fairness.ferm_dual as ferm_dual
    from krepro.fairness.ferm_dual import _plain_svm_start

    monkeypatch.setattr(ferm_dual, "_MAX_ACTIVE_SET_ITERATIONS", 0)

    K, y, row = _donini_problem(n=400, gamma=0.2, seed=21)
    assert _plain_svm_start(K, y, C) is not None  # the decomposition is what runs
    full = solve_ferm_dual(K, y, C, row, epsilon, working_set=False)
    decomposed = solve_ferm_dual(K, y, C, row, epsilon)
    hessian = np.outer(y, y) * K

    def objective(alpha):
        return 0.5 * alpha @ hessian @ alpha - alpha.sum()

    assert abs(objective(decomposed) - objective(full)) <= 1e-8 * abs(objective(full))
    assert np.all((decomposed >= 0) & (decomposed <= C))
    assert abs(y @ decomposed) < 1e-8 * C and abs(row @ decomposed) <= epsilon + 1e-8 * C
    np.testing.assert_allclose(K @ (y * decomposed), K @ (y * full), atol=1e-5 * C)


def test_donini_working_set_holds_fewer_rows_than_the_problem(monkeypatch):
    # The restricted QPs are smaller than the full one (the speed-up is real), and the
    # rounds add variables until the KKT conditions hold.
    import krepro.fairness.ferm_dual as ferm_dual

    sizes = []
    restricted = ferm_dual._restricted_qp

    def recording(P, q, A, b, C, G, h, working, *args):
        sizes.append(len(working))
        return restricted(P, q, A, b, C, G, h, working, *args)

    monkeypatch.setattr(ferm_dual, "_restricted_qp", recording)
    monkeypatch.setattr(ferm_dual, "_MAX_ACTIVE_SET_ITERATIONS", 0)
    K, y, row = _donini_problem(n=600, gamma=0.05, seed=22)
    solve_ferm_dual(K, y, 1.0, row)
    assert sizes and max(sizes) < 600 / 2


def _eq14_objective(K, y, alpha):
    return 0.5 * (alpha * y) @ K @ (alpha * y) - alpha.sum()


@pytest.mark.parametrize(("gamma", "C"), [(5.0, 1.0), (20.0, 1.0), (50.0, 10.0)])
def test_donini_active_set_reaches_the_full_qp_optimum(gamma, C):
    # From libsvm's plain SVM the primal-dual active-set method ends at eq. (14)'s optimum:
    # feasible to round-off, the objective of one interior-point QP over all rows no lower
    # than its own (a feasible point at the optimal value is optimal), the same decisions.
    # Narrow kernels: more than a quarter of the rows are free support vectors, the case
    # in which the active-set method runs first.
    from krepro.fairness.ferm_dual import _active_set_qp, _constraint_rows, _plain_svm_start

    K, y, row = _donini_problem(n=400, gamma=gamma, seed=23)
    start = _plain_svm_start(K, y, C)
    assert 4 * start.n_free >= len(y)
    A, b, _, _ = _constraint_rows(y, row, 0.0)
    alpha = _active_set_qp(np.outer(y, y) * K, -np.ones(len(y)), A, b, C, start.alpha)
    assert alpha is not None  # the active-set method is what solves it
    full = solve_ferm_dual(K, y, C, row, working_set=False)
    assert np.all((alpha >= 0) & (alpha <= C))
    assert abs(y @ alpha) < 1e-9 * C and abs(row @ alpha) < 1e-9 * C
    assert _eq14_objective(K, y, alpha) <= _eq14_objective(K, y, full) + 1e-9 * abs(
        _eq14_objective(K, y, full)
    )
    np.testing.assert_allclose(K @ (y * alpha), K @ (y * full), atol=1e-5 * C)
    np.testing.assert_array_equal(solve_ferm_dual(K, y, C, row), alpha)


def test_donini_active_set_gives_way_when_it_cannot_finish(monkeypatch):
    # Without iterations (or when it cycles past its cap) the active-set method returns
    # None, and the decomposition or the full QP solves the problem instead.
    import krepro.fairness.ferm_dual as ferm_dual

    K, y, row = _donini_problem(n=300, gamma=50.0, seed=23)
    monkeypatch.setattr(ferm_dual, "_MAX_ACTIVE_SET_ITERATIONS", 0)
    assert ferm_dual._plain_svm_start(K, y, 10.0).size * 3 > 2 * 300  # too many to decompose
    np.testing.assert_array_equal(
        solve_ferm_dual(K, y, 10.0, row), solve_ferm_dual(K, y, 10.0, row, working_set=False)
    )


def test_donini_decomposition_falls_back_to_the_full_qp_after_its_rounds(monkeypatch):
    import krepro.fairness.ferm_dual as ferm_dual

    K, y, row = _donini_problem(n=400, gamma=0.2, seed=21)
    monkeypatch.setattr(ferm_dual, "_MAX_ROUNDS", 0)
    monkeypatch.setattr(ferm_dual, "_MAX_ACTIVE_SET_ITERATIONS", 0)
    np.testing.assert_array_equal(
        solve_ferm_dual(K, y, 1.0, row), solve_ferm_dual(K, y, 1.0, row, working_set=False)
    )
