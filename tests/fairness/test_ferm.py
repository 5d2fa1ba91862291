"""FERM (Donini et al. 2018): SVC equivalence, the constraint, CV routing, sklearn contract."""

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_predict
from sklearn.svm import SVC
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import parametrize_with_checks

from krepro.fairness.ferm import FERMClassifier, LinearFERM, equal_opportunity_gap, solve_ferm_dual
from krepro.fairness.linear_svc import LinearHingeSVC, hinge_svm_objective
from krepro.kernels import gram


def _data(n=240, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 3)) + 0.8 * s[:, None]
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=n) > 0.6, 1, -1)
    return X, y, s


# Once per class; formulation="donini" solves another dual (eq. (14) through qpsolvers instead
# of libsvm on the projected kernel). kernel="linear" shares the RBF path's code (any kernel
# goes through krepro.kernels.gram); its numerics are tested below. kernel="precomputed" is a
# different code path (X is the Gram matrix, copied before the solvers overwrite it; the
# pairwise tag makes the checks pass Gram matrices and slice their columns).
@parametrize_with_checks(
    [
        FERMClassifier(),
        FERMClassifier(formulation="donini"),
        FERMClassifier(kernel="precomputed"),
        LinearFERM(),
        LinearFERM(solver="exact"),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("formulation", ["exact", "donini"])
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("how", ["no_groups", "inactive_epsilon"])
def test_single_group_or_inactive_constraint_equals_svc(kernel, how, formulation):
    # With one group (or ε above the SVM's own gap) both duals are the SVM dual: the decision
    # function must equal libsvm's. Tolerance: libsvm at tol 1e-10 vs the interior-point
    # solution (~1e-8 on α), amplified by the kernel sums → 1e-4 on O(1) scores.
    X, y, s = _data()
    svc = SVC(kernel=kernel, C=1.0, gamma=0.5, tol=1e-10).fit(X, y)
    params = {"kernel": kernel, "C": 1.0, "gamma": 0.5, "formulation": formulation, "tol": 1e-10}
    if how == "no_groups":
        ferm = FERMClassifier(**params).fit(X, y)
    else:
        gap = abs(equal_opportunity_gap(svc.decision_function(X), y, s))
        ferm = FERMClassifier(epsilon=2 * gap + 1.0, **params)
        ferm.fit(X, y, sensitive_features=s)
        assert ferm.direction_coef_ == 0.0
    np.testing.assert_allclose(ferm.decision_function(X), svc.decision_function(X), atol=1e-4)
    np.testing.assert_array_equal(ferm.predict(X), svc.predict(X))
    assert set(ferm.support_) == set(svc.support_)


@pytest.mark.parametrize("formulation", ["exact", "donini"])
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("epsilon", [0.0, 0.02, 0.1])
def test_constraint_holds_on_training_set(kernel, epsilon, formulation):
    X, y, s = _data(seed=1)
    svc_gap = abs(
        equal_opportunity_gap(SVC(kernel=kernel, gamma=0.5).fit(X, y).decision_function(X), y, s)
    )
    assert svc_gap > 0.15  # the constraint is active for every ε: the SVM violates it
    ferm = FERMClassifier(kernel=kernel, C=1.0, gamma=0.5, epsilon=epsilon, formulation=formulation)
    ferm.fit(X, y, sensitive_features=s)
    gap = equal_opportunity_gap(ferm.decision_function(X), y, s)
    assert abs(gap) <= epsilon + 1e-6
    assert gap == pytest.approx(ferm.fairness_gap_, abs=1e-9)  # the intercept cancels
    if epsilon > 0:
        assert abs(gap) == pytest.approx(epsilon, abs=1e-5)  # active: on the boundary


@pytest.mark.parametrize("formulation", ["exact", "donini"])
def test_reference_intercept_averages_all_support_vectors(formulation):
    X, y, s = _data(seed=2)
    ref = FERMClassifier(C=1.0, gamma=0.5, intercept="all_support", formulation=formulation)
    ref.fit(X, y, sensitive_features=s)
    K = gram(X, X[ref.support_], "rbf", gamma=0.5)
    f0 = K @ ref.dual_coef_[0]
    svs = ref.alpha_ > ref.sv_tol * ref.C  # support vectors: α > 0 (not the expansion rows)
    assert ref.intercept_[0] == pytest.approx(np.mean(np.where(y[svs] > 0, 1, -1) - f0[svs]))


def test_qp_matches_cvxopt_reference_formulation():
    cvxopt = pytest.importorskip("cvxopt")
    X, y, s = _data(n=150, seed=3)
    yy = y.astype(float)
    K = gram(X, kernel="rbf", gamma=0.5)
    pos = yy > 0
    row = yy * (K[pos & (s == 1)].mean(0) - K[pos & (s == 0)].mean(0))
    alpha = solve_ferm_dual(K, yy, 1.0, row)
    n = len(y)
    cvxopt.solvers.options.update(show_progress=False, abstol=1e-12, reltol=1e-12, feastol=1e-12)
    sol = cvxopt.solvers.qp(
        cvxopt.matrix(np.outer(yy, yy) * K),
        cvxopt.matrix(-np.ones(n)),
        cvxopt.matrix(np.vstack([-np.eye(n), np.eye(n)])),
        cvxopt.matrix(np.r_[np.zeros(n), np.ones(n)]),
        cvxopt.matrix(np.vstack([yy, row])),
        cvxopt.matrix(np.zeros(2)),
    )
    ref = np.ravel(sol["x"])
    P = np.outer(yy, yy) * K

    def objective(a):
        return 0.5 * a @ P @ a - a.sum()

    assert objective(alpha) == pytest.approx(objective(ref), abs=1e-6)


def test_linear_ferm_weights_orthogonal_to_gap_and_equal_mean_scores():
    X, y, s = _data(seed=4)
    for selection in ("argmax_abs", "argmax"):
        clf = LinearFERM(C=1.0, selection=selection).fit(X, y, sensitive_features=s)
        assert abs(clf.coef_[0] @ clf.u_) < 1e-10
        assert abs(equal_opportunity_gap(clf.decision_function(X), y, s)) < 1e-10
        np.testing.assert_allclose(
            clf.decision_function(X), clf.svc_.decision_function(clf._reduce(X)), atol=1e-10
        )


@pytest.mark.parametrize("C", [0.1, 1.0, 8.0])
@pytest.mark.parametrize("selection", ["argmax_abs", "argmax"])
def test_exact_linear_ferm_solves_the_reduced_svm_to_optimality(selection, C):
    """solver="exact": w ⟂ u, and on the reduced features the primal objective is never above
    libsvm's (whose SMO stops at its KKT tolerance), with the same constrained classifier as a
    tight libsvm solve."""
    X, y, s = _data(n=300, seed=8)
    exact = LinearFERM(C=C, selection=selection, solver="exact").fit(X, y, sensitive_features=s)
    libsvm = LinearFERM(C=C, selection=selection).fit(X, y, sensitive_features=s)
    # whichever QP path it took (it depends on the BLAS kernel): the optimum is checked below
    assert isinstance(exact.svc_, LinearHingeSVC)
    assert exact.feature_index_ == libsvm.feature_index_
    assert abs(exact.coef_[0] @ exact.u_) < 1e-10 * np.linalg.norm(exact.coef_[0])
    assert abs(equal_opportunity_gap(exact.decision_function(X), y, s)) < 1e-10
    Z, signed = exact._reduce(X), np.where(y == exact.classes_[1], 1.0, -1.0)

    def objective(model):
        w = model.svc_.coef_.ravel()
        return hinge_svm_objective(w, float(np.ravel(model.svc_.intercept_)[0]), Z, signed, C)

    assert objective(exact) == pytest.approx(exact.svc_.objective_, rel=1e-12)
    assert objective(exact) <= objective(libsvm) * (1 + 1e-9)
    tight = LinearFERM(C=C, selection=selection, tol=1e-10).fit(X, y, sensitive_features=s)
    assert objective(exact) <= objective(tight) * (1 + 1e-9)
    # libsvm keeps its kernel cache in single precision: even its tight solve is up to 1e-4
    # off the optimum in the decision values. PIQP on the primal QP of the same reduced
    # features is the independent tight solve.
    piqp = LinearHingeSVC(C=C, tol=1e-12).fit(Z, signed)
    np.testing.assert_allclose(
        exact.decision_function(X), piqp.decision_function(Z), rtol=1e-6, atol=1e-6
    )
    # the decision function in the original coordinates is the reduced SVM's
    np.testing.assert_allclose(
        exact.decision_function(X), exact.svc_.decision_function(Z), atol=1e-10
    )
    assert exact.n_iter_ == exact.svc_.n_iter_ and libsvm.n_iter_ > 0


def test_linear_ferm_selection_rules():
    u = np.array([0.3, -2.0, 0.5])
    rng = np.random.default_rng(5)
    n = 400
    s = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 3))
    y = np.where(rng.random(n) < 0.5, 1, -1)
    X[(y > 0) & (s == 0)] += u  # positives of the low group shifted by u
    assert LinearFERM(selection="argmax_abs").fit(X, y, sensitive_features=s).feature_index_ == 1
    assert LinearFERM(selection="argmax").fit(X, y, sensitive_features=s).feature_index_ == 2


def test_linear_ferm_without_groups_equals_linear_svc():
    X, y, _ = _data(seed=6)
    clf = LinearFERM(C=0.5).fit(X, y)
    svc = SVC(kernel="linear", C=0.5).fit(X, y)
    np.testing.assert_allclose(clf.decision_function(X), svc.decision_function(X), atol=1e-10)


def test_gridsearch_routes_sensitive_features_per_fold():
    # Metadata routing slices sensitive_features with the fold's rows; the reference instead
    # indexes a full-length column by fold position. Record what each fit receives.
    X, y, s = _data(n=100, seed=7)
    seen = []

    class Spy(FERMClassifier):
        def fit(self, X, y, *, sensitive_features=None):
            seen.append((X.copy(), np.asarray(sensitive_features).copy()))
            return super().fit(X, y, sensitive_features=sensitive_features)

    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            Spy(kernel="linear").set_fit_request(sensitive_features=True),
            {"C": [0.5, 1.0]},
            cv=StratifiedKFold(3),
        )
        search.fit(X, y, sensitive_features=s)
    assert len(seen) == 2 * 3 + 1
    row_of = {tuple(x): k for k, x in enumerate(X)}
    for Xf, sf in seen:
        rows = [row_of[tuple(x)] for x in Xf]
        np.testing.assert_array_equal(sf, s[rows])


def test_errors_name_the_problem():
    X, y, s = _data(n=60)
    with pytest.raises(ValueError, match="binary sensitive"):
        FERMClassifier().fit(X, y, sensitive_features=np.arange(60) % 3)
    with pytest.raises(ValueError, match="one entry per sample"):
        FERMClassifier().fit(X, y, sensitive_features=s[:10])
    with pytest.raises(ValueError, match="epsilon"):
        FERMClassifier(epsilon=-1).fit(X, y)
    with pytest.raises(ValueError, match="intercept"):
        FERMClassifier(intercept="mean").fit(X, y)
    with pytest.raises(ValueError, match="formulation"):
        FERMClassifier(formulation="primal").fit(X, y)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("gamma", ["scale", "auto", 0.3])
def test_decision_function_is_the_kernel_expansion_with_svc_kernels(kernel, gamma):
    # The kernel goes through krepro.kernels.gram; it must be SVC's kernel with SVC's
    # resolution of gamma ("scale": 1 / (d Var X)), checked with scikit-learn's own kernels.
    from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

    X, y, s = _data(n=80, seed=3)
    clf = FERMClassifier(kernel=kernel, gamma=gamma, degree=2, coef0=0.5)
    clf.fit(X, y, sensitive_features=s)
    resolved = {"scale": 1.0 / (X.shape[1] * X.var()), "auto": 1.0 / X.shape[1]}.get(gamma, gamma)
    assert clf.gamma_ == pytest.approx(resolved, rel=1e-15)
    K = {
        "rbf": lambda A, B: rbf_kernel(A, B, gamma=resolved),
        "linear": linear_kernel,
        "poly": lambda A, B: polynomial_kernel(A, B, degree=2, gamma=resolved, coef0=0.5),
    }[kernel]
    X_test = X[:10] + 0.1
    expected = K(X_test, clf.support_vectors_) @ clf.dual_coef_[0] + clf.intercept_[0]
    # same kernel values, one matrix-vector product: agreement to round-off
    np.testing.assert_allclose(clf.decision_function(X_test), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.filterwarnings("ignore::krepro.kernels.DegenerateKernelWarning")
@pytest.mark.parametrize(("scale", "gamma"), [(1e160, 1.0), (1e300, 1e-300)])
def test_kernel_ferm_is_finite_at_extreme_scales(scale, gamma):
    # Before: SVC refused the NaN Gram matrix ("Input X contains NaN"), which named
    # neither the cause nor the input.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) * scale
    s, y = rng.integers(0, 2, 40), np.where(rng.random(40) > 0.5, 1, -1)
    model = FERMClassifier(gamma=gamma).fit(X, y, sensitive_features=s)
    assert np.isfinite(model.decision_function(X)).all()


@pytest.mark.parametrize("formulation", ["exact", "donini"])
@pytest.mark.parametrize("groups", [True, False])
@pytest.mark.parametrize("epsilon", [0.0, 0.05])
def test_precomputed_gram_equals_rbf_kernel(formulation, groups, epsilon):
    # kernel="precomputed" on gram(X, X) must be the RBF fit on X: the same dual, the same
    # expansion; the decision values are read off the cross-Gram's support columns.
    X, y, s = _data(n=150, seed=8)
    X_test = _data(n=40, seed=9)[0]
    g = 0.5
    params = {"C": 1.0, "formulation": formulation, "epsilon": epsilon, "tol": 1e-8}
    fit_params = {"sensitive_features": s} if groups else {}
    rbf = FERMClassifier(kernel="rbf", gamma=g, **params).fit(X, y, **fit_params)
    K = gram(X, X, "rbf", gamma=g)
    K_before = K.copy()
    pre = FERMClassifier(kernel="precomputed", gamma=123.0, **params).fit(K, y, **fit_params)
    np.testing.assert_array_equal(K, K_before)  # the solvers worked on a private copy
    np.testing.assert_allclose(pre.alpha_, rbf.alpha_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(pre.intercept_, rbf.intercept_, rtol=0, atol=1e-10)
    assert pre.direction_coef_ == pytest.approx(rbf.direction_coef_, abs=1e-10)
    if groups:
        assert rbf.fairness_gap_ is not None
        assert pre.fairness_gap_ == pytest.approx(rbf.fairness_gap_, abs=1e-10)
    K_test = gram(X_test, X, "rbf", gamma=g)
    np.testing.assert_allclose(
        pre.decision_function(K_test), rbf.decision_function(X_test), rtol=0, atol=1e-10
    )
    np.testing.assert_array_equal(pre.predict(K_test), rbf.predict(X_test))
    # independent of the estimator's own prediction code: the kernel expansion by hand
    beta = np.zeros(len(y))
    beta[rbf.support_] = rbf.dual_coef_[0]
    np.testing.assert_allclose(
        pre.decision_function(K_test), K_test @ beta + rbf.intercept_[0], rtol=0, atol=1e-10
    )
    assert pre.gamma_ is None  # gamma is ignored (SVC keeps only an unused private 0.0)
    assert pre.support_vectors_.shape == (0, 0)  # as SVC(kernel="precomputed")
    assert pre.n_features_in_ == len(y)


@pytest.mark.parametrize("layout", ["fortran", "float32", "list"])
def test_precomputed_never_modifies_the_callers_gram(layout):
    X, y, s = _data(n=60, seed=10)
    K = gram(X, X, "rbf", gamma=0.5)
    given = {
        "fortran": np.asfortranarray(K),
        "float32": K.astype(np.float32),
        "list": K.tolist(),
    }[layout]
    before = np.array(given, copy=True)
    for formulation in ("exact", "donini"):
        FERMClassifier(kernel="precomputed", formulation=formulation).fit(
            given, y, sensitive_features=s
        )
        np.testing.assert_array_equal(np.asarray(given), before)


def test_precomputed_refuses_wrong_shapes():
    X, y, s = _data(n=50, seed=11)
    K = gram(X, X, "rbf", gamma=0.5)
    with pytest.raises(ValueError, match=r"X: kernel='precomputed' needs the square .*50x30"):
        FERMClassifier(kernel="precomputed").fit(K[:, :30], y, sensitive_features=s)
    model = FERMClassifier(kernel="precomputed").fit(K, y, sensitive_features=s)
    with pytest.raises(ValueError, match=r"X has 49 features.*expecting 50.*cross-Gram"):
        model.decision_function(K[:, :49])
    with pytest.raises(ValueError, match=r"X has 3 features.*expecting 50.*cross-Gram"):
        model.predict(X)  # the points instead of their cross-Gram matrix


def test_precomputed_is_pairwise_and_cross_validates_like_rbf():
    # The pairwise tag makes scikit-learn's CV slice the Gram's columns with the train rows.
    assert get_tags(FERMClassifier(kernel="precomputed")).input_tags.pairwise
    assert not get_tags(FERMClassifier()).input_tags.pairwise
    X, y, _ = _data(n=90, seed=12)
    cv = StratifiedKFold(3)
    rbf = cross_val_predict(
        FERMClassifier(gamma=0.5, tol=1e-8), X, y, cv=cv, method="decision_function"
    )
    pre = cross_val_predict(
        FERMClassifier(kernel="precomputed", tol=1e-8),
        gram(X, X, "rbf", gamma=0.5),
        y,
        cv=cv,
        method="decision_function",
    )
    np.testing.assert_allclose(pre, rbf, rtol=0, atol=1e-10)
