r"""Numerically safe kernel evaluation: overflow bounds, direct distances, degeneracy warnings.

The machinery behind :mod:`krepro.kernels`' guarantee that no kernel matrix holds a NaN or
an infinity: the bounds that decide when a fast (expanded, BLAS) evaluation cannot overflow
or lose the exponent to cancellation, the direct-difference distances used where it could
(:func:`scaled_squared_distances`), the check of an unbounded kernel's values
(:func:`check_finite`), and the warning for a Gram matrix that the kernel's scale has made
degenerate (:class:`DegenerateKernelWarning`, :func:`warn_if_degenerate`).
:mod:`krepro.kernels` re-exports the public names.

Extreme scales
--------------
For finite inputs of any magnitude (1e-300 … 1e300) and any finite parameters (``gamma`` up
to the float64 maximum 1.8e308, ``length_scale`` down to the smallest subnormal) no kernel
matrix holds a NaN or an infinity:

* ``"rbf"`` and ``"matern"`` are bounded (entries in [0, 1]). The fast paths (scikit-learn's
  expansion :math:`\lVert x\rVert^2 + \lVert y\rVert^2 - 2\langle x, y\rangle` evaluated
  by BLAS, :func:`~krepro.kernels.rbf_gram`'s augmented product) run only when a bound
  computed from the largest input magnitude :math:`a` shows that none of their
  intermediates can overflow and that their rounding error in the exponent stays small
  (:math:`\gamma d a^2 \le 2^{32}`; beyond, e.g. at :math:`\gamma` = 1e16 on unit-scale
  data, the expansion's cancellation gives coincident points of a cross Gram matrix the
  value 0 instead of 1); otherwise the exponent :math:`\gamma\lVert x - y\rVert^2` is
  evaluated by direct differences (:func:`scaled_squared_distances`:
  :math:`\sum_k (\sqrt\gamma\,(x_k - y_k))^2`, which can overflow only to :math:`+\infty`,
  i.e. a kernel value of exactly 0, and never forms :math:`\infty - \infty`). Ordinary
  scales take the fast paths, so their results are unchanged bit for bit. Matérn distances
  beyond the point where :math:`e^{-a}` underflows give exactly 0 (:math:`e^{-a}p(a)` would
  otherwise be :math:`0\cdot\infty`; :mod:`krepro.matern`).
* At such scales the kernel degenerates: when every distance is tiny against the length
  scale the Gram matrix of a set of points is all ones, and when every distance between
  distinct points is huge it is the identity (only zeros and ones).
  :func:`~krepro.kernels.gram` and :func:`~krepro.kernels.rbf_gram` return that finite
  matrix and emit a :class:`DegenerateKernelWarning` (a ``UserWarning``) for the Gram matrix
  of a set with itself.
* ``"linear"`` and ``"poly"`` are unbounded: their inner products are evaluated on inputs
  scaled by powers of two when the direct product could overflow (exact rescaling, no
  :math:`\infty - \infty` in a cancelling sum), and when the kernel value itself exceeds
  the float64 range a ``ValueError`` names the input (:func:`check_finite`).
"""

from __future__ import annotations

import math
import warnings
from contextlib import contextmanager

import numpy as np
from scipy import linalg

__all__ = [
    "DegenerateKernelWarning",
    "check_finite",
    "scaled_squared_distances",
    "warn_if_degenerate",
]

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
    r"""Whether the augmented product of :func:`krepro.kernels.rbf_gram` (and of the RBF
    tiles of :mod:`krepro.fairness.tiled_gram`) is finite and accurate: its entries are at
    most :math:`2\gamma a`, :math:`\gamma d a^2` and :math:`d a^2`, its partial sums at most
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


def _as_2d(X, name):
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 1-d or 2-d array, got shape {X.shape}.")
    return X


@contextmanager
def named_solves(names, advice, *, overflow=False):
    """Linear algebra whose failure names the arguments behind it.

    A ``LinAlgError`` (a singular or indefinite system) in the block becomes a ``ValueError``
    naming ``names`` with ``advice``; a ``LinAlgWarning`` (an ill-conditioned system, a
    ``RuntimeWarning`` to scipy) becomes one ``UserWarning`` saying the same: the result is
    returned, but its accuracy is limited. Other warnings pass unchanged. With
    ``overflow=True``, a floating-point overflow, invalid operation or division by zero in
    the block (numpy's ``errstate``) is also a ``ValueError`` naming ``names``: for
    computations where any of them means the parameters are beyond float64's range.
    """
    # Only the ill-conditioning warnings are collected here; the filters in force (an
    # "error" filter included) still apply to every other warning where it is raised, and
    # those shown are shown again once the block is left (also when it raises).
    caught, failure, ill_conditioned = [], None, False
    state = {"over": "raise", "invalid": "raise", "divide": "raise"} if overflow else {}
    try:
        with warnings.catch_warnings(record=True) as caught, np.errstate(**state):
            warnings.filterwarnings("always", category=linalg.LinAlgWarning)
            yield
    except linalg.LinAlgError as error:
        failure = error
    except ValueError as error:
        if not (overflow and "must not contain infs or NaNs" in str(error)):
            raise
        raise ValueError(
            f"{names}: an intermediate result is not finite in float64 ({error}); {advice}"
        ) from error
    except FloatingPointError as error:
        raise ValueError(
            f"{names}: the computation leaves the float64 range ({error}); {advice}"
        ) from error
    finally:
        for warning in caught:
            if issubclass(warning.category, linalg.LinAlgWarning):
                ill_conditioned = True
            else:
                warnings.warn_explicit(
                    warning.message, warning.category, warning.filename, warning.lineno
                )
    if failure is not None:
        raise ValueError(
            f"{names}: a linear system is singular or not positive definite in floating "
            f"point ({failure}); {advice}"
        ) from failure
    if ill_conditioned:
        warnings.warn(
            f"{names}: a linear system is ill-conditioned in floating point, the result is "
            f"inaccurate; {advice}",
            UserWarning,
            stacklevel=3,
        )
