"""StreamingObliviousRidge: the one-pass sums give the in-memory ridge on oblivious features."""

import itertools

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from krepro import StreamingObliviousRidge
from krepro.fairness.oblivious_features import KernelFeatureMap, ObliviousFeatures


def _data(n=3000, seed=0, finite=False):
    rng = np.random.default_rng(seed)
    S = rng.integers(0, 3, n).astype(float) if finite else rng.uniform(size=n)
    X = S[:, None] + rng.normal(size=(n, 3))
    y = np.sin(X[:, 0]) + S + 0.1 * rng.normal(size=n)
    return X, y, S


DYADIC = {"partition": "dyadic", "partition_bounds": (0, 1), "cells_per_axis": 8}
FEATURES = {"gamma": 0.3, "n_components": 150, "random_state": 0}


def _in_memory(X, y, S, alpha, **params):
    features = ObliviousFeatures(**FEATURES, **params)
    Z = features.fit_transform(X, sensitive_features=S)
    return features, Ridge(alpha=alpha).fit(Z, y)


@pytest.mark.parametrize(("finite", "params"), [(False, DYADIC), (True, {})])
@pytest.mark.parametrize("alpha", [1e-3, 1.0, 100.0])
def test_streamed_fit_equals_ridge_on_the_in_memory_oblivious_features(finite, params, alpha):
    X, y, S = _data(finite=finite)
    features, ridge = _in_memory(X, y, S, alpha, **params)
    model = StreamingObliviousRidge(alpha=alpha, block_rows=700, **FEATURES, **params)
    model.fit(X, y, sensitive_features=S)
    scale = np.abs(ridge.coef_).max()
    np.testing.assert_allclose(model.coef_, ridge.coef_, atol=1e-9 * scale, rtol=0)
    assert model.intercept_ == pytest.approx(ridge.intercept_, abs=1e-9)
    np.testing.assert_allclose(model.cell_means_, features.cell_means_, atol=1e-12)
    np.testing.assert_allclose(model.mean_, features.mean_, atol=1e-12)
    X_new, _, S_new = _data(n=200, seed=1, finite=finite)
    expected = ridge.predict(features.transform(X_new, sensitive_features=S_new))
    np.testing.assert_allclose(
        model.predict(X_new, sensitive_features=S_new), expected, atol=1e-9, rtol=0
    )


def test_partial_fit_in_any_blocks_equals_fit_with_the_same_landmark_pool():
    X, y, S = _data()
    whole = StreamingObliviousRidge(**FEATURES, **DYADIC).fit(X, y, sensitive_features=S)
    for edges in ([0, 1000, 3000], [0, 17, 2500, 2999, 3000]):
        model = StreamingObliviousRidge(**FEATURES, **DYADIC, block_rows=256)
        for i, (a, b) in enumerate(itertools.pairwise(edges)):
            extra = {"landmarks": X} if i == 0 else {}
            model.partial_fit(X[a:b], y[a:b], sensitive_features=S[a:b], **extra)
        assert model.n_samples_seen_ == 3000
        np.testing.assert_allclose(model.coef_, whole.coef_, atol=1e-10 * np.abs(whole.coef_).max())
        assert model.intercept_ == pytest.approx(whole.intercept_, abs=1e-10)


def test_without_sensitive_features_it_is_ridge_on_the_plain_features():
    X, y, _ = _data()
    model = StreamingObliviousRidge(**FEATURES).fit(X, y)
    F = KernelFeatureMap(gamma=0.3, n_components=150, random_state=0).fit(X).transform(X)
    ridge = Ridge(alpha=1.0).fit(F, y)
    np.testing.assert_allclose(model.predict(X[:50]), ridge.predict(F[:50]), atol=1e-9)


def test_in_cell_means_of_predictions_are_equal_on_the_fit_rows():
    # the paper's in-sample identity: every cell mean of ⟨h, z⟩ is the overall mean
    X, y, S = _data(finite=True)
    model = StreamingObliviousRidge(**FEATURES).fit(X, y, sensitive_features=S)
    predictions = model.predict(X, sensitive_features=S)
    means = [predictions[S == value].mean() for value in np.unique(S)]
    np.testing.assert_allclose(means, predictions.mean(), atol=1e-9)


def test_bad_input_is_named():
    X, y, S = _data(finite=True)
    model = StreamingObliviousRidge(**FEATURES).partial_fit(
        X[:200], y[:200], sensitive_features=S[:200]
    )
    with pytest.raises(ValueError, match="never seen in fit"):
        model.partial_fit(X[:3], y[:3], sensitive_features=[0.0, 7.0, 1.0])
    with pytest.raises(ValueError, match="sensitive_features are required"):
        model.partial_fit(X[:3], y[:3])
    with pytest.raises(ValueError, match="landmarks"):
        model.partial_fit(X[:3], y[:3], sensitive_features=S[:3], landmarks=X)
    with pytest.raises(ValueError, match="X has 2 features"):
        model.partial_fit(X[:3, :2], y[:3], sensitive_features=S[:3])
    with pytest.raises(ValueError, match="landmarks must be a 2-d array with 3 columns"):
        StreamingObliviousRidge().partial_fit(X, y, sensitive_features=S, landmarks=X[:, :2])
    with pytest.raises(ValueError, match="partition box"):
        StreamingObliviousRidge(**DYADIC).fit(X, y, sensitive_features=S + 5)
    with pytest.raises(ValueError, match="'block_rows' parameter"):
        StreamingObliviousRidge(block_rows=0).fit(X, y)
    one_group = StreamingObliviousRidge(**FEATURES).fit(X, y)
    with pytest.raises(ValueError, match="sensitive_features given, but the model was fitted"):
        one_group.predict(X[:3], sensitive_features=S[:3])
