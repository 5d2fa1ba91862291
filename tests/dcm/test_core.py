"""The fast standard path of DCM, DICA and COIR equals the previous (dense) path.

The previous path: kernel PCA by one full ``dsyevd`` (``eigensolver="dense"``) and an exact
RBF target kernel through one N×N Cholesky solve (``LOWRANK_MAX_FRACTION`` < 0 forces it).
The fast path computes only the kept eigenvectors (:func:`krepro.spectral.top_eigh`) and
factors the RBF target by a pivoted Cholesky. Both are exact up to round-off, so projections
must agree to 1e-6 (measured: ≤ 1e-9 here and on the Parkinson's split, N = 4144) with the
same kernel-PCA rank and the same number of informative components.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from krepro.dcm import COIR, DCM, DICA, FastDCM
from krepro.dcm import core as dcm_core
from krepro.dcm.core import ExactFeatureMap, output_factor
from tests.concurrency import hammer


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1):
        yield


def small_problem(n=80, seed=0):
    """N = 80, 4 classes, 3 domains, a continuous target; no truncation at 1e-14."""
    rng = np.random.default_rng(seed)
    domains = np.arange(n) % 3
    X = rng.normal(size=(n, 3)) + 0.5 * domains[:, None]
    target = X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=n)
    labels = np.digitize(target, [-1.0, 0.0, 1.0])
    return X, labels, target, domains, rng.normal(size=(15, 3))


def truncated_problem(n=420, dim=8, seed=7):
    """6 domains with different scales; RBF γ = 0.003 and rank_tol = 1e-6 keep 180 of 420
    kernel-PCA directions, and the projections depend on that cut-off
    (:func:`test_the_truncated_problem_depends_on_the_cut_off`)."""
    rng = np.random.default_rng(seed)
    domains = np.repeat(np.arange(6), n // 6)
    X = rng.normal(size=(n, dim)) * rng.uniform(0.5, 2.0, size=(6, dim))[domains]
    target = X[:, 0] + np.sin(X[:, 1]) + 0.3 * rng.normal(size=n)
    return X, target, domains, rng.normal(size=(50, dim))


def fit_both(factory, X, y, domains, monkeypatch):
    """(fast path, previous path) fitted on the same data."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # fewer informative components
        fast = factory(eigensolver="partial").fit(X, y, domains=domains)
        with monkeypatch.context() as patch:
            patch.setattr(dcm_core, "LOWRANK_MAX_FRACTION", -1.0)
            previous = factory(eigensolver="dense").fit(X, y, domains=domains)
    return fast, previous


def assert_same_fit(fast, previous, X, X_test, atol=1e-6):
    assert fast.feature_map_.rank == previous.feature_map_.rank
    assert fast.n_components_ == previous.n_components_
    np.testing.assert_allclose(fast.eigenvalues_, previous.eigenvalues_, rtol=1e-9)
    for data in (X, X_test):
        np.testing.assert_allclose(fast.transform(data), previous.transform(data), atol=atol)
    # Components live in feature-map coordinates, whose columns have arbitrary signs.
    signs = np.sign(np.sum(fast.feature_map_.F * previous.feature_map_.F, axis=0))
    scale = np.abs(previous.components_).max()
    np.testing.assert_allclose(
        fast.components_ * signs[:, None], previous.components_, atol=atol * scale
    )


SMALL_MODELS = [
    pytest.param(lambda **kw: DCM(3, **kw), "labels", id="DCM"),
    pytest.param(lambda **kw: DCM(3, regularize=False, **kw), "labels", id="DCM-eq12"),
    pytest.param(lambda **kw: DCM(3, center=False, **kw), "labels", id="DCM-uncentred"),
    pytest.param(
        lambda **kw: DCM(3, target_kernel="rbf", target_gamma=0.5, **kw), "target", id="DCM-rbf"
    ),
    pytest.param(lambda **kw: DICA(3, **kw), "labels", id="DICA"),
    pytest.param(lambda **kw: DICA(3, supervised=False, **kw), "labels", id="uDICA"),
    pytest.param(lambda **kw: COIR(3, **kw), "labels", id="COIR"),
    pytest.param(
        lambda **kw: COIR(3, target_kernel="rbf", target_gamma=0.5, **kw), "target", id="COIR-rbf"
    ),
]


@pytest.mark.parametrize(("factory", "kind"), SMALL_MODELS)
def test_fast_path_equals_previous_path_on_a_small_problem(factory, kind, monkeypatch):
    X, labels, target, domains, X_test = small_problem()
    y = labels if kind == "labels" else target

    def model(**kw):
        return factory(gamma=2.0, epsilon=1e-3, rank_tol=1e-14, **kw)

    fast, previous = fit_both(model, X, y, domains, monkeypatch)
    assert_same_fit(fast, previous, X, X_test)


TRUNCATED_MODELS = [
    pytest.param(lambda **kw: DCM(3, **kw), id="DCM"),
    pytest.param(lambda **kw: DCM(3, regularize=False, **kw), id="DCM-eq12"),
    pytest.param(lambda **kw: DCM(3, center=False, **kw), id="DCM-uncentred"),
    pytest.param(lambda **kw: DICA(3, **kw), id="DICA"),
    pytest.param(lambda **kw: COIR(3, **kw), id="COIR"),
]


@pytest.mark.parametrize("factory", TRUNCATED_MODELS)
def test_fast_path_equals_previous_path_when_the_truncation_rank_matters(factory, monkeypatch):
    X, target, domains, X_test = truncated_problem()
    common = {"gamma": 0.003, "epsilon": 1e-3, "target_kernel": "rbf", "target_gamma": 0.5}

    def model(rank_tol=1e-6, **kw):
        return factory(rank_tol=rank_tol, **common, **kw)

    fast, previous = fit_both(model, X, target, domains, monkeypatch)
    assert 0 < fast.feature_map_.rank < len(X) // 2
    assert_same_fit(fast, previous, X, X_test)


def test_the_truncated_problem_depends_on_the_cut_off():
    """The problem above is sensitive to the cut-off: moving rank_tol from 1e-6 to 1e-7
    (rank 180 → 263) moves eq. (12)'s projections by > 0.01, ten thousand times the
    tolerance the fast path is held to."""
    X, target, domains, X_test = truncated_problem()
    common = {"gamma": 0.003, "epsilon": 1e-3, "target_kernel": "rbf", "target_gamma": 0.5}
    fits = {
        tol: DCM(3, regularize=False, rank_tol=tol, eigensolver="dense", **common).fit(
            X, target, domains=domains
        )
        for tol in (1e-6, 1e-7)
    }
    assert fits[1e-6].feature_map_.rank == 180
    assert fits[1e-7].feature_map_.rank == 263
    moved = np.abs(fits[1e-6].transform(X_test) - fits[1e-7].transform(X_test)).max()
    assert moved > 1e-2


def test_rbf_target_uses_a_low_rank_factor_unless_its_rank_is_high(monkeypatch):
    _, target, _, _ = truncated_problem()
    kind, G = output_factor(target, "rbf", 0.5)
    assert kind == "lowrank" and G.shape[1] < 60  # smooth kernel on a scalar
    np.testing.assert_allclose(G.mean(axis=0), 0.0, atol=1e-12)  # centred: H G
    kind, _ = output_factor(target, "rbf", 1e6)  # ~ identity: full rank, N×N path
    assert kind == "full"
    with monkeypatch.context() as patch:
        patch.setattr(dcm_core, "LOWRANK_MAX_FRACTION", -1.0)
        assert output_factor(target, "rbf", 0.5)[0] == "full"


@pytest.mark.parametrize(
    "factory",
    [
        lambda: DCM(2, gamma=0.5),
        lambda: DCM(2, gamma=0.5, eigensolver="dense"),
        lambda: FastDCM(2, gamma=0.5, n_landmarks=20, random_state=0),
        lambda: FastDCM(2, gamma=0.5, n_landmarks=20, random_state=0, solver="paper"),
    ],
)
def test_training_projection_from_the_factor_equals_transform(factory):
    """fit scales and signs the directions on ``F W``; ``transform(X_train)`` recomputes the
    kernel: unit variance and the sign rule hold for it to round-off."""
    X, labels, _, domains, _ = small_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        Z = factory().fit(X, labels, domains=domains).transform(X)
    np.testing.assert_allclose(Z.std(axis=0), 1.0, atol=1e-9)
    assert np.all(Z[np.argmax(np.abs(Z), axis=0), np.arange(Z.shape[1])] > 0)


def test_eigensolver_is_validated_and_keys_the_shared_feature_map():
    X, labels, _, domains, _ = small_problem()
    with pytest.raises(ValueError, match="eigensolver"):
        DCM(eigensolver="lanczos").fit(X, labels, domains=domains)
    keys = {
        DCM(eigensolver=s, gamma=2.0).fit(X, labels, domains=domains).feature_map_key_
        for s in ("partial", "dense")
    }
    assert len(keys) == 2


def test_feature_cache_is_keyed_by_content_read_only_and_not_pickled():
    X, labels, _, domains, X_test = small_problem()
    fmap = DCM(gamma=2.0).fit(X, labels, domains=domains).feature_map_
    first = fmap.features(X_test)
    assert fmap.features(X_test.copy()) is first  # same content: computed once
    assert not first.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        first[0, 0] = 0.0
    moved = X_test.copy()
    moved[0, 0] += 1e-3
    changed = fmap.features(moved)
    assert not np.allclose(changed[0], first[0])
    np.testing.assert_allclose(changed[1:], first[1:], rtol=0, atol=1e-12)
    fmap.features(X)  # a third input evicts the oldest
    assert len(fmap._features) == fmap.cache_size
    fresh = ExactFeatureMap(X, fmap.kernel_params, center=True, rank_tol=1e-8)  # DCM default
    np.testing.assert_array_equal(fresh.features(X_test), first)
    restored = pickle.loads(pickle.dumps(fmap))
    assert "_features" not in restored.__dict__
    np.testing.assert_array_equal(restored.features(X_test), first)


def test_feature_cache_is_safe_to_share_between_threads():
    # Before: two threads evicting from the feature cache at once raised KeyError (or
    # "dictionary changed size during iteration") in ExactFeatureMap.features.
    X, labels, _, domains, _ = small_problem()
    model = DCM(gamma=2.0).fit(X, labels, domains=domains)
    rng = np.random.default_rng(1)
    batches = [rng.normal(size=(1, 3)) for _ in range(5)]  # more than the cache keeps (2)
    expected = [model.transform(batch) for batch in batches]
    mismatches = []

    def work(index):
        for step in range(400):
            k = (index + step) % len(batches)
            if not np.array_equal(model.transform(batches[k]), expected[k]):
                mismatches.append(k)

    assert hammer(work, 6) == []
    assert mismatches == []
