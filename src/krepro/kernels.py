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
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.metrics.pairwise import pairwise_kernels

from krepro.validation import GroupEncoder, check_sensitive_features

__all__ = ["KERNELS", "MATERN_ORDERS", "gram", "kernel_params", "matern_1d", "rbf_1d", "rbf_gram"]

MATERN_ORDERS = (0.5, 1.5, 2.5, 3.5)
KERNELS = ("linear", "poly", "polynomial", "rbf", "matern", "delta")

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
    """Polynomial coefficients of order ``nu`` and the scale ``sqrt(2 nu) / length_scale``."""
    if float(nu) not in _MATERN_POLYNOMIAL:
        raise ValueError(f"Matérn order nu must be one of {MATERN_ORDERS}, got {nu!r}.")
    if not float(length_scale) > 0:
        raise ValueError(f"length_scale must be positive, got {length_scale!r}.")
    return _MATERN_POLYNOMIAL[float(nu)], np.sqrt(2.0 * float(nu)) / float(length_scale)


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


def _matern(distances, nu, length_scale):
    """Closed-form Matérn kernel of a distance matrix for half-integer ``nu``."""
    coefficients, scale = _matern_coefficients(nu, length_scale)
    a = np.multiply(distances, scale)
    out = np.empty_like(a)
    _matern_rows(a, coefficients, out, np.empty_like(a), np.empty_like(a))
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
    xs = np.asarray(x, dtype=float).ravel() * scale
    symmetric = y is None
    ys = xs if symmetric else np.asarray(y, dtype=float).ravel() * scale
    if upper and not symmetric:
        raise ValueError("upper=True needs y = None (a symmetric matrix).")
    n, m = len(xs), len(ys)
    if out is None:
        out = np.empty((n, m))
    elif out.shape != (n, m) or out.dtype != np.float64 or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous float64 array of shape {(n, m)}.")
    rows = _KERNEL_CHUNK_ROWS
    buffers = np.empty((3, rows * m))
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        first = start if upper else 0
        shape = (stop - start, m - first)
        # Contiguous scratch views (slices of a wider buffer would be strided and slower).
        a, work, poly = (buffer[: shape[0] * shape[1]].reshape(shape) for buffer in buffers)
        np.subtract(xs[start:stop, None], ys[None, first:], out=a)
        np.abs(a, out=a)
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

    Parameters
    ----------
    x : array-like of shape (n,) or (n, 1)
    y : array-like of shape (m,) or (m, 1), default=None
        ``None`` means ``y = x``.
    gamma : float > 0, default=1.0

    Returns
    -------
    K : ndarray of shape (n, m)

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

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.kernels import gram
    >>> round(float(gram([[0.0]], [[np.sqrt(2.0)]], "matern", nu=3.5)[0, 0]), 6)
    0.328067
    """
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
    X = _as_2d(X, "X")
    Y = X if Y is None else _as_2d(Y, "Y")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X and Y must have the same number of features, got {X.shape[1]} and {Y.shape[1]}."
        )
    if kernel == "matern":
        # Direct differences: euclidean_distances' |x|^2 - 2<x,y> + |y|^2 expansion loses ~1e-8 at
        # coincident points, which the non-smooth nu = 1/2 kernel turns into a ~1e-8 error.
        distances = cdist(X, Y)
        return _matern(
            distances, float(params.get("nu", 1.5)), float(params.get("length_scale", 1.0))
        )
    metric = "poly" if kernel == "polynomial" else kernel
    return pairwise_kernels(X, Y, metric=metric, **params)


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
    """
    X = _as_2d(X, "X")
    same = Y is None
    Y = X if same else _as_2d(Y, "Y")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X and Y must have the same number of features, got {X.shape[1]} and {Y.shape[1]}."
        )
    gamma = 1.0 / X.shape[1] if gamma is None else float(gamma)
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
