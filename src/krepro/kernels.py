r"""Kernel functions behind one entry point, :func:`gram`.

Every estimator in :mod:`krepro` evaluates kernels through :func:`gram`, so that one set of
parameter names (scikit-learn's ``kernel``, ``gamma``, ``degree``, ``coef0``) means the same
thing everywhere.

Supported kernels
-----------------
``"linear"``
    :math:`k(x, y) = \langle x, y\rangle`.
``"poly"`` (alias ``"polynomial"``)
    :math:`k(x, y) = (\gamma\langle x, y\rangle + c_0)^d`.
``"rbf"``
    :math:`k(x, y) = \exp(-\gamma\lVert x - y\rVert^2)` (scikit-learn's convention; the
    oblivious-data paper's "RBF with :math:`\sigma = 1`" is
    :math:`\exp(-\lVert x-y\rVert^2/\sigma)`, i.e. ``gamma = 1``).
``"matern"``
    :math:`k(r) = \frac{2^{1-\nu}}{\Gamma(\nu)}(\sqrt{2\nu}\,r/\ell)^\nu
    K_\nu(\sqrt{2\nu}\,r/\ell)` for :math:`\nu \in \{1/2, 3/2, 5/2, 7/2\}`, evaluated with
    the closed forms (exponential times a polynomial) and parameters ``nu`` and
    ``length_scale``.
``"delta"``
    :math:`k(x, y) = 1\{x = y\}` (all coordinates equal), the kernel of a finite set; the
    points are labels of any hashable type, compared by :mod:`krepro.validation`'s rules
    (``1 == 1.0``, ``1 != "1"``, NaN is an error).

Extreme scales
--------------
For finite inputs of any magnitude (1e-300 … 1e300) and any finite parameters (``gamma`` up
to the float64 maximum 1.8e308, ``length_scale`` down to the smallest subnormal) no kernel
matrix holds a NaN or an infinity:

* ``"rbf"`` and ``"matern"`` are bounded (entries in [0, 1]). The fast paths (scikit-learn's
  expansion :math:`\lVert x\rVert^2 + \lVert y\rVert^2 - 2\langle x, y\rangle` evaluated
  by BLAS, :func:`rbf_gram`'s augmented product) run only when a bound computed from the
  largest input magnitude :math:`a` shows that none of their intermediates can overflow and
  that their rounding error in the exponent stays small (:math:`\gamma d a^2 \le 2^{32}`;
  beyond, e.g. at :math:`\gamma` = 1e16 on unit-scale data, the expansion's cancellation
  gives coincident points of a cross Gram matrix the value 0 instead of 1); otherwise the
  exponent :math:`\gamma\lVert x - y\rVert^2` is evaluated by direct differences
  (:func:`scaled_squared_distances`: :math:`\sum_k (\sqrt\gamma\,(x_k - y_k))^2`, which can
  overflow only to :math:`+\infty`, i.e. a kernel value of exactly 0, and never forms
  :math:`\infty - \infty`). Ordinary scales take the fast paths, so their results are
  unchanged bit for bit. Matérn distances beyond the point where :math:`e^{-a}` underflows
  give exactly 0 (:math:`e^{-a}p(a)` would otherwise be :math:`0\cdot\infty`).
* At such scales the kernel degenerates: when every distance is tiny against the length
  scale the Gram matrix of a set of points is all ones, and when every distance between
  distinct points is huge it is the identity (only zeros and ones). :func:`gram` and
  :func:`rbf_gram` return that finite matrix and emit a :class:`DegenerateKernelWarning`
  (a ``UserWarning``) for the Gram matrix of a set with itself.
* ``"linear"`` and ``"poly"`` are unbounded: their inner products are evaluated on inputs
  scaled by powers of two when the direct product could overflow (exact rescaling, no
  :math:`\infty - \infty` in a cancelling sum), and when the kernel value itself exceeds
  the float64 range a ``ValueError`` names the input (:func:`check_finite`).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.metrics.pairwise import pairwise_kernels

from krepro.validation import GroupEncoder, check_sensitive_features

__all__ = [
    "BOUNDED_KERNELS",
    "KERNELS",
    "MATERN_ORDERS",
    "DegenerateKernelWarning",
    "check_finite",
    "gram",
    "kernel_params",
    "matern_1d",
    "rbf_1d",
    "rbf_gram",
    "scaled_squared_distances",
    "warn_if_degenerate",
    "warn_if_degenerate_points",
]

MATERN_ORDERS = (0.5, 1.5, 2.5, 3.5)
KERNELS = ("linear", "poly", "polynomial", "rbf", "matern", "delta")
#: Kernels whose values lie in [0, 1] whatever the inputs' scale.
BOUNDED_KERNELS = ("rbf", "matern", "delta")
# Kernels with a length scale, whose Gram matrix degenerates at extreme scales.
_STATIONARY = ("rbf", "matern")

# Bound on the intermediates of a fast (expanded, BLAS) evaluation: far enough below the
# float64 maximum (≈ 2^1024) that neither the bound's own rounding nor a partial sum inside
# BLAS can overflow. Inputs whose bound exceeds it take the direct-difference path.
_SAFE_MAGNITUDE = 2.0**1000
# Largest gamma d a^2 (a: the largest input magnitude) for which the RBF kernels use the
# expansion |x|^2 + |y|^2 - 2<x, y>. Its rounding error in the exponent, up to about
# 4 (d + 3) u gamma d a^2 (u = 2^-53), stays below ~1e-5 here (and is usually far smaller);
# beyond, it grows to O(1): at gamma ~ 1e16 on unit-scale data, coincident points of a
# cross Gram matrix get the kernel value 0 instead of 1. Larger values take the direct path,
# which is exact there; every ordinary configuration stays far below the limit.
_EXPANSION_EXPONENT_LIMIT = 2.0**32
# Entries (rows × columns × features) of one block of differences on the direct path.
_DIFFERENCE_CHUNK = 1 << 17
# Scaled Matérn distances a at or above this have k = e^{-a} p(a) = 0 exactly in float64
# (e^{-a} underflows to 0 beyond a ≈ 745.2 while the polynomial p(a) stays finite), so
# clipping a here changes no finite value and keeps p(a) from overflowing (0 · inf = NaN).
_MATERN_CUTOFF = 1000.0
# Matérn scales sqrt(2 nu) / length_scale above this take the direct path: squared distances
# that underflow (below ~1e-308) would then carry visible error into the kernel values.
_MATERN_SCALE_LIMIT = 2.0**400


class DegenerateKernelWarning(UserWarning):
    """A Gram matrix whose entries are all 0 or 1: the kernel's scale does not fit the data.

    Emitted (a ``UserWarning``, not a ``RuntimeWarning``) when an RBF or Matérn Gram
    matrix of a set of points is all ones (every distance negligible against the length
    scale: ``gamma`` too small) or holds only zeros and ones (every distance between
    distinct points so large that the kernel underflows to 0: ``gamma`` too large). The
    matrix returned is the correctly rounded, finite result; estimators fitted on it learn
    a constant or memorise the training points.
    """


def check_finite(values, name, hint=""):
    """Raise a ``ValueError`` naming ``name`` if ``values`` holds a NaN or an infinity.

    Parameters
    ----------
    values : ndarray
    name : str
        What ``values`` is, for the message (e.g. ``"the linear kernel matrix of X"``).
    hint : str, default=""
        Appended to the message: the likely cause and the remedy.

    Returns
    -------
    values : ndarray
        Unchanged.
    """
    values = np.asarray(values)
    if values.dtype.kind in "fc" and not np.isfinite(values).all():
        bad = int(values.size - np.count_nonzero(np.isfinite(values)))
        raise ValueError(f"Non-finite values in {name} ({bad} of {values.size}){hint}.")
    return values


def _max_abs(*arrays):
    """Largest magnitude of the entries of ``arrays`` (0 for empty arrays)."""
    return max(float(max(A.max(initial=0.0), -A.min(initial=0.0))) for A in arrays)


def _exponent_bound(magnitude, n_features, gamma):
    """``gamma * d * a**2``, ordered so that an intermediate overflows only if the product does."""
    return n_features * (magnitude * (magnitude * gamma))


def _squares_are_finite(magnitude, n_features):
    r"""Whether sums of ``n_features`` squared differences of entries of at most ``magnitude``
    (and :math:`\lVert x\rVert^2 + \lVert y\rVert^2 + 2|\langle x, y\rangle|`) stay finite."""
    return 4.0 * n_features * magnitude * magnitude <= _SAFE_MAGNITUDE


def _expansion_is_safe(magnitude, n_features, gamma):
    r"""Whether :math:`\gamma(\lVert x\rVert^2 + \lVert y\rVert^2 - 2\langle x, y\rangle)`
    (scikit-learn's ``euclidean_distances``, then ``rbf_kernel``) is finite and accurate for
    entries of at most ``magnitude``: every term and partial sum is at most :math:`4 d a^2`,
    and the rounding error of the exponent at most about :math:`4(d + 3)u\,\gamma d a^2`
    (:data:`_EXPANSION_EXPONENT_LIMIT`)."""
    return _squares_are_finite(magnitude, n_features) and (
        _exponent_bound(magnitude, n_features, gamma) <= _EXPANSION_EXPONENT_LIMIT
    )


def _augmented_is_safe(magnitude, n_features, gamma):
    r"""Whether the augmented product of :func:`rbf_gram` (and of the RBF tiles of
    :mod:`krepro.fairness.tiled_gram`) is finite and accurate: its entries are at most
    :math:`2\gamma a`, :math:`\gamma d a^2` and :math:`d a^2`, its partial sums at most
    :math:`4\gamma d a^2`, its rounding error as :func:`_expansion_is_safe`'s. Intermediates
    of the bound that overflow make it "unsafe" (the direct path, still correct); ones that
    underflow belong to a tiny true bound."""
    two_gamma = 2.0 * gamma
    finite = max(two_gamma, two_gamma * magnitude, n_features * magnitude * magnitude)
    return (
        finite <= _SAFE_MAGNITUDE
        and _exponent_bound(magnitude, n_features, gamma) <= _EXPANSION_EXPONENT_LIMIT
    )


def _sum_scaled_squares(differences, root, out):
    """``out = sum_k (root * differences[..., k]) ** 2``; ``differences`` is overwritten."""
    differences *= root
    np.square(differences, out=differences)
    np.sum(differences, axis=-1, out=out)


def scaled_squared_distances(X, Y=None, gamma=1.0):
    r""":math:`\gamma\lVert x_i - y_j\rVert^2` by direct differences, safe at any scale.

    Evaluated as :math:`\sum_k (\sqrt\gamma\,(x_{ik} - y_{jk}))^2` in blocks of rows: a
    difference of finite numbers is finite or :math:`\pm\infty`, and a sum of squares
    never subtracts, so the result is finite or :math:`+\infty` (a true value beyond the
    float64 range), never NaN, for any finite inputs and any finite ``gamma`` > 0. Folding
    :math:`\sqrt\gamma` in before squaring keeps :math:`\gamma\lVert x - y\rVert^2` accurate
    where :math:`\lVert x - y\rVert^2` alone would overflow or underflow (huge distances with
    a tiny ``gamma``, tiny ones with a huge ``gamma``): a few ulps of relative error
    wherever the result is a normal number. Slower than the expanded form
    :math:`\lVert x\rVert^2 + \lVert y\rVert^2 - 2\langle x, y\rangle` (no BLAS), which the
    RBF kernels use wherever it can neither overflow nor lose the exponent to cancellation;
    this is their fallback (exact where the expansion cancels: the distance of a point to
    itself is exactly 0).

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Y : array-like of shape (n_samples_Y, n_features), default=None
        ``None`` means ``Y = X``.
    gamma : float > 0, default=1.0

    Returns
    -------
    D : ndarray of shape (n_samples_X, n_samples_Y)
        Entries in :math:`[0, +\infty]`.

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.kernels import scaled_squared_distances
    >>> X = np.array([[1e200], [-1e200], [3e200]])  # |x - y|^2 overflows, gamma |x - y|^2 not
    >>> D = scaled_squared_distances(X, gamma=1e-300)
    >>> [round(float(value) / 1e100, 12) for value in D[0]]
    [0.0, 4.0, 4.0]
    """
    X = _as_2d(X, "X")
    Y = X if Y is None else _as_2d(Y, "Y")
    n, m, d = X.shape[0], Y.shape[0], X.shape[1]
    root = math.sqrt(float(gamma))
    out = np.empty((n, m))
    rows = max(1, _DIFFERENCE_CHUNK // max(1, m * d))
    with np.errstate(over="ignore", under="ignore"):
        for start in range(0, n, rows):
            stop = min(start + rows, n)
            differences = X[start:stop, None, :] - Y[None, :, :]
            _sum_scaled_squares(differences, root, out[start:stop])
    return out


def _paired_scaled_squared_distances(A, B, gamma):
    r""":math:`\gamma\lVert a_i - b_i\rVert^2` for rows of the same shape, with the operations
    of :func:`scaled_squared_distances` on every pair (so the same values bit for bit)."""
    out = np.empty(A.shape[0])
    with np.errstate(over="ignore", under="ignore"):
        _sum_scaled_squares(A - B, math.sqrt(float(gamma)), out)
    return out


def _rbf_direct(X, Y, gamma):
    """RBF kernel matrix from :func:`scaled_squared_distances` (the safe path)."""
    K = scaled_squared_distances(X, Y, gamma)
    np.negative(K, out=K)
    return np.exp(K, out=K)


def _zeros_and_ones(values):
    return bool(np.all((values == 0.0) | (values == 1.0)))


def _warn_degenerate(constant, n, stacklevel):
    if constant:
        detail = (
            "is all ones: every distance is negligible against the kernel's length scale "
            "(gamma too small, or length_scale too large, for the spread of the data), so "
            "every point looks the same"
        )
    else:
        detail = (
            "holds only zeros and ones: every distance between distinct points is so large "
            "against the kernel's length scale (gamma too large, or length_scale too small) "
            "that the kernel underflows to 0, so it only tells equal points from distinct ones"
        )
    warnings.warn(
        f"The kernel matrix of these {n} points {detail}; what is fitted on it is degenerate.",
        DegenerateKernelWarning,
        stacklevel=stacklevel + 1,
    )


def warn_if_degenerate(K, stacklevel=2):
    r"""Emit a :class:`DegenerateKernelWarning` if the Gram matrix ``K`` holds only 0 and 1.

    For the Gram matrix of a set of points with itself under a kernel with
    :math:`k(x, x) = 1` (RBF, Matérn). Only the first row is read unless it is degenerate
    itself (then the whole matrix, by blocks of rows), so the check costs :math:`O(n)` in
    the ordinary case.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    stacklevel : int, default=2
        As :func:`warnings.warn`, counted from the caller of this function.

    Returns
    -------
    bool
        Whether the warning was emitted.
    """
    n = K.shape[0]
    if n < 2 or not _zeros_and_ones(K[0]):
        return False
    rows = max(1, _DIFFERENCE_CHUNK // n)
    if not all(_zeros_and_ones(K[start : start + rows]) for start in range(0, n, rows)):
        return False
    _warn_degenerate(bool(K.min() == 1.0), n, stacklevel + 1)
    return True


def warn_if_degenerate_points(X, kernel, params, stacklevel=2):
    """:func:`warn_if_degenerate` for the Gram matrix of ``X``, without forming it.

    For the tiled paths (:mod:`krepro.fairness.tiled_gram`), which never hold the whole
    matrix: one row of kernel values is evaluated, and the whole matrix (by blocks of rows)
    only when that row holds nothing but zeros and ones. The diagonal counts as 1. Kernels
    other than RBF and Matérn are not checked.

    Parameters
    ----------
    X : ndarray of shape (n, n_features)
    kernel : str
    params : dict
        Kernel parameters, as for :func:`gram`.
    stacklevel : int, default=2

    Returns
    -------
    bool
        Whether the warning was emitted.
    """
    X = _as_2d(X, "X")
    n = X.shape[0]
    if kernel not in _STATIONARY or n < 2:
        return False
    first = _kernel_matrix(X[:1], X, kernel, params)
    first[0, 0] = 1.0
    if not _zeros_and_ones(first):
        return False
    rows = max(1, _DIFFERENCE_CHUNK // n)
    constant = True
    for start in range(0, n, rows):
        block = _kernel_matrix(X[start : start + rows], X, kernel, params)
        diagonal = np.arange(len(block))
        block[diagonal, start + diagonal] = 1.0
        if not _zeros_and_ones(block):
            return False
        constant = constant and bool(block.min() == 1.0)
    _warn_degenerate(constant, n, stacklevel + 1)
    return True


# Parameters each kernel accepts; anything else is an error rather than silently ignored.
_ACCEPTED = {
    "linear": set(),
    "poly": {"gamma", "degree", "coef0"},
    "polynomial": {"gamma", "degree", "coef0"},
    "rbf": {"gamma"},
    "matern": {"nu", "length_scale"},
    "delta": set(),
}


def _as_2d(X, name):
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 1-d or 2-d array, got shape {X.shape}.")
    return X


def _delta(X, Y):
    r""":math:`1\{x = y\}` for labels of any type, compared as :mod:`krepro.validation` does.

    The rows of ``X`` are encoded once; a row of ``Y`` that is not among them matches nothing.
    Missing labels (NaN, None) are an error rather than a label unequal to everything.
    """
    encoder = GroupEncoder("X")
    codes_X = encoder.fit_transform(X)
    if Y is None:
        codes_Y = codes_X
    else:
        Y = check_sensitive_features(Y, name="Y")
        if Y.shape[1] != encoder.n_columns_:
            raise ValueError(
                f"X and Y must have the same number of features, got {encoder.n_columns_} "
                f"and {Y.shape[1]}."
            )
        codes_Y = encoder.transform(Y, unknown="ignore")
    return (codes_X[:, None] == codes_Y[None, :]).astype(float)


# Closed-form Matérn kernels k(r) = exp(-a) * sum_j c_j a^j, a = sqrt(2 nu) r / length_scale
# (Rasmussen & Williams eq. 4.16), evaluated in Horner form by one routine for every caller.
_MATERN_POLYNOMIAL = {
    0.5: (1.0,),
    1.5: (1.0, 1.0),
    2.5: (1.0, 1.0, 1.0 / 3.0),
    3.5: (1.0, 1.0, 2.0 / 5.0, 1.0 / 15.0),
}
# Rows of kernel entries evaluated per numpy call by matern_1d: small enough that the
# temporaries stay in the L2 cache (64 × 1024 float64 = 512 KiB), large enough to amortise
# the call overhead.
_KERNEL_CHUNK_ROWS = 64


def _matern_coefficients(nu, length_scale):
    """Polynomial coefficients of order ``nu`` and the scale ``sqrt(2 nu) / length_scale``.

    The scale is a Python float: infinite (without an overflow warning) for a length scale
    below about 1e-308; :func:`_scaled_distances` then divides instead of multiplying.
    """
    if float(nu) not in _MATERN_POLYNOMIAL:
        raise ValueError(f"Matérn order nu must be one of {MATERN_ORDERS}, got {nu!r}.")
    if not float(length_scale) > 0:
        raise ValueError(f"length_scale must be positive, got {length_scale!r}.")
    return _MATERN_POLYNOMIAL[float(nu)], math.sqrt(2.0 * float(nu)) / float(length_scale)


def _scaled_distances(distances, nu, length_scale, scale, clip=True):
    """In place: ``a = sqrt(2 nu) * distances / length_scale``, never NaN, clipped at the cut-off.

    ``distances`` are finite or +inf. Multiplying by a finite scale cannot give NaN
    (``0 * scale = 0``); an infinite scale (a subnormal length scale) would make ``0 * inf``,
    so the distances are divided by the length scale instead. Overflow gives +inf, which
    the clipping at :data:`_MATERN_CUTOFF` turns into a kernel value of exactly 0.
    """
    with np.errstate(over="ignore", under="ignore"):
        if math.isfinite(scale):
            distances *= scale
        else:
            distances /= float(length_scale)
            distances *= math.sqrt(2.0 * float(nu))
    if clip:
        np.minimum(distances, _MATERN_CUTOFF, out=distances)
    return distances


def _matern_rows(a, coefficients, target, work, poly):
    """``target = k(a)`` for scaled distances ``a >= 0``; ``work`` and ``poly`` are scratch."""
    np.negative(a, out=work)
    np.exp(work, out=work)
    if len(coefficients) == 1:
        np.copyto(target, work)
        return
    # Horner: p = c_d a; p = (p + c_j) a for j = d-1..1; p + c_0.
    *lower, top = coefficients
    np.multiply(a, top, out=poly)
    for c in reversed(lower[1:]):
        poly += c
        poly *= a
    poly += lower[0]
    np.multiply(poly, work, out=target)


def _matern_direct(X, Y, nu, length_scale, scale):
    r"""Scaled distances :math:`a = \sqrt{2\nu}\lVert x - y\rVert/\ell`, clipped, at any scale.

    The scale enters each difference before it is squared (as
    :func:`scaled_squared_distances` does with :math:`\sqrt\gamma`): ``cdist``'s squares
    overflow for inputs beyond ~1e154 (a distance of +inf, a kernel value of 0, where a huge
    length scale makes the true value 1) and lose their precision to underflow below
    ~1e-154 (which a length scale below ~1e-120 makes visible).
    """
    Y = X if Y is None else Y
    n, m, d = X.shape[0], Y.shape[0], X.shape[1]
    out = np.empty((n, m))
    rows = max(1, _DIFFERENCE_CHUNK // max(1, m * d))
    finite = math.isfinite(scale)
    with np.errstate(over="ignore", under="ignore"):
        for start in range(0, n, rows):
            stop = min(start + rows, n)
            differences = X[start:stop, None, :] - Y[None, :, :]
            if not finite:  # a subnormal length scale: divide (0 / l = 0, not 0 * inf)
                differences /= length_scale
            _sum_scaled_squares(
                differences, scale if finite else math.sqrt(2.0 * nu), out[start:stop]
            )
    np.sqrt(out, out=out)
    np.minimum(out, _MATERN_CUTOFF, out=out)
    return out


def matern_1d(x, y=None, *, nu=1.5, length_scale=1.0, upper=False, out=None):
    r"""Matérn kernel matrix of 1-D points, evaluated in cache-sized chunks.

    Equals ``gram(x[:, None], y[:, None], "matern", nu=nu, length_scale=length_scale)``
    (tested) without the distance matrix and its temporaries: the fast path of the
    distributed-regression coverage study (:mod:`krepro.distributed`).

    Parameters
    ----------
    x : array-like of shape (n,)
    y : array-like of shape (m,), default=None
        ``None`` means ``y = x``.
    nu : {0.5, 1.5, 2.5, 3.5}, default=1.5
    length_scale : float, default=1.0
    upper : bool, default=False
        With ``y = None``: compute only what the upper triangle ``j >= i`` needs (what a
        Cholesky factorisation of the symmetric matrix reads), about half the entries; the
        entries below the diagonal are then partly left as they were.
    out : ndarray of shape (n, m), C-contiguous float64, default=None

    Returns
    -------
    K : ndarray of shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.kernels import matern_1d
    >>> round(float(matern_1d([0.0], [np.sqrt(2.0)], nu=3.5)[0, 0]), 6)
    0.328067
    """
    coefficients, scale = _matern_coefficients(nu, length_scale)
    x = np.asarray(x, dtype=float).ravel()
    symmetric = y is None
    y = x if symmetric else np.asarray(y, dtype=float).ravel()
    if upper and not symmetric:
        raise ValueError("upper=True needs y = None (a symmetric matrix).")
    n, m = len(x), len(y)
    if out is None:
        out = np.empty((n, m))
    elif out.shape != (n, m) or out.dtype != np.float64 or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous float64 array of shape {(n, m)}.")
    # Fast path: scale the points, then subtract. At extreme scales (a scaled point
    # overflows, or an infinite scale) subtract first and scale the distances instead (no
    # inf - inf); distances beyond the cut-off are clipped (no 0 * inf), which changes
    # nothing below it. Ordinary inputs (spread below the cut-off) skip the clipping.
    with np.errstate(over="ignore", invalid="ignore"):  # inf or 0 * inf: checked next
        xs = x * scale
        ys = xs if symmetric else y * scale
        scaled = math.isfinite(scale) and bool(np.isfinite(xs).all() and np.isfinite(ys).all())
        spread = _max_abs(xs, ys) * 2.0 if scaled else math.inf
    if not scaled:
        xs, ys = x, y
    clip = not spread <= _MATERN_CUTOFF
    rows = _KERNEL_CHUNK_ROWS
    buffers = np.empty((3, rows * m))
    with np.errstate(over="ignore"):  # a difference of huge points is +-inf, clipped below
        for start in range(0, n, rows):
            stop = min(start + rows, n)
            first = start if upper else 0
            shape = (stop - start, m - first)
            # Contiguous scratch views (slices of a wider buffer would be strided and slower).
            a, work, poly = (buffer[: shape[0] * shape[1]].reshape(shape) for buffer in buffers)
            np.subtract(xs[start:stop, None], ys[None, first:], out=a)
            np.abs(a, out=a)
            if not scaled:
                _scaled_distances(a, nu, length_scale, scale, clip=False)
            if clip:
                np.minimum(a, _MATERN_CUTOFF, out=a)
            _matern_rows(a, coefficients, out[start:stop, first:], work, poly)
    return out


# Kernel entries per numpy call in rbf_1d: temporaries of 512 KiB stay in the L2 cache.
_RBF_CHUNK_ENTRIES = 1 << 16


def rbf_1d(x, y=None, *, gamma=1.0):
    r"""RBF kernel matrix :math:`e^{-\gamma (x_i - y_j)^2}` of 1-D points, in cache-sized chunks.

    Equals ``gram(x[:, None], y[:, None], "rbf", gamma=gamma)`` **bit for bit** (tested): it
    performs scikit-learn's operations on every entry, :math:`d = -2(x_i y_j) + x_i^2 +
    y_j^2` clipped at 0 (and set to 0 on the diagonal when ``y`` is None), then
    :math:`e^{-\gamma d}`, but on row blocks that stay in the cache and without the input
    validation of each call. Code that must reproduce results computed with :func:`gram`
    (the pre-image search of :mod:`krepro.fairness.projection`) can therefore use it freely.

    Where :func:`gram` leaves the expansion for its direct path (extreme scales: squares
    near the float64 maximum, or :math:`\gamma\max(x_i^2, y_j^2) > 2^{32}`), so does this
    function (:func:`scaled_squared_distances`): the two agree bit for bit at every scale,
    and hold no NaN.

    Parameters
    ----------
    x : array-like of shape (n,) or (n, 1)
    y : array-like of shape (m,) or (m, 1), default=None
        ``None`` means ``y = x``.
    gamma : float > 0, default=1.0

    Returns
    -------
    K : ndarray of shape (n, m)
        Entries in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.kernels import gram, rbf_1d
    >>> x = np.array([0.0, 0.5, 2.0])
    >>> bool(np.array_equal(rbf_1d(x, gamma=0.3), gram(x[:, None], kernel="rbf", gamma=0.3)))
    True
    """
    xs = _as_2d(x, "x")
    ys = xs if y is None else _as_2d(y, "y")
    if xs.shape[1] != 1 or ys.shape[1] != 1:
        raise ValueError(
            f"rbf_1d needs one feature, got {xs.shape[1]} and {ys.shape[1]}; use gram."
        )
    if not float(gamma) > 0:
        raise ValueError(f"gamma must be positive, got {gamma!r}.")
    if not _expansion_is_safe(_max_abs(xs, ys), 1, float(gamma)):
        # The expansion could overflow or cancel: gram's direct path, the same values.
        return _rbf_direct(xs, None if y is None else ys, float(gamma))
    xs, ys = xs[:, 0], ys[:, 0]
    x_sq, y_sq = xs * xs, ys * ys  # scikit-learn's row_norms(squared=True) of one column
    # The negated distance -d = (2 x y - x²) - y², rounded as scikit-learn's d (rounding to
    # nearest is symmetric), saves the negation; x (2y) = 2 (x y) exactly unless a product
    # leaves the normal range, in which case the doubling is a separate step.
    doubled = _products_are_normal(xs, ys)
    ys_twice = 2.0 * ys if doubled else ys
    n, m = len(xs), len(ys)
    out = np.empty((n, m))
    rows = max(1, _RBF_CHUNK_ENTRIES // max(m, 1))
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        block = out[start:stop]
        np.multiply(xs[start:stop, None], ys_twice[None, :], out=block)
        if not doubled:
            block *= 2.0
        block -= x_sq[start:stop, None]
        block -= y_sq[None, :]
        np.minimum(block, 0.0, out=block)  # the clipping of d at 0
        if y is None:  # scikit-learn zeroes the distances of a set with itself
            block[np.arange(stop - start), np.arange(start, stop)] = 0.0
        if float(gamma) != 1.0:
            with np.errstate(over="ignore"):  # -inf: a kernel value of 0
                block *= float(gamma)
        np.exp(block, out=block)
    return out


def _products_are_normal(xs, ys):
    """Whether every non-zero product x_i y_j (and its double) is a normal float."""
    ax, ay = np.abs(xs[xs != 0]), np.abs(ys[ys != 0])
    if len(ax) == 0 or len(ay) == 0:
        return True
    tiny, huge = 2.0**-1000, 2.0**1000
    return bool(ax.min() * ay.min() >= tiny and ax.max() * ay.max() <= huge)


def kernel_params(kernel, gamma=None, degree=3, coef0=1.0, kernel_params=None):
    """Collect the keyword parameters of ``kernel`` from scikit-learn style arguments.

    Estimators store ``gamma``, ``degree``, ``coef0`` and ``kernel_params`` separately (the
    scikit-learn convention); this helper keeps only those that ``kernel`` understands.
    """
    params = dict(kernel_params or {})
    if kernel in ("rbf", "poly", "polynomial") and gamma is not None:
        params.setdefault("gamma", gamma)
    if kernel in ("poly", "polynomial"):
        params.setdefault("degree", degree)
        params.setdefault("coef0", coef0)
    return params


def gram(X, Y=None, kernel="rbf", **params):
    r"""Kernel matrix :math:`K_{ij} = k(x_i, y_j)`.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features) or (n_samples_X,)
        First set of points; a 1-d array is one feature.
    Y : array-like of shape (n_samples_Y, n_features), default=None
        Second set of points; ``None`` means ``Y = X``.
    kernel : {"linear", "poly", "polynomial", "rbf", "matern", "delta"}, default="rbf"
        Kernel name (see the module docstring for the formulas).
    **params
        Kernel parameters: ``gamma`` (rbf, poly; ``None`` means ``1 / n_features`` as in
        scikit-learn), ``degree`` and ``coef0`` (poly), ``nu`` (default 1.5) and
        ``length_scale`` (default 1.0) for matern.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        Finite for finite inputs (module docstring, "Extreme scales"); RBF and Matérn
        entries lie in [0, 1].

    Raises
    ------
    ValueError
        For an unknown kernel or parameter, mismatched features, or a linear or polynomial
        kernel whose values exceed the float64 range (the message names the input).

    Warns
    -----
    DegenerateKernelWarning
        When ``Y`` is None and an RBF or Matérn Gram matrix is all ones or holds only zeros
        and ones (:func:`warn_if_degenerate`).

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.kernels import gram
    >>> round(float(gram([[0.0]], [[np.sqrt(2.0)]], "matern", nu=3.5)[0, 0]), 6)
    0.328067
    """
    K = _kernel_matrix(X, Y, kernel, params)
    if Y is None and kernel in _STATIONARY:
        warn_if_degenerate(K, stacklevel=2)
    return K


def _kernel_matrix(X, Y, kernel, params):
    """:func:`gram` without the degeneracy warning (for blocks and tiles of a larger matrix)."""
    if kernel not in _ACCEPTED:
        raise ValueError(f"Unknown kernel {kernel!r}; expected one of {KERNELS}.")
    unknown = set(params) - _ACCEPTED[kernel]
    if unknown:
        raise ValueError(
            f"Kernel {kernel!r} does not take parameter(s) {sorted(unknown)}; "
            f"it accepts {sorted(_ACCEPTED[kernel]) or 'none'}."
        )
    if kernel == "delta":
        return _delta(X, Y)
    same = Y is None
    X = _as_2d(X, "X")
    Y = X if Y is None else _as_2d(Y, "Y")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X and Y must have the same number of features, got {X.shape[1]} and {Y.shape[1]}."
        )
    if kernel == "matern":
        nu, length_scale = float(params.get("nu", 1.5)), float(params.get("length_scale", 1.0))
        coefficients, scale = _matern_coefficients(nu, length_scale)
        magnitude = _max_abs(X) if same else _max_abs(X, Y)
        if _squares_are_finite(magnitude, X.shape[1]) and scale <= _MATERN_SCALE_LIMIT:
            # Direct differences: euclidean_distances' |x|^2 - 2<x,y> + |y|^2 expansion loses
            # ~1e-8 at coincident points, which the non-smooth nu = 1/2 kernel turns into a
            # ~1e-8 error. No distance exceeds 2 a sqrt(d): clipping only beyond the cut-off.
            clip = not 2.0 * magnitude * math.sqrt(X.shape[1]) * scale <= _MATERN_CUTOFF
            a = _scaled_distances(cdist(X, Y), nu, length_scale, scale, clip=clip)
        else:
            a = _matern_direct(X, None if same else Y, nu, length_scale, scale)
        out = np.empty_like(a)
        _matern_rows(a, coefficients, out, np.empty_like(a), np.empty_like(a))
        return out
    if kernel == "rbf":
        gamma = params.get("gamma")
        gamma = 1.0 / X.shape[1] if gamma is None else float(gamma)
        magnitude = _max_abs(X) if same else _max_abs(X, Y)
        if _expansion_is_safe(magnitude, X.shape[1], gamma):
            # -gamma * distance may overflow to -inf: a kernel value of 0, as it should be
            with np.errstate(over="ignore"):
                return pairwise_kernels(X, Y, metric="rbf", **params)
        return _rbf_direct(X, None if same else Y, gamma)
    return _inner_product_kernel(X, Y, kernel, params, same)


def _row_exponents(X):
    """Per row, the exponent ``e`` with the row's largest magnitude in ``[2^(e-1), 2^e)``."""
    return np.frexp(np.abs(X).max(axis=1, initial=0.0))[1]


def _inner_product_kernel(X, Y, kernel, params, same):
    r"""Linear or polynomial kernel; a ``ValueError`` when its values leave the float64 range.

    scikit-learn's evaluation when a bound shows that nothing can overflow; otherwise the
    inner products of the rows scaled by powers of two to magnitudes below 1 (the same
    values wherever both are finite: the scaling is exact; per row, so that small rows
    beside huge ones keep their digits) then scaled back with ``ldexp``: a sum that cancels
    cannot give :math:`\infty - \infty`, and what still overflows is a true overflow.
    """
    n_features = X.shape[1]
    magnitude_x = _max_abs(X)
    magnitude_y = magnitude_x if same else _max_abs(Y)
    bound = n_features * magnitude_x * magnitude_y  # of |<x, y>|
    if kernel == "linear":
        gamma, coef0, degree = 1.0, 0.0, 1.0
        safe = bound <= _SAFE_MAGNITUDE
    else:
        gamma = params.get("gamma")
        gamma = 1.0 / n_features if gamma is None else float(gamma)
        coef0, degree = float(params.get("coef0", 1.0)), float(params.get("degree", 3))
        base = gamma * bound + abs(coef0)
        safe = (
            bound <= _SAFE_MAGNITUDE
            and base <= _SAFE_MAGNITUDE
            and degree.is_integer()  # a negative base to a fractional power is NaN
            and (base <= 1.0 or degree * math.log2(base) <= 1000.0)
        )
    if safe:
        metric = "poly" if kernel == "polynomial" else kernel
        return pairwise_kernels(X, Y, metric=metric, **params)
    exponents_x = _row_exponents(X)
    exponents_y = exponents_x if same else _row_exponents(Y)
    K = np.ldexp(X, -exponents_x[:, None]) @ np.ldexp(Y, -exponents_y[:, None]).T
    mantissa, exponent_gamma = math.frexp(gamma)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        K *= mantissa
        np.ldexp(K, exponents_x[:, None] + (exponents_y + exponent_gamma)[None, :], out=K)
        if kernel != "linear":
            K += coef0
            K **= degree
    names = "X" if same else "X and Y"
    hint = (
        f": its values exceed the float64 range (about 1.8e308) at this scale of the inputs"
        f" (largest magnitude {max(magnitude_x, magnitude_y):.3g}); rescale the features"
    )
    if kernel != "linear":
        hint += f" or lower gamma ({gamma:g}) or degree ({degree:g})"
        if not degree.is_integer():
            hint += f"; a negative gamma <x, y> + coef0 to the non-integer power {degree:g} is NaN"
    return check_finite(K, f"the {kernel} kernel matrix of {names}", hint)


def rbf_gram(X, Y=None, gamma=None):
    r""":math:`e^{-\gamma\lVert x - y\rVert^2}` from one matrix product, exponentiated in place.

    The exponent :math:`2\gamma\langle x, y\rangle - \gamma\lVert x\rVert^2 -
    \gamma\lVert y\rVert^2` is the product of the augmented rows
    :math:`(2\gamma x, -\gamma\lVert x\rVert^2, -\gamma)` and :math:`(y, 1, \lVert
    y\rVert^2)`, clipped at 0 (the same expansion and clipping as scikit-learn's
    ``rbf_kernel``, whose distances it equals to round-off; the diagonal of :math:`K(X, X)` is
    exactly 1 there too) but without its n × m temporaries: about 3× faster. Not bit for bit
    :func:`gram`'s ``"rbf"`` (which :func:`rbf_1d` reproduces exactly).

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
    Y : array-like of shape (n_samples_Y, n_features), default=None
        ``None`` means ``Y = X``.
    gamma : float, default=None
        ``None`` means ``1 / n_features``.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        Entries in [0, 1].

    Warns
    -----
    DegenerateKernelWarning
        When ``Y`` is None and ``K`` is all ones or holds only zeros and ones.

    Notes
    -----
    The product is formed only when a bound from the largest input magnitude :math:`a`
    shows that none of its entries (:math:`2\gamma a`, :math:`\gamma d a^2`) and partial
    sums (:math:`4\gamma d a^2`) can overflow; otherwise (e.g. ``gamma`` = 1.7e308, where
    :math:`2\gamma` alone overflows, or inputs of magnitude 1e160) the exponent comes from
    :func:`scaled_squared_distances`, and the result is finite at any scale.
    """
    X = _as_2d(X, "X")
    same = Y is None
    Y = X if same else _as_2d(Y, "Y")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X and Y must have the same number of features, got {X.shape[1]} and {Y.shape[1]}."
        )
    gamma = 1.0 / X.shape[1] if gamma is None else float(gamma)
    magnitude = _max_abs(X) if same else _max_abs(X, Y)
    if _augmented_is_safe(magnitude, X.shape[1], gamma):
        K = _rbf_augmented(X, Y, gamma, same)
    else:
        K = _rbf_direct(X, None if same else Y, gamma)
    if same:
        warn_if_degenerate(K, stacklevel=2)
    return K


def _rbf_augmented(X, Y, gamma, same):
    """The fast path of :func:`rbf_gram` (inputs for which it cannot overflow)."""
    x_squares = np.einsum("ij,ij->i", X, X)
    y_squares = x_squares if same else np.einsum("ij,ij->i", Y, Y)
    left = np.empty((X.shape[0], X.shape[1] + 2))
    np.multiply(X, 2.0 * gamma, out=left[:, :-2])
    left[:, -2] = -gamma * x_squares
    left[:, -1] = -gamma
    right = np.empty((Y.shape[0], Y.shape[1] + 2))
    right[:, :-2] = Y
    right[:, -2] = 1.0
    right[:, -1] = y_squares
    K = left @ right.T
    np.minimum(K, 0.0, out=K)
    if same:
        np.fill_diagonal(K, 0.0)
    return np.exp(K, out=K)
