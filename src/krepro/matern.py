r"""Closed-form Matérn kernels of half-integer order, shared by every Matérn evaluation.

For :math:`\nu \in \{1/2, 3/2, 5/2, 7/2\}` the Matérn kernel
:math:`k(r) = \frac{2^{1-\nu}}{\Gamma(\nu)}(\sqrt{2\nu}\,r/\ell)^\nu K_\nu(\sqrt{2\nu}\,r/\ell)`
is :math:`e^{-a}p(a)` in the scaled distance :math:`a = \sqrt{2\nu}\,r/\ell`, with a
polynomial :math:`p` of degree :math:`\nu - 1/2` (Rasmussen & Williams eq. 4.16). One
routine evaluates it in Horner form for :func:`krepro.kernels.gram`'s ``"matern"`` and for
:func:`matern_1d`, the cache-blocked 1-D path of :mod:`krepro.distributed`; the O(n)
recursions of :mod:`krepro.distributed.matern_krr` take their coefficients from here.
Scaled distances at or beyond the point where :math:`e^{-a}` underflows are clipped, so
the kernel value there is exactly 0 rather than :math:`0\cdot\infty`
(:mod:`krepro.kernel_safety`, "Extreme scales"). :mod:`krepro.kernels` re-exports the
public names.
"""

from __future__ import annotations

import math

import numpy as np

from krepro.kernel_safety import _DIFFERENCE_CHUNK, _max_abs, _sum_scaled_squares

__all__ = ["MATERN_ORDERS", "matern_1d"]

MATERN_ORDERS = (0.5, 1.5, 2.5, 3.5)
# Scaled Matérn distances a at or above this have k = e^{-a} p(a) = 0 exactly in float64
# (e^{-a} underflows to 0 beyond a ≈ 745.2 while the polynomial p(a) stays finite), so
# clipping a here changes no finite value and keeps p(a) from overflowing (0 · inf = NaN).
_MATERN_CUTOFF = 1000.0
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
    divide-and-conquer regression with bootstrap bands (:mod:`krepro.distributed`).

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
