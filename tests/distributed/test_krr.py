"""Distributed KRR (krepro.distributed.krr) against naive oracles."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import Matern
from sklearn.kernel_ridge import KernelRidge
from sklearn.utils.estimator_checks import parametrize_with_checks

from krepro.distributed import DistributedKernelRidge, local_predictions_nested, partition_bounds


def krr_blocks(X, y, n_partitions, rho, nu=3.5):
    """Eq. (4) with one sklearn KernelRidge per contiguous block (alpha = n_p * rho)."""
    bounds = partition_bounds(len(X), n_partitions)
    kernel = Matern(nu=nu, length_scale=1.0)
    models = []
    for start, stop in itertools.pairwise(bounds):
        block = X[start:stop]
        model = KernelRidge(alpha=(stop - start) * rho, kernel="precomputed")
        models.append((block, model.fit(kernel(block), y[start:stop])))
    return lambda Z: np.array([m.predict(kernel(Z, block)) for block, m in models])


def sample(rng, n, d=1):
    X = rng.uniform(size=(n, d))
    y = np.sin(2 * np.pi * X[:, 0]) + rng.normal(scale=0.5, size=n)
    return X, y


# --------------------------------------------------------------------------- estimator


# The default (Matérn, 1-d inputs): the O(n) recursions; an RBF kernel: the dense local solves.
@parametrize_with_checks(
    [DistributedKernelRidge(), DistributedKernelRidge(n_partitions=1, kernel="rbf")]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("rho", [1e-2, 1e-4])
@pytest.mark.parametrize("d", [1, 2])
def test_one_partition_is_kernel_ridge(rho, d):
    # The paper's normalisation (eq. (14)): (K + n rho I) alpha = y, i.e. alpha = n * rho.
    rng = np.random.default_rng(0)
    X, y = sample(rng, 300, d)
    Z = rng.uniform(size=(50, d))
    ours = DistributedKernelRidge(n_partitions=1, rho=rho).fit(X, y)
    ref = KernelRidge(alpha=300 * rho, kernel="precomputed").fit(Matern(nu=3.5)(X), y)
    expected = ref.predict(Matern(nu=3.5)(Z, X))
    np.testing.assert_allclose(ours.predict(Z), expected, rtol=0, atol=1e-8)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=1e-8, atol=1e-8)


def test_average_of_block_fits_with_unequal_blocks():
    rng = np.random.default_rng(1)
    X, y = sample(rng, 203)  # 203 = 7 blocks of 29: sizes 29; 5 blocks: 40 or 41
    Z = rng.uniform(size=(17, 1))
    for n_partitions in (5, 7):
        model = DistributedKernelRidge(n_partitions=n_partitions, rho=1e-3).fit(X, y)
        expected = krr_blocks(X, y, n_partitions, 1e-3)(Z)
        local = model.predict_local(Z)
        np.testing.assert_allclose(local, expected, rtol=0, atol=1e-8)
        np.testing.assert_allclose(model.predict(Z), expected.mean(axis=0), atol=1e-8)


def test_partition_bounds_and_errors():
    np.testing.assert_array_equal(partition_bounds(10, 3), [0, 3, 6, 10])
    np.testing.assert_array_equal(partition_bounds(8, 4), [0, 2, 4, 6, 8])
    with pytest.raises(ValueError, match="n_samples = 3"):
        DistributedKernelRidge(n_partitions=4).fit(np.ones((3, 1)), np.ones(3))
    with pytest.raises(ValueError, match="n_partitions must be a positive integer"):
        partition_bounds(4, 0)


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"rho": 0.0}, "rho"),
        ({"rho": -1e-3}, "rho"),
        ({"n_partitions": 0}, "n_partitions"),
        ({"n_partitions": 2.5}, "n_partitions"),
        ({"kernel": "laplacian"}, "kernel"),
        ({"kernel": "rbf", "gamma": 0.0}, "gamma"),
        ({"kernel": "rbf", "gamma": -2.0}, "gamma"),
        ({"kernel": "poly", "degree": 0}, "degree"),
        ({"kernel_params": [("nu", 3.5)]}, "kernel_params"),
    ],
)
def test_bad_hyperparameters_raise_naming_the_parameter(params, name):
    # scikit-learn's InvalidParameterError is a ValueError naming the parameter.
    with pytest.raises(ValueError, match=rf"'{name}' parameter of DistributedKernelRidge"):
        DistributedKernelRidge(**params).fit(np.eye(8), np.ones(8))


@pytest.mark.parametrize(
    ("kernel_params", "match"),
    [({"length_scale": 0.0}, "length_scale"), ({"length_scale": -1.0}, "length_scale"),
     ({"nu": 2.0}, "nu")],
)  # fmt: skip
def test_bad_matern_parameters_raise_naming_the_parameter(kernel_params, match):
    with pytest.raises(ValueError, match=match):
        DistributedKernelRidge(kernel_params=kernel_params).fit(np.eye(8), np.ones(8))


def test_kernel_parameters_reach_gram():
    rng = np.random.default_rng(2)
    X, y = sample(rng, 60)
    model = DistributedKernelRidge(
        n_partitions=1, rho=1e-2, kernel_params={"nu": 1.5, "length_scale": 0.3}
    ).fit(X, y)
    ref = KernelRidge(alpha=0.6, kernel="precomputed")
    kernel = Matern(nu=1.5, length_scale=0.3)
    expected = ref.fit(kernel(X), y).predict(kernel(X[:5], X))
    np.testing.assert_allclose(model.predict(X[:5]), expected, atol=1e-9)
    rbf = DistributedKernelRidge(n_partitions=2, kernel="rbf", gamma=3.0).fit(X, y)
    assert rbf.predict(X[:3]).shape == (3,)


# --------------------------------------------------------------------------- fast paths


def test_nested_local_predictions_equal_the_estimator():
    rng = np.random.default_rng(4)
    x = rng.uniform(size=512)
    y = np.sin(2 * np.pi * x) + np.exp(2 * np.abs(x - 0.5)) * rng.normal(size=512)
    targets = rng.uniform(size=16)
    rho = 1e-3 * 512 ** (-6 / 7)  # the paper's tiny penalty: condition numbers ~1e6
    nested = local_predictions_nested(x, y, targets, [4, 8, 32, 128], rho)
    for p, local in nested.items():
        model = DistributedKernelRidge(n_partitions=p, rho=rho).fit(x[:, None], y)
        expected = model.predict_local(targets[:, None])
        scale = np.abs(expected).max()
        np.testing.assert_allclose(local, expected, rtol=0, atol=1e-8 * scale)


def test_nested_partitions_are_checked():
    x = np.linspace(0, 1, 48)
    with pytest.raises(ValueError, match="multiple of the smallest"):
        local_predictions_nested(x, x, x[:3], [4, 6], 1e-3)
    with pytest.raises(ValueError, match="divide N"):
        local_predictions_nested(x, x, x[:3], [5, 10], 1e-3)


def test_predict_band_with_one_partition_names_it():
    X = np.linspace(0, 1, 20)[:, None]
    model = DistributedKernelRidge(n_partitions=1).fit(X, np.sin(X[:, 0]))
    with pytest.raises(ValueError, match="at least 2 partitions"):
        model.predict_band(X[:3], n_resamples=10)


# --------------------------------------------------------------------------- extreme scales


@pytest.mark.filterwarnings("ignore::krepro.kernels.DegenerateKernelWarning")
@pytest.mark.parametrize(
    ("kernel", "params"),
    [
        ("rbf", {"gamma": 1.0}),
        ("rbf", {"gamma": 1.7e308}),
        ("matern", {"kernel_params": {"length_scale": 1e300}}),
        ("matern", {"kernel_params": {"length_scale": 5e-324}}),
    ],
)
@pytest.mark.parametrize("scale", [1e-300, 1e154, 1e300])
def test_predictions_are_finite_at_extreme_scales(kernel, params, scale):
    # Before: NaN in the local Gram matrices ("array must not contain infs or NaNs" from
    # the Cholesky factorisation) for inputs of magnitude 1e154 and beyond, gamma = 1.7e308
    # or a subnormal length scale, and a kernel value of 0 instead of 1 where cdist's squares
    # overflowed with a huge length scale (a matrix that was not positive definite).
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)) * scale, rng.normal(size=40)
    model = DistributedKernelRidge(kernel=kernel, n_partitions=2, **params).fit(X, y)
    assert np.isfinite(model.predict(X)).all()
    assert np.isfinite(model.predict_local(X[:5])).all()


def test_overflowing_linear_kernel_is_an_error_naming_x():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 3)) * 1e160, rng.normal(size=20)
    with pytest.raises(ValueError, match="linear kernel matrix of X"):
        DistributedKernelRidge(kernel="linear", n_partitions=2).fit(X, y)


@pytest.mark.parametrize(("scale", "length_scale"), [(1.0, 5e-324), (1e300, 1e-300), (1e300, 1.0)])
def test_nested_predictions_fall_back_to_the_dense_solver_where_positions_overflow(
    scale, length_scale
):
    # Before: the state-space recursion formed gaps of inf or inf - inf and returned NaN.
    rng = np.random.default_rng(1)
    x, y = np.sort(rng.uniform(-1, 1, size=32)) * scale, rng.normal(size=32)
    targets = np.linspace(-1, 1, 5) * scale
    got = local_predictions_nested(x, y, targets, [2, 4], 0.01, nu=2.5, length_scale=length_scale)
    dense = local_predictions_nested(
        x, y, targets, [2, 4], 0.01, nu=2.5, length_scale=length_scale, solver="dense"
    )
    for p in (2, 4):
        assert np.isfinite(got[p]).all()
        np.testing.assert_array_equal(got[p], dense[p])
