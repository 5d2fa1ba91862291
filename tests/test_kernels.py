"""Tests of :mod:`krepro.kernels` against scikit-learn and naive loops."""

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import Matern
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from krepro.kernels import MATERN_ORDERS, gram, kernel_params, matern_1d, rbf_1d, rbf_gram


def _points(seed, n=9, d=3, shift=0.0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) + shift


def _naive(X, Y, k):
    return np.array([[k(x, y) for y in Y] for x in X])


# Round-off of an O(1)-O(100) kernel value evaluated in a different summation order.
TOL = 1e-12


@pytest.mark.parametrize(
    ("kernel", "params", "reference", "pointwise"),
    [
        ("linear", {}, lambda X, Y: linear_kernel(X, Y), lambda x, y: x @ y),
        (
            "poly",
            {"gamma": 0.3, "degree": 3, "coef0": 0.7},
            lambda X, Y: polynomial_kernel(X, Y, degree=3, gamma=0.3, coef0=0.7),
            lambda x, y: (0.3 * (x @ y) + 0.7) ** 3,
        ),
        (
            "polynomial",
            {"gamma": 1.2, "degree": 2, "coef0": 0.0},
            lambda X, Y: polynomial_kernel(X, Y, degree=2, gamma=1.2, coef0=0.0),
            lambda x, y: (1.2 * (x @ y)) ** 2,
        ),
        (
            "rbf",
            {"gamma": 0.4},
            lambda X, Y: rbf_kernel(X, Y, gamma=0.4),
            lambda x, y: np.exp(-0.4 * np.sum((x - y) ** 2)),
        ),
        (
            # gamma=None means 1 / n_features (= 1/3 here), as in scikit-learn.
            "rbf",
            {},
            lambda X, Y: rbf_kernel(X, Y),
            lambda x, y: np.exp(-np.sum((x - y) ** 2) / 3.0),
        ),
    ],
)
def test_gram_matches_sklearn_and_loop(kernel, params, reference, pointwise):
    X, Y = _points(0), _points(1, n=5)
    K = gram(X, Y, kernel, **params)
    assert K.shape == (9, 5)
    np.testing.assert_allclose(K, reference(X, Y), rtol=TOL, atol=TOL)
    np.testing.assert_allclose(K, _naive(X, Y, pointwise), rtol=TOL, atol=TOL)
    np.testing.assert_allclose(gram(X, None, kernel, **params), _naive(X, X, pointwise), atol=TOL)


def test_one_dimensional_input_is_one_feature():
    x = np.linspace(-1.0, 1.0, 6)
    K = gram(x, kernel="rbf", gamma=2.0)
    expected = np.exp(-2.0 * (x[:, None] - x[None, :]) ** 2)
    np.testing.assert_allclose(K, expected, atol=TOL)


@pytest.mark.parametrize("nu", MATERN_ORDERS)
@pytest.mark.parametrize("length_scale", [0.6, 1.0, 2.5])
def test_matern_matches_sklearn(nu, length_scale):
    X = _points(2, n=12, shift=4.0)
    # Y shares rows with X (distance exactly 0, as for test points equal to training points)
    # and has points close to X, where the distance must be computed accurately.
    rng = np.random.default_rng(3)
    Y = np.vstack([X[:4].copy(), X[4:7] + 1e-6 * rng.normal(size=(3, 3)), _points(4, n=5)])
    reference = Matern(nu=nu, length_scale=length_scale)
    # Both sides evaluate the same closed form; 1e-12 leaves room only for round-off.
    np.testing.assert_allclose(
        gram(X, Y, "matern", nu=nu, length_scale=length_scale), reference(X, Y), rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(
        gram(X, None, "matern", nu=nu, length_scale=length_scale), reference(X), rtol=0, atol=1e-12
    )


def test_matern_defaults_are_nu_1_5_unit_length_scale():
    X = _points(5)
    np.testing.assert_allclose(
        gram(X, kernel="matern"), Matern(nu=1.5, length_scale=1.0)(X), atol=1e-12
    )


def test_matern_7_2_closed_form_value():
    value = gram([[0.0]], [[np.sqrt(2.0)]], "matern", nu=3.5, length_scale=1.0)[0, 0]
    assert round(float(value), 6) == 0.328067
    # The length scale rescales the distance: k(r; l) = k(r / l; 1).
    scaled = gram([[0.0]], [[3.0 * np.sqrt(2.0)]], "matern", nu=3.5, length_scale=3.0)[0, 0]
    assert scaled == pytest.approx(value, abs=1e-14)  # same arithmetic up to one rounding


def test_delta_kernel_equals_loop():
    rng = np.random.default_rng(6)
    X = rng.integers(0, 2, size=(15, 2)).astype(float)
    Y = rng.integers(0, 2, size=(7, 2)).astype(float)
    expected = np.zeros((15, 7))
    for i in range(15):
        for j in range(7):
            expected[i, j] = 1.0 if all(X[i, k] == Y[j, k] for k in range(2)) else 0.0
    K = gram(X, Y, "delta")
    np.testing.assert_array_equal(K, expected)
    assert 0 < K.sum() < K.size  # both outcomes occur, so the comparison is informative


def test_kernel_params_keeps_only_accepted_parameters():
    assert kernel_params("rbf", gamma=0.5, degree=4, coef0=2.0) == {"gamma": 0.5}
    assert kernel_params("linear", gamma=0.5) == {}
    assert kernel_params("poly", gamma=None, degree=2, coef0=0.5) == {"degree": 2, "coef0": 0.5}
    assert kernel_params("matern", kernel_params={"nu": 2.5}) == {"nu": 2.5}


def test_unknown_kernel_raises():
    with pytest.raises(ValueError, match="laplacian"):
        gram(np.ones((2, 1)), kernel="laplacian")


@pytest.mark.parametrize(
    ("kernel", "params", "bad"),
    [
        ("linear", {"gamma": 1.0}, "gamma"),
        ("rbf", {"degree": 2}, "degree"),
        ("delta", {"nu": 1.5}, "nu"),
    ],
)
def test_unknown_parameter_raises(kernel, params, bad):
    with pytest.raises(ValueError, match=bad):
        gram(np.ones((2, 1)), kernel=kernel, **params)


@pytest.mark.parametrize("nu", [1.0, 2.0, 4.5])
def test_wrong_matern_order_raises(nu):
    with pytest.raises(ValueError, match=rf"got {nu!r}"):
        gram(np.ones((2, 1)), kernel="matern", nu=nu)


def test_nonpositive_length_scale_raises():
    with pytest.raises(ValueError, match=r"-1\.0"):
        gram(np.ones((2, 1)), kernel="matern", length_scale=-1.0)


def test_feature_mismatch_raises():
    with pytest.raises(ValueError, match="2 and 3"):
        gram(np.ones((2, 2)), np.ones((2, 3)), kernel="linear")


def test_delta_kernel_compares_labels_of_any_type():
    # Categorical responses (e.g. string classes of a CME with the delta output kernel).
    K = gram(np.array(["a", "b", "a"]), np.array(["a", "c"]), "delta")
    np.testing.assert_array_equal(K, [[1.0, 0.0], [0.0, 0.0], [1.0, 0.0]])


@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5, 3.5])
@pytest.mark.parametrize("length_scale", [1.0, 0.3])
def test_matern_1d_equals_gram(nu, length_scale):
    # One Matérn implementation: the chunked 1-D fast path and gram() agree to round-off
    # (they differ only in whether the distance is scaled before or after subtracting).
    rng = np.random.default_rng(3)
    x, z = rng.uniform(size=150), rng.uniform(size=70)
    expected = gram(x[:, None], z[:, None], "matern", nu=nu, length_scale=length_scale)
    got = matern_1d(x, z, nu=nu, length_scale=length_scale)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-13)
    upper = matern_1d(x, nu=nu, length_scale=length_scale, upper=True)
    full = gram(x[:, None], None, "matern", nu=nu, length_scale=length_scale)
    np.testing.assert_allclose(np.triu(upper), np.triu(full), rtol=0, atol=1e-13)
    # More rows than one chunk, and the out= buffer is filled in place.
    long = rng.uniform(size=200)
    out = np.empty((200, 70))
    assert matern_1d(long, z, nu=nu, length_scale=length_scale, out=out) is out
    np.testing.assert_allclose(
        out, gram(long, z, "matern", nu=nu, length_scale=length_scale), rtol=0, atol=1e-13
    )


def test_matern_1d_is_the_distributed_kernel():
    # krepro.distributed uses the kernels module's implementation (no second copy).
    import krepro.distributed

    assert krepro.distributed.matern_1d is matern_1d


def test_matern_1d_rejects_bad_arguments():
    with pytest.raises(ValueError, match="length_scale"):
        matern_1d([0.0, 1.0], length_scale=0.0)
    with pytest.raises(ValueError, match="nu"):
        matern_1d([0.0, 1.0], nu=2.0)
    with pytest.raises(ValueError, match="upper=True"):
        matern_1d([0.0], [1.0], upper=True)
    with pytest.raises(ValueError, match="out must be"):
        matern_1d([0.0, 1.0], out=np.empty((2, 3)))


@pytest.mark.parametrize("gamma", [1.0, 0.37])
@pytest.mark.parametrize(("n", "m", "scale"), [(300, 257, 5.0), (7, 20_000, 100.0), (40, 1, 1e-3)])
def test_rbf_1d_equals_gram_bit_for_bit(gamma, n, m, scale):
    # The pre-image search relies on identical values (it compares them), not only close ones.
    rng = np.random.default_rng(n)
    x, y = rng.normal(scale=scale, size=n), rng.normal(scale=scale, size=m)
    x[:1] = y[:1]  # a coincident pair: distance 0 up to the expansion's rounding
    np.testing.assert_array_equal(
        rbf_1d(x, y, gamma=gamma), gram(x[:, None], y[:, None], "rbf", gamma=gamma)
    )
    np.testing.assert_array_equal(rbf_1d(x, gamma=gamma), gram(x, kernel="rbf", gamma=gamma))


def test_rbf_1d_edge_values_equal_gram():
    # Zeros of both signs, products outside the normal range (the doubling is then separate).
    x = np.array([0.0, -0.0, 1e-200, 5.0, -3.0, 1e200])
    y = np.array([1e-200, 0.0, -3.0, 1e-170, 1e150])
    with np.errstate(all="ignore"):
        for gamma in (1.0, 0.5):
            np.testing.assert_array_equal(
                rbf_1d(x, y, gamma=gamma), gram(x[:, None], y[:, None], "rbf", gamma=gamma)
            )


def test_rbf_1d_rejects_bad_arguments():
    with pytest.raises(ValueError, match="one feature"):
        rbf_1d(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="gamma"):
        rbf_1d([0.0, 1.0], gamma=0.0)


@pytest.mark.parametrize(("n", "m", "d", "gamma"), [(300, 200, 5, None), (50, 70, 16, 0.07)])
def test_rbf_gram_equals_sklearn_to_round_off(n, m, d, gamma):
    rng = np.random.default_rng(n)
    X, Y = 3.0 * rng.standard_normal((n, d)), rng.standard_normal((m, d))
    Y[0] = X[0]  # a coincident pair
    np.testing.assert_allclose(rbf_gram(X, Y, gamma), rbf_kernel(X, Y, gamma=gamma), atol=1e-13)
    K = rbf_gram(X, gamma=gamma)
    np.testing.assert_allclose(K, rbf_kernel(X, gamma=gamma), atol=1e-13)
    np.testing.assert_array_equal(np.diag(K), 1.0)  # K(X, X): exactly 1 on the diagonal
    assert K.max() <= 1.0
    with pytest.raises(ValueError, match="same number of features"):
        rbf_gram(X, Y[:, :2])
