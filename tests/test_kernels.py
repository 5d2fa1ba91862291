"""Tests of :mod:`krepro.kernels` against scikit-learn and naive loops."""

import warnings
from decimal import Decimal, localcontext

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import Matern
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from krepro.kernels import (
    MATERN_ORDERS,
    DegenerateKernelWarning,
    check_finite,
    gram,
    kernel_params,
    matern_1d,
    rbf_1d,
    rbf_gram,
    scaled_squared_distances,
    warn_if_degenerate,
)


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


@pytest.mark.filterwarnings("ignore::krepro.kernels.DegenerateKernelWarning")  # scale 100
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


# --------------------------------------------------------------------------- extreme scales
#
# Inputs X = scale * N(0, 1) for scales 1e-300 ... 1e300, with gamma from the smallest
# subnormal to the float64 maximum and the gamma that makes the kernel values O(1) at that
# scale (the one where every digit matters). The oracle evaluates every entry exactly
# (decimal arithmetic, 50 digits, no overflow or underflow below 1e±999999).

EXTREME_SCALES = [1e-300, 1e-160, 1e-100, 1.0, 1e100, 1e154, 1e160, 1e300]
FLOAT_MAX = float(np.finfo(float).max)


def _gammas(scale):
    matched = min(max(0.3 / scale / scale, 5e-324), FLOAT_MAX)  # subnormal beyond 1e154
    return [5e-324, 1e-300, matched, 1.0, 1e100, FLOAT_MAX]


def _exact_kernel(X, Y, value):
    """value(squared distance as a Decimal) for every pair, rounded once to float."""
    with localcontext() as context:
        context.prec = 50
        out = np.empty((len(X), len(Y)))
        for i, x in enumerate(X):
            for j, y in enumerate(Y):
                squared = sum((Decimal(a) - Decimal(b)) ** 2 for a, b in zip(x, y, strict=True))
                out[i, j] = float(value(squared))
    return out


def _exact_rbf(X, Y, gamma):
    return _exact_kernel(X, Y, lambda squared: (-Decimal(gamma) * squared).exp())


def _exact_matern(X, Y, nu, length_scale):
    coefficients = {0.5: (1,), 1.5: (1, 1), 2.5: (1, 1, Decimal(1) / 3)}[nu]

    def value(squared):
        a = (Decimal(2 * nu) * squared).sqrt() / Decimal(length_scale)
        polynomial = Decimal(0)
        for c in reversed(coefficients):
            polynomial = polynomial * a + c
        return (-a).exp() * polynomial

    return _exact_kernel(X, Y, value)


def _scaled_points(scale, n=7, d=3, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, d)) * scale
    X[1] = X[0]  # a coincident pair: kernel value exactly 1
    return X


# Absolute error of a kernel value in [0, 1]: a few ulps of the exponent on the direct
# paths. The RBF expansion |x|^2 + |y|^2 - 2<x, y> (used while gamma d a^2 <= 2^32, a the
# largest magnitude) errs by up to 4 (d + 3) u gamma d a^2 in the exponent, u = 2^-53.
EXACT_ATOL = 1e-12


def _rbf_atol(X, gamma):
    d, a = X.shape[1], float(np.abs(X).max())
    exponent_bound = d * (a * (a * gamma))
    if exponent_bound > 2.0**32:  # the direct path
        return EXACT_ATOL
    return max(EXACT_ATOL, 4 * (d + 3) * 2.0**-53 * exponent_bound)


@pytest.mark.filterwarnings("ignore::krepro.kernels.DegenerateKernelWarning")
@pytest.mark.parametrize("scale", EXTREME_SCALES)
def test_rbf_kernels_are_exact_and_finite_at_every_scale(scale):
    # Before: rbf_gram(X, gamma=1.7e308) had 232 NaN of 400 (2 gamma overflows), and gram,
    # rbf_gram and rbf_1d had NaN from inf - inf for inputs of magnitude 1e154 and beyond.
    X = _scaled_points(scale)
    Y = np.vstack([X[:2], _scaled_points(scale, n=3, seed=1)])
    for gamma in _gammas(scale):
        expected = _exact_rbf(X, Y, gamma)
        expected_sym = _exact_rbf(X, X, gamma)
        results = {
            "gram": gram(X, Y, "rbf", gamma=gamma),
            "rbf_gram": rbf_gram(X, Y, gamma),
            "rbf_1d": rbf_1d(X[:, 0], Y[:, 0], gamma=gamma),
            "gram(X)": gram(X, kernel="rbf", gamma=gamma),
            "rbf_gram(X)": rbf_gram(X, gamma=gamma),
        }
        for name, K in results.items():
            assert np.isfinite(K).all() and K.min() >= 0.0 and K.max() <= 1.0, (name, gamma)
            if name == "rbf_1d":
                reference = _exact_rbf(X[:, :1], Y[:, :1], gamma)
            else:
                reference = expected_sym if name.endswith("(X)") else expected
            atol = _rbf_atol(X[:, :1] if name == "rbf_1d" else X, gamma)
            np.testing.assert_allclose(K, reference, rtol=0, atol=atol, err_msg=name)


@pytest.mark.filterwarnings("ignore::krepro.kernels.DegenerateKernelWarning")
@pytest.mark.parametrize("scale", EXTREME_SCALES)
@pytest.mark.parametrize("nu", [0.5, 1.5, 2.5])
def test_matern_kernels_are_exact_and_finite_at_every_scale(scale, nu):
    # Before: 0 * inf = NaN where e^{-a} underflows and the polynomial overflows, a scale
    # sqrt(2 nu) / length_scale of inf for a subnormal length scale, and cdist's squares
    # overflowing to a distance of inf (a kernel value of 0 where the true one is 1).
    X = _scaled_points(scale)
    Y = np.vstack([X[:2], _scaled_points(scale, n=3, seed=1)])
    for length_scale in (5e-324, 1e-300, 3.0 * scale, 1.0, 1e100, FLOAT_MAX):
        K = gram(X, Y, "matern", nu=nu, length_scale=length_scale)
        assert np.isfinite(K).all() and K.min() >= 0.0 and K.max() <= 1.0, length_scale
        np.testing.assert_allclose(
            K, _exact_matern(X, Y, nu, length_scale), rtol=0, atol=EXACT_ATOL
        )
        one_d = matern_1d(X[:, 0], Y[:, 0], nu=nu, length_scale=length_scale)
        np.testing.assert_allclose(
            one_d, _exact_matern(X[:, :1], Y[:, :1], nu, length_scale), rtol=0, atol=EXACT_ATOL
        )


@pytest.mark.parametrize("gamma", [1.0, 1e-300, FLOAT_MAX])
def test_rbf_1d_equals_gram_bit_for_bit_at_extreme_scales(gamma):
    # Both take the same direct path where the expansion could overflow.
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(size=20) * 1e160, rng.normal(size=5)])
    y = rng.normal(size=9) * 1e200
    K = rbf_1d(x, y, gamma=gamma)
    assert np.isfinite(K).all()
    np.testing.assert_array_equal(K, gram(x[:, None], y[:, None], "rbf", gamma=gamma))


def test_scaled_squared_distances_never_nan():
    # |x - y|^2 overflows and x - y of opposite huge values overflows; the result stays
    # +inf or finite, and gamma |x - y|^2 is accurate where |x - y|^2 alone is not.
    X = np.array([[FLOAT_MAX, 0.0], [-FLOAT_MAX, 0.0], [1e200, 1e-300], [1e200, 0.0]])
    D = scaled_squared_distances(X, gamma=1e-300)
    assert not np.isnan(D).any()
    assert D[0, 1] == np.inf and D[0, 0] == 0.0
    assert D[2, 3] == 0.0  # 1e-900 underflows
    zeros = np.zeros((1, 2))
    np.testing.assert_allclose(scaled_squared_distances(X[2:], zeros, gamma=1e-300), 1e100)
    np.testing.assert_array_equal(np.diag(scaled_squared_distances(X, gamma=FLOAT_MAX)), 0.0)


def test_rbf_gram_reproducer_gamma_max():
    X = np.random.default_rng(0).normal(size=(20, 3))
    with pytest.warns(DegenerateKernelWarning, match="only zeros and ones"):
        K = rbf_gram(X, gamma=1.7e308)
    np.testing.assert_array_equal(K, np.eye(20))


@pytest.mark.parametrize(
    ("X", "params", "constant"),
    [
        (np.random.default_rng(0).normal(size=(30, 3)) * 1e160, {"gamma": 1.0}, False),
        (np.random.default_rng(0).normal(size=(30, 3)), {"gamma": 1e-300}, True),
    ],
)
@pytest.mark.parametrize("function", ["gram", "rbf_gram"])
def test_degenerate_rbf_gram_is_finite_and_warns(X, params, constant, function):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if function == "gram":
            K = gram(X, kernel="rbf", **params)
        else:
            K = rbf_gram(X, **params)
    np.testing.assert_array_equal(K, np.ones((30, 30)) if constant else np.eye(30))
    assert [type(w.message) for w in caught] == [DegenerateKernelWarning]
    assert issubclass(DegenerateKernelWarning, UserWarning)
    assert not issubclass(DegenerateKernelWarning, RuntimeWarning)
    assert ("all ones" if constant else "only zeros and ones") in str(caught[0].message)


def test_degenerate_matern_gram_warns_and_ordinary_grams_do_not():
    X = np.random.default_rng(1).normal(size=(12, 2))
    with pytest.warns(DegenerateKernelWarning, match="all ones"):
        gram(X, kernel="matern", length_scale=1e300)
    with pytest.warns(DegenerateKernelWarning, match="only zeros and ones"):
        gram(X, kernel="matern", length_scale=1e-300)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gram(X, kernel="rbf", gamma=0.5)
        rbf_gram(X, gamma=0.5)
        gram(X, kernel="matern")
        gram(X, X[:3], kernel="rbf", gamma=1e300)  # a cross kernel is not checked
        gram(X[:1], kernel="rbf", gamma=1e300)  # one point: nothing to tell apart


def test_warn_if_degenerate_reads_the_whole_matrix():
    K = np.eye(5)
    K[3, 4] = K[4, 3] = 0.5  # row 0 is degenerate, the matrix is not
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not warn_if_degenerate(K)
    with pytest.warns(DegenerateKernelWarning):
        assert warn_if_degenerate(np.eye(5))


def test_linear_kernel_cancelling_sum_is_exact_not_nan():
    # Before: 2^600 * 2^600 overflowed inside the product and inf - inf gave NaN, where the
    # inner product is 0; a small row beside a huge one keeps its digits (per-row scaling).
    # (Powers of two: every product is exact, so the cancellation is too.)
    big, small = 2.0**600, 2.0**-600
    X = np.array([[big, big]])
    Y = np.array([[big, -big], [small, small]])
    np.testing.assert_array_equal(gram(X, Y, "linear"), [[0.0, 2.0]])
    np.testing.assert_array_equal(gram(X, Y, "poly", gamma=1.0, degree=2, coef0=0.0), [[0.0, 4.0]])


@pytest.mark.parametrize(
    ("kernel", "params"),
    [("linear", {}), ("poly", {"gamma": 1.0, "degree": 3, "coef0": 1.0})],
)
def test_overflowing_unbounded_kernel_raises_naming_the_input(kernel, params):
    X = np.random.default_rng(0).normal(size=(10, 3)) * 1e160
    with pytest.raises(ValueError, match=rf"{kernel} kernel matrix of X \("):
        gram(X, kernel=kernel, **params)
    with pytest.raises(ValueError, match=rf"{kernel} kernel matrix of X and Y"):
        gram(X[:2], X, kernel=kernel, **params)


def test_polynomial_kernel_with_a_non_integer_degree_and_negative_base_raises():
    X = np.array([[1.0], [-1.0]])
    with pytest.raises(ValueError, match=r"non-integer power 2\.5"):
        gram(X, kernel="poly", gamma=1.0, degree=2.5, coef0=0.0)


def test_check_finite_names_the_input():
    check_finite(np.ones(3), "x")
    with pytest.raises(ValueError, match=r"Non-finite values in the thing \(2 of 3\): why"):
        check_finite(np.array([1.0, np.nan, np.inf]), "the thing", ": why")
