"""Explicit oblivious features (ObliviousFeatures, KernelFeatureMap)."""

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from krepro.cme import CMEConditionalMean
from krepro.fairness.ferm_features import FERMFeatures
from krepro.fairness.oblivious import ObliviousFeatures, ObliviousKernel


def _data(n=80, seed=0, cells=3):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, cells, n)
    X = 0.5 * S[:, None] + rng.normal(size=(n, 3))
    return X, S


@parametrize_with_checks(
    [
        ObliviousFeatures(n_components=10, random_state=0),
        # Random Fourier features: another feature map (RBFSampler), another fit path.
        ObliviousFeatures(n_components=10, approximation="rff", random_state=0),
        FERMFeatures(n_components=10, random_state=0),
    ]
)
def test_sklearn_compatible_transformer(estimator, check):
    check(estimator)


@pytest.mark.parametrize("kernel,params", [("rbf", {"gamma": 0.3}), ("matern", {})])
def test_full_landmarks_equal_oblivious_gram(kernel, params):
    """Every fit point a landmark: ⟨z_i, z_j⟩ is Algorithm 1's O (and E.2's test rows)."""
    X, S = _data()
    kwargs = {"kernel": kernel, **params}
    exact = ObliviousKernel(**kwargs).fit(X, sensitive_features=S)
    features = ObliviousFeatures(**kwargs, n_components=len(X), random_state=0)
    Z = features.fit_transform(X, sensitive_features=S)
    np.testing.assert_allclose(Z @ Z.T, exact.gram(X, S), atol=1e-8, rtol=0)
    np.testing.assert_allclose(features.transform(X, sensitive_features=S), Z, atol=1e-12, rtol=0)
    # New points: K(t, L) K(L, L)^-1 K(L, x_j) = k(t, x_j) when x_j is a landmark.
    X_new, S_new = _data(n=15, seed=1)
    Z_new = features.transform(X_new, sensitive_features=S_new)
    np.testing.assert_allclose(Z_new @ Z.T, exact.gram(X_new, S_new, X, S), atol=1e-8)
    plain = features.plain_transform(X)
    np.testing.assert_allclose(Z_new @ plain.T, exact.mixed_gram(X_new, S_new, X), atol=1e-8)


def test_full_landmarks_with_cme_conditional_mean():
    rng = np.random.default_rng(3)
    S = rng.uniform(-1, 1, 60)
    X = S[:, None] + rng.normal(size=(60, 2))
    cme = CMEConditionalMean(gamma=1.0, alpha=1e-2)
    exact = ObliviousKernel(gamma=0.5, conditional_mean=cme).fit(X, sensitive_features=S)
    Z = ObliviousFeatures(
        gamma=0.5, conditional_mean=cme, n_components=60, random_state=0
    ).fit_transform(X, sensitive_features=S)
    np.testing.assert_allclose(Z @ Z.T, exact.gram(X, S), atol=1e-8)


def test_linear_kernel_is_group_mean_centring():
    """Linear kernel, finite S, all landmarks: Z spans the same Gram as X − E[X|S] + E[X]."""
    X, S = _data(n=40)
    centred = X.copy()
    for group in np.unique(S):
        centred[S == group] += X.mean(axis=0) - X[S == group].mean(axis=0)
    Z = ObliviousFeatures(kernel="linear", n_components=40).fit_transform(X, sensitive_features=S)
    np.testing.assert_allclose(Z @ Z.T, centred @ centred.T, atol=1e-8)


def test_oblivious_features_have_equal_cell_means_in_sample():
    X, S = _data(n=300)
    for approximation in ("nystroem", "rff"):
        Z = ObliviousFeatures(
            gamma=0.3, n_components=40, approximation=approximation, random_state=0
        ).fit_transform(X, sensitive_features=S)
        means = np.array([Z[S == g].mean(axis=0) for g in np.unique(S)])
        np.testing.assert_allclose(means, np.broadcast_to(Z.mean(axis=0), means.shape), atol=1e-10)


def test_m_oblivious_variant_trains_on_plain_features():
    X, S = _data()
    features = ObliviousFeatures(gamma=0.3, n_components=30, variant="m_oblivious", random_state=0)
    plain = features.fit_transform(X, sensitive_features=S)
    np.testing.assert_allclose(plain, features.plain_transform(X), atol=1e-12)
    oblivious = ObliviousFeatures(gamma=0.3, n_components=30, random_state=0)
    np.testing.assert_allclose(
        features.transform(X, sensitive_features=S),
        oblivious.fit_transform(X, sensitive_features=S),
        atol=1e-12,
    )


def test_single_group_is_plain_features():
    X, _ = _data()
    features = ObliviousFeatures(gamma=0.3, n_components=20, random_state=0).fit(X)
    np.testing.assert_allclose(features.transform(X), features.plain_transform(X), atol=1e-12)


def test_errors_name_the_parameter():
    X, S = _data()
    with pytest.raises(ValueError, match="approximation"):
        ObliviousFeatures(approximation="svd").fit(X, sensitive_features=S)
    with pytest.raises(ValueError, match="variant"):
        ObliviousFeatures(variant="plain").fit(X, sensitive_features=S)
    with pytest.raises(ValueError, match="n_components"):
        ObliviousFeatures(n_components=0).fit(X, sensitive_features=S)
    with pytest.raises(ValueError, match="rff"):
        ObliviousFeatures(kernel="linear", approximation="rff").fit(X, sensitive_features=S)
    fitted = ObliviousFeatures(n_components=10).fit(X, sensitive_features=S)
    with pytest.raises(ValueError, match="sensitive_features are required"):
        fitted.transform(X)
    with pytest.warns(UserWarning, match="n_components"):
        ObliviousFeatures(n_components=500).fit(X, sensitive_features=S)


def test_pipeline_and_grid_search_route_sensitive_features():
    """Metadata routing: S reaches the transformer in fit, predict and GridSearchCV's scoring."""
    rng = np.random.default_rng(0)
    S = rng.integers(0, 2, 200)
    X = S[:, None] + rng.normal(size=(200, 2))
    y = (X[:, 0] + rng.normal(size=200) > 0.5).astype(int)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(
            ObliviousFeatures(gamma=0.5, n_components=50, random_state=0), LinearSVC()
        )
        pipe.fit(X, y, sensitive_features=S)
        manual = ObliviousFeatures(gamma=0.5, n_components=50, random_state=0)
        svm = LinearSVC().fit(manual.fit_transform(X, sensitive_features=S), y)
        np.testing.assert_array_equal(
            pipe.predict(X, sensitive_features=S),
            svm.predict(manual.transform(X, sensitive_features=S)),
        )
        search = GridSearchCV(pipe, {"linearsvc__C": [0.1, 1.0]}, cv=3, error_score="raise")
        search.fit(X, y, sensitive_features=S)
        assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
        assert search.best_estimator_.predict(X, sensitive_features=S).shape == (200,)
        ferm = make_pipeline(FERMFeatures(gamma=0.5, n_components=50, random_state=0), LinearSVC())
        ferm.fit(X, y, sensitive_features=S)
        assert ferm[0].direction_ is not None


def test_landmark_pool_makes_learner_rows_exact():
    """Algorithm 1's split: estimation half for the means, landmarks from both halves."""
    X, S = _data(n=80)
    learn, estimate = slice(0, 40), slice(40, None)
    exact = ObliviousKernel(gamma=0.3).fit(X[estimate], sensitive_features=S[estimate])
    features = ObliviousFeatures(gamma=0.3, n_components=80, random_state=0).fit(
        X[estimate], sensitive_features=S[estimate], landmarks=X
    )
    Z = features.transform(X[learn], sensitive_features=S[learn])
    np.testing.assert_allclose(Z @ Z.T, exact.gram(X[learn], S[learn]), atol=1e-8)
    with pytest.raises(ValueError, match="landmarks"):
        features.fit(X, sensitive_features=S, landmarks=X[:, :2])


# ---------------------------------------------------------------------------------------------
# extreme scales


def _extreme_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    return X, rng.integers(0, 2, 40), np.where(rng.random(40) > 0.5, 1, -1)


@pytest.mark.filterwarnings("ignore::krepro.kernels.DegenerateKernelWarning")
@pytest.mark.parametrize(("scale", "gamma"), [(1e160, 1.0), (1e300, 1e-300), (1.0, 1.7e308)])
def test_nystroem_features_are_finite_at_extreme_scales(scale, gamma):
    # Before: the landmark Gram matrix held NaN and the SVD raised "array must not contain
    # infs or NaNs"; now K(L, L) = I and every landmark's feature is a unit vector.
    X, s, y = _extreme_data()
    X = X * scale
    Z = ObliviousFeatures(gamma=gamma, n_components=40).fit_transform(X, sensitive_features=s)
    assert np.isfinite(Z).all()
    plain = ObliviousFeatures(gamma=gamma, n_components=40).fit(X).plain_transform(X)
    np.testing.assert_allclose(plain @ plain.T, np.eye(40), atol=1e-12)
    F = FERMFeatures(gamma=gamma, n_components=20, random_state=0)
    assert np.isfinite(F.fit_transform(X, y, sensitive_features=s)).all()
    assert np.isfinite(F.transform(X)).all()


def test_random_fourier_features_at_the_largest_gamma_are_finite():
    # Before: RBFSampler's frequencies sqrt(2 gamma) N(0, 1) were infinite (2 gamma overflows)
    # and every feature was NaN. The frequencies are drawn at gamma / 4 and doubled.
    X, s, _ = _extreme_data()
    features = ObliviousFeatures(
        gamma=1.7e308, n_components=30, approximation="rff", random_state=0
    )
    Z = features.fit(X * 1e-300, sensitive_features=s).plain_transform(X * 1e-300)
    assert np.isfinite(Z).all()
    weights = features.feature_map_.sampler_.random_weights_
    assert np.isfinite(weights).all()
    # sqrt(2 * 1.7e308) N(0, 1): the same law (90 draws: the standard deviation within 20 %)
    expected = np.sqrt(2.0) * np.sqrt(1.7e308) / 1e154
    assert np.std(weights / 1e154) == pytest.approx(expected, rel=0.2)


def test_random_fourier_features_whose_projections_overflow_raise_naming_x():
    X, s, _ = _extreme_data()
    # frequencies ~1e50 times points ~1e300: projections beyond the float64 range
    features = ObliviousFeatures(gamma=1e100, n_components=30, approximation="rff", random_state=0)
    features.fit(X, sensitive_features=s)
    with pytest.raises(ValueError, match="random Fourier features of X"):
        features.transform(X * 1e300, sensitive_features=s)
