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
    the closed forms (exponential times a polynomial; :mod:`krepro.matern`) and parameters
    ``nu`` and ``length_scale``.
``"delta"``
    :math:`k(x, y) = 1\{x = y\}` (all coordinates equal), the kernel of a finite set; the
    points are labels of any hashable type, compared by :mod:`krepro.validation`'s rules
    (``1 == 1.0``, ``1 != "1"``, NaN is an error).

Extreme scales
--------------
For finite inputs of any magnitude and any finite parameters no kernel matrix holds a NaN or
an infinity: RBF and Matérn entries stay in [0, 1], a degenerate RBF or Matérn Gram matrix of
a set with itself comes with a :class:`DegenerateKernelWarning`, and linear or polynomial
values beyond the float64 range raise a ``ValueError`` naming the input. How (the overflow
bounds that guard the fast paths, the direct-difference fallback, the degeneracy check):
:mod:`krepro.kernel_safety`, "Extreme scales".
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.metrics.pairwise import pairwise_kernels

from krepro.kernel_safety import (
    _DIFFERENCE_CHUNK,
    _SAFE_MAGNITUDE,
    DegenerateKernelWarning,
    _as_2d,
    _augmented_is_safe,
    _expansion_is_safe,
    _max_abs,
    _rbf_direct,
    _squares_are_finite,
    _warn_degenerate,
    _zeros_and_ones,
    check_finite,
    scaled_squared_distances,
    warn_if_degenerate,
)
from krepro.matern import (
    _MATERN_CUTOFF,
    MATERN_ORDERS,
    _matern_coefficients,
    _matern_direct,
    _matern_rows,
    _scaled_distances,
    matern_1d,
)
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

KERNELS = ("linear", "poly", "polynomial", "rbf", "matern", "delta")
#: Kernels whose values lie in [0, 1] whatever the inputs' scale.
BOUNDED_KERNELS = ("rbf", "matern", "delta")
# Kernels with a length scale, whose Gram matrix degenerates at extreme scales.
_STATIONARY = ("rbf", "matern")

# Matérn scales sqrt(2 nu) / length_scale above this take the direct path: squared distances
# that underflow (below ~1e-308) would then carry visible error into the kernel values.
_MATERN_SCALE_LIMIT = 2.0**400


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
