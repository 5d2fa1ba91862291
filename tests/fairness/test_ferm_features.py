"""FERM on explicit features (FERMFeatures)."""

import numpy as np
import pytest
from sklearn.svm import SVC

from krepro.fairness.ferm import FERMClassifier
from krepro.fairness.ferm_features import FERMFeatures, ferm_projected_gram
from krepro.kernels import gram


def _ferm_data(seed=1, n=200, n_test=300):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n + n_test)
    X = rng.normal(size=(n + n_test, 3)) + 0.8 * s[:, None]
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n + n_test) > 0.6, 1, -1)
    return X[:n], y[:n], s[:n], X[n:]


def test_ferm_features_converge_to_exact_constrained_svm():
    """FERMFeatures + linear SVM → the SVM under ⟨w, u⟩ = 0 (projected kernel) as D grows."""
    X, y, s, X_test = _ferm_data()
    gamma, C = 0.5, 1.0
    K_projected, K_test_projected = ferm_projected_gram(
        gram(X, None, "rbf", gamma=gamma), y, s, gram(X_test, X, "rbf", gamma=gamma)
    )
    exact = SVC(kernel="precomputed", C=C, tol=1e-8).fit(K_projected, y)
    reference = exact.decision_function(K_test_projected)
    gaps = []
    for n_components in (10, 50, len(X)):
        ferm = FERMFeatures(gamma=gamma, n_components=n_components, random_state=0)
        F = ferm.fit_transform(X, y, sensitive_features=s)
        svm = SVC(kernel="linear", C=C, tol=1e-8).fit(F, y)
        gaps.append(np.abs(svm.decision_function(ferm.transform(X_test)) - reference).max())
        # The constraint holds exactly in feature space: equal mean score on both groups' positives.
        scores = svm.decision_function(F)
        positives = y == 1
        assert abs(scores[positives & (s == 1)].mean() - scores[positives & (s == 0)].mean()) < 1e-6
    assert gaps[-1] < 1e-6
    assert gaps[0] > gaps[-1]


def test_ferm_features_versus_kernel_ferm_qp():
    """Same constraint as FERMClassifier's QP (Donini eq. 14), never a worse primal objective.

    The QP restricts w = Σ α_i y_i φ(x_i) with 0 ≤ α ≤ C *and* ⟨w, u⟩ = 0; the projection solves
    the constrained primal itself, so its objective ½‖w‖² + C Σ hinge is at most the QP's, and
    the two classifiers agree on most test points.
    """
    X, y, s, X_test = _ferm_data()
    gamma, C = 0.5, 1.0
    qp = FERMClassifier(kernel="rbf", gamma=gamma, C=C, formulation="donini")
    qp.fit(X, y, sensitive_features=s)
    ferm = FERMFeatures(gamma=gamma, n_components=len(X), random_state=0)
    F = ferm.fit_transform(X, y, sensitive_features=s)
    svm = SVC(kernel="linear", C=C, tol=1e-8).fit(F, y)
    K = gram(X, None, "rbf", gamma=gamma)
    coef = np.zeros(len(X))
    coef[qp.support_] = qp.dual_coef_[0]
    qp_scores = K @ coef + qp.intercept_[0]
    qp_objective = 0.5 * coef @ K @ coef + C * np.maximum(0, 1 - y * qp_scores).sum()
    w = svm.coef_[0]
    svm_objective = 0.5 * w @ w + C * np.maximum(0, 1 - y * svm.decision_function(F)).sum()
    assert svm_objective <= qp_objective + 1e-6
    agreement = np.mean(svm.predict(ferm.transform(X_test)) == qp.predict(X_test))
    assert agreement > 0.9


def test_ferm_features_without_groups_is_plain_map():
    X, y, _, _ = _ferm_data()
    ferm = FERMFeatures(gamma=0.5, n_components=20, random_state=0)
    F = ferm.fit_transform(X, y)
    assert ferm.direction_ is None
    np.testing.assert_allclose(F, ferm.feature_map_.transform(X))
    with pytest.raises(ValueError, match="binary sensitive"):
        FERMFeatures(n_components=5).fit(X, y, sensitive_features=np.arange(len(X)) % 3)


def test_ferm_projected_gram_is_the_block_mean_formula_and_keeps_its_inputs():
    """K − ττᵀ/‖u‖² with τ and ‖u‖² from block means of K (the FERM reference's formulas)."""
    X, y, s, X_test = _ferm_data()
    K, K_cross = gram(X, None, "rbf", gamma=0.5), gram(X_test, X, "rbf", gamma=0.5)
    K_before, K_cross_before = K.copy(), K_cross.copy()
    K_projected, K_cross_projected = ferm_projected_gram(K, y, s, K_cross)
    high, low = (y == 1) & (s == 1), (y == 1) & (s == 0)
    tau = K[high].mean(axis=0) - K[low].mean(axis=0)
    norm2 = (
        K[np.ix_(high, high)].mean() + K[np.ix_(low, low)].mean() - 2 * K[np.ix_(high, low)].mean()
    )
    tau_cross = K_cross[:, high].mean(axis=1) - K_cross[:, low].mean(axis=1)
    np.testing.assert_allclose(K_projected, K - np.outer(tau, tau) / norm2, atol=1e-12)
    np.testing.assert_allclose(
        K_cross_projected, K_cross - np.outer(tau_cross, tau) / norm2, atol=1e-12
    )
    assert (K == K_before).all() and (K_cross == K_cross_before).all()
    # u is orthogonal to the projected features: the projected τ vanishes.
    v = high / high.sum() - low / low.sum()
    assert np.abs(K_projected @ v).max() < 1e-12
