r"""Kernel ridge regression with a one-dimensional half-integer Matérn kernel in O(n).

The fast solver behind :func:`krepro.distributed.local_predictions_nested` (Avanesov,
arXiv:2105.11425, eq. (14): :math:`(K_p + n\rho I)\alpha_p = y_p`,
:math:`\hat f_p(x) = k(x, X_p)\alpha_p`).

A Matérn kernel of half-integer order :math:`\nu = q + 1/2` is, in the scaled distance
:math:`\tau = \sqrt{2\nu}\,|x - x'|/\ell`, :math:`k = e^{-\tau}\sum_{k \le q} a_k\tau^k`
(:mod:`krepro.kernels`): the covariance of a :math:`(q+1)`-dimensional linear state-space model
(Hartikainen & Särkkä 2010). On sorted points :math:`t_1 \le \dots \le t_n` this makes
:math:`K` semiseparable of rank :math:`q + 1`: with the basis
:math:`e(\tau) = e^{-\tau}(1, \tau, \dots, \tau^q)`, the symmetric matrix :math:`H_{ks} =
a_{k+s}\binom{k+s}{k}` and :math:`c = H e_0 = a`, for :math:`i \ge m \ge j`

.. math:: K_{ij} = c^\top e(t_i - t_j) = c^\top \Phi(t_i - t_m)\, e(t_m - t_j),
   \qquad e(\tau + \Delta) = \Phi(\Delta) e(\tau),\quad
   \Phi(\Delta) = e^{-\Delta} \bigl[\tbinom{r}{s}\Delta^{r-s}\bigr]_{r \ge s}.

Every quantity is kept at the current point (only non-negative gaps enter the
exponentials, so nothing overflows), and :math:`K + \sigma^2 I = L D L^\top` is computed by
the generator recursion of a semiseparable Cholesky factorisation (celerite, Foreman-Mackey
et al. 2017, in local coordinates): with :math:`S_1 = 0`,

.. math:: D_m = a_0 + \sigma^2 - c^\top S_m c,\quad W_m = (e_0 - S_m c)/D_m,\quad
   S_{m+1} = \Phi_m (S_m + D_m W_m W_m^\top)\Phi_m^\top,

and :math:`L_{im} = c^\top\Phi(t_i - t_m) W_m` for :math:`i > m` (:math:`\Phi_m` =
:math:`\Phi(t_{m+1} - t_m)`); forward and back substitution are recursions of the same kind.
The recursion runs in whitened coordinates (the stationary state covariance becomes the
identity, so :math:`0 \preceq S \preceq I` and the pivot's cancellation is no worse than in a
dense Cholesky factorisation): tested as accurate as LAPACK's dense solve or better against a
long-double reference.

Predictions use the left and right sums :math:`L(\tilde t) = \sum_{t_i \le \tilde t}
e(\tilde t - t_i)\alpha_i` and :math:`R(\tilde t) = \sum_{t_i > \tilde t} e(t_i - \tilde
t)\alpha_i`, :math:`\hat f(\tilde t) = c^\top L(\tilde t) + c^\top R(\tilde t)`: carried
from one sorted target to the next by :math:`\Phi`, whose matrices are computed once for all
blocks (:func:`_predict_blocks`).

The recursions are sequential along a block, so they are compiled (Numba) and run over
:data:`CHUNK` blocks of one partitioning at a time, vectorised across the chunk, whose
states stay in the L1 cache; a NumPy form (one array operation per position, across all
blocks) spends its time on temporaries and call overhead. Every order runs with its state
zero-padded to :data:`STATE`. Cost: about 250 flops per point for the factorisation and
substitutions and :math:`2 \cdot 4^2` per (block, target) for the predictions; compiled once
per machine and cached beside this file. Results do not depend on :data:`CHUNK`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb, factorial

import numpy as np
from numba import njit

from krepro.matern import _matern_coefficients

__all__ = ["matern_partition_predictions", "positions_are_representable"]


# --------------------------------------------------------------------------- tables


#: State dimension of the compiled recursions: the largest Matérn order's q + 1 (ν = 7/2).
STATE = 4
#: Blocks processed together by the compiled recursions (vectorised across blocks; their
#: states stay in the L1 cache).
CHUNK = 64


@dataclass(frozen=True)
class _Tables:
    r"""Constant matrices of the recursions for polynomial degree ``q`` (``d = q + 1``).

    The recursions run in whitened coordinates: with :math:`\Sigma_\infty = C C^\top` the
    stationary covariance of the state in the basis :math:`e` (:math:`\Sigma_\infty c =
    e_0`), vectors are :math:`C^{-1} v` and covectors :math:`C^\top c`, so the accumulated
    :math:`S` stays between 0 and the identity and :math:`c^\top S c \le 1` is computed
    without cancellation beyond that of the pivot itself (as accurate as dense Cholesky).
    """

    a: np.ndarray  # (d,) kernel polynomial coefficients
    c: np.ndarray  # (d,) observation covector, whitened
    e0: np.ndarray  # (d,) unit vector e_0, whitened
    B: np.ndarray  # (d, d, d): the whitened B_k of Phi(D) = e^{-D} sum_k D^k B_k


def _stationary_covariance(a):
    r""":math:`\Sigma_\infty` in the basis :math:`e`: derivative covariances mapped back.

    With :math:`F = N - I` (:math:`\Phi(\Delta) = e^{F\Delta}`), the derivatives of the
    process are :math:`f^{(r)} = c^\top F^r x`, with covariances
    :math:`(-1)^s k^{(r+s)}(0)`.
    """
    d = len(a)
    N = np.diag(np.arange(1.0, d), -1)
    F = N - np.eye(d)
    observe = np.array([a @ np.linalg.matrix_power(F, r) for r in range(d)])

    def derivative(m):  # k^{(m)}(0+) of exp(-t) sum_j a_j t^j
        return sum(
            comb(m, j) * (-1) ** (m - j) * factorial(j) * a[j] for j in range(min(m, d - 1) + 1)
        )

    moments = np.array(
        [[(-1) ** s * derivative(r + s) if (r + s) % 2 == 0 else 0.0 for s in range(d)]
         for r in range(d)]
    )  # fmt: skip
    inverse = np.linalg.inv(observe)
    return inverse @ moments @ inverse.T


@lru_cache(maxsize=8)
def _tables(coefficients):
    a = np.asarray(coefficients, dtype=float)
    root = np.linalg.cholesky(_stationary_covariance(a))
    whiten = np.linalg.inv(root)
    return _Tables(
        a=_pad(a),
        c=_pad(root.T @ a),
        e0=_pad(whiten[:, 0]),
        B=_pad(whiten @ _binomial_basis(len(a)) @ root),
    )


def _pad(array):
    """``array`` zero-padded to :data:`STATE` along every axis (C-contiguous float64).

    Zero rows and columns stay zero through every recursion, so padded orders give the
    same results, and the compiled loops see a compile-time state dimension.
    """
    out = np.zeros((STATE,) * array.ndim)
    out[tuple(slice(0, n) for n in array.shape)] = array
    return out


# --------------------------------------------------------------------------- recursions


@njit(cache=True)
def _transitions(t, k, B, start, width, powers, Phi):
    r""":math:`\Phi(t_{b,k} - t_{b,k-1})` of blocks ``start .. start + width`` into ``Phi``
    (4, 4, chunk), with :math:`\Phi(\Delta) = e^{-\Delta}\sum_m \Delta^m B_m`."""
    d = STATE
    for b in range(width):
        delta = t[start + b, k] - t[start + b, k - 1]
        power = np.exp(-delta)
        powers[0, b] = power
        for m in range(1, d):
            power *= delta
            powers[m, b] = power
    for i in range(d):
        for j in range(d):
            w = B[0, i, j]
            for b in range(width):
                Phi[i, j, b] = w * powers[0, b]
            for m in range(1, d):
                w = B[m, i, j]
                for b in range(width):
                    Phi[i, j, b] += w * powers[m, b]


@njit(cache=True)
def _solve_blocks(t, rhs, diagonal, B, c, e0):
    r""":math:`(K_p + \sigma^2 I)\alpha_p = y_p` for every block (row) ``p``, whitened coordinates.

    ``t`` (blocks, n): each row's sorted scaled points; ``rhs`` the matching targets;
    ``diagonal`` = :math:`a_0 + \sigma^2`; ``B`` (4, 4, 4) the whitened :math:`B_m`;
    ``c``, ``e0`` the whitened covector and unit vector. The factorisation ``(D, W)`` and the
    forward substitution run in one sweep up the rows, the back substitution
    :math:`L^\top\alpha = z/D` in one sweep down them (module docstring), :data:`CHUNK`
    blocks at a time (vectorised across blocks); returns α in the layout of ``t``.
    """
    n_blocks, n = t.shape
    d = STATE
    K = CHUNK
    alpha = np.empty((n_blocks, n))
    D = np.empty((n, K))
    W = np.empty((n, d, K))
    z = np.empty((n, K))
    S = np.empty((d, d, K))
    PS = np.empty((d, d, K))
    Phi = np.empty((d, d, K))
    powers = np.empty((d, K))
    f = np.empty((d, K))
    v = np.empty((d, K))
    for start in range(0, n_blocks, K):
        width = min(K, n_blocks - start)
        S[:] = 0.0
        f[:] = 0.0
        for k in range(n):
            if k:
                _transitions(t, k, B, start, width, powers, Phi)
                for i in range(d):  # f <- Phi f
                    for b in range(width):
                        v[i, b] = Phi[i, 0, b] * f[0, b]
                    for j in range(1, d):
                        for b in range(width):
                            v[i, b] += Phi[i, j, b] * f[j, b]
                f, v = v, f
                for i in range(d):  # S <- Phi S Phi^T (upper triangle, mirrored)
                    for j in range(d):
                        for b in range(width):
                            PS[i, j, b] = Phi[i, 0, b] * S[0, j, b]
                        for m in range(1, d):
                            for b in range(width):
                                PS[i, j, b] += Phi[i, m, b] * S[m, j, b]
                for i in range(d):
                    for j in range(i, d):
                        for b in range(width):
                            S[i, j, b] = PS[i, 0, b] * Phi[j, 0, b]
                        for m in range(1, d):
                            for b in range(width):
                                S[i, j, b] += PS[i, m, b] * Phi[j, m, b]
                        for b in range(width):
                            S[j, i, b] = S[i, j, b]
            for b in range(width):
                D[k, b] = diagonal
                z[k, b] = rhs[start + b, k]
            for i in range(d):
                for b in range(width):
                    v[i, b] = S[i, 0, b] * c[0]
                for j in range(1, d):
                    for b in range(width):
                        v[i, b] += S[i, j, b] * c[j]  # S c
                for b in range(width):
                    D[k, b] -= c[i] * v[i, b]
                    z[k, b] -= c[i] * f[i, b]
            for i in range(d):
                for b in range(width):
                    v[i, b] = e0[i] - v[i, b]  # r = e0 - S c
                    W[k, i, b] = v[i, b] / D[k, b]
            for i in range(d):  # S += r W^T (= D W W^T, symmetric)
                for j in range(i, d):
                    for b in range(width):
                        S[i, j, b] += v[i, b] * W[k, j, b]
                        S[j, i, b] = S[i, j, b]
                for b in range(width):
                    f[i, b] += W[k, i, b] * z[k, b]
        f[:] = 0.0  # g, the back substitution's state
        for k in range(n - 1, -1, -1):
            if k < n - 1:
                for i in range(d):
                    for b in range(width):
                        f[i, b] += c[i] * alpha[start + b, k + 1]
                _transitions(t, k + 1, B, start, width, powers, Phi)
                for i in range(d):  # g <- Phi^T g
                    for b in range(width):
                        v[i, b] = Phi[0, i, b] * f[0, b]
                    for j in range(1, d):
                        for b in range(width):
                            v[i, b] += Phi[j, i, b] * f[j, b]
                f, v = v, f
            for b in range(width):
                alpha[start + b, k] = z[k, b] / D[k, b]
            for i in range(d):
                for b in range(width):
                    alpha[start + b, k] -= W[k, i, b] * f[i, b]
    return alpha


# --------------------------------------------------------------------------- targets


@njit(cache=True)
def _predict_blocks(
    alpha, order, bins, left_offsets, right_offsets, transitions, c, rows, out, column
):
    r"""Predictions of every block at every sorted target, into ``out`` (T, blocks).

    The left sums :math:`L(\tilde t) = \sum_{t_i \le \tilde t} e(\tilde t - t_i)\alpha_i` obey
    :math:`L(\tilde t_s) = \Phi(\tilde t_s - \tilde t_{s-1}) L(\tilde t_{s-1}) + \sum_{\tilde
    t_{s-1} < t_i \le \tilde t_s} e(\tilde t_s - t_i)\alpha_i`, and the right sums
    :math:`R(\tilde t) = \sum_{t_i > \tilde t} e(t_i - \tilde t)\alpha_i` the mirror image;
    the prediction is :math:`c^\top L(\tilde t) + c^\top R(\tilde t)` (e-basis, :math:`c =
    a`). Blocks are swept :data:`CHUNK` at a time: each block's points are first summed per
    target interval, then one sweep over the targets per direction updates all the chunk's
    states at once (vectorised across blocks).

    ``alpha``, ``order`` (blocks, n): the coefficients and original indices of each block's
    points; ``bins`` (N,): the number of targets left of each point;
    ``left_offsets``/``right_offsets`` (N, 4): :math:`e(\cdot)` of each point's gap to its
    first target at or right of it / last target left of it; ``transitions`` (T, 4, 4):
    :math:`\Phi` from sorted target s - 1 to s; ``rows`` (T,): output row of each sorted
    target; ``column``: the output column of the first block.
    """
    n_blocks, n = alpha.shape
    n_targets, d = transitions.shape[0], STATE
    added = np.zeros((n_targets + 1, d, CHUNK))
    state = np.empty((d, CHUNK))
    moved = np.empty((d, CHUNK))
    for start in range(0, n_blocks, CHUNK):
        k = min(CHUNK, n_blocks - start)
        first = column + start
        for side in range(2):
            offsets = left_offsets if side == 0 else right_offsets
            for b in range(k):
                for q in range(n):
                    index = order[start + b, q]
                    a = alpha[start + b, q]
                    for i in range(d):
                        added[bins[index], i, b] += a * offsets[index, i]
            state[:, :k] = 0.0
            for step in range(n_targets):
                # Left sums: target s takes the points of interval s (bins == s); right sums
                # (leftwards): target s takes those of interval s + 1.
                s = step if side == 0 else n_targets - 1 - step
                interval = s if side == 0 else s + 1
                if step:
                    phi = transitions[s] if side == 0 else transitions[s + 1]
                    for i in range(d):
                        w = phi[i, 0]
                        for b in range(k):
                            moved[i, b] = w * state[0, b]
                        for j in range(1, d):
                            w = phi[i, j]
                            for b in range(k):
                                moved[i, b] += w * state[j, b]
                    state, moved = moved, state
                for i in range(d):
                    for b in range(k):
                        state[i, b] += added[interval, i, b]
                        added[interval, i, b] = 0.0
                row = out[rows[s]]
                if side == 0:
                    for b in range(k):
                        row[first + b] = c[0] * state[0, b]
                else:
                    for b in range(k):
                        row[first + b] += c[0] * state[0, b]
                for i in range(1, d):
                    for b in range(k):
                        row[first + b] += c[i] * state[i, b]
            unused = n_targets if side == 0 else 0  # beyond the last / before the first target
            for i in range(d):
                for b in range(k):
                    added[unused, i, b] = 0.0


def _powers(delta, degree, factor, rows=None):
    """``exp(-factor * delta) * delta**k``, ``k = 0..degree``, in rows (``degree + 1``, m).

    With ``rows``, only the first ``rows`` are computed and the others are zero.
    """
    rows = degree + 1 if rows is None else rows
    out = np.zeros((degree + 1, len(delta)))
    np.multiply(delta, -factor, out=out[0])
    np.exp(out[0], out=out[0])
    for k in range(1, rows):
        np.multiply(out[k - 1], delta, out=out[k])
    return out


def _binomial_basis(d):
    r""":math:`B_k` of :math:`\Phi(\Delta) = e^{-\Delta}\sum_k \Delta^k B_k`, e-basis: (d, d, d)."""
    B = np.zeros((d, d, d))
    for r in range(d):
        for s in range(r + 1):
            B[r - s, r, s] = comb(r, s)
    return B


# --------------------------------------------------------------------------- public


def _scaled_positions(x, x_targets, scale):
    """``x`` and ``x_targets`` times ``scale``, or ``(None, None)`` if a position or a gap
    between two of them overflows float64 (then a gap would be inf or inf - inf)."""
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.asarray(x, dtype=float).ravel() * scale
        targets = np.asarray(x_targets, dtype=float).ravel() * scale
        low = min(x.min(initial=0.0), targets.min(initial=0.0))
        high = max(x.max(initial=0.0), targets.max(initial=0.0))
        finite = np.isfinite(high - low)  # NaN (0 * inf) or an infinite position fail too
    return (x, targets) if finite else (None, None)


def positions_are_representable(x, x_targets, *, nu=3.5, length_scale=1.0):
    r"""Whether :func:`matern_partition_predictions` can run on these points: their positions
    :math:`\sqrt{2\nu}\,x/\ell` and the gaps between them are finite in float64."""
    scale = _matern_coefficients(nu, length_scale)[1]
    return _scaled_positions(x, x_targets, scale)[0] is not None


def matern_partition_predictions(x, y, x_targets, partitions, noise, *, nu=3.5, length_scale=1.0):
    r"""Local KRR predictions for several partitionings of one 1-D sample, Matérn kernel, O(n).

    For every ``P`` in ``partitions`` the sample is split into ``P`` blocks of ``N / P``
    consecutive points; every block :math:`p` solves :math:`(K_p + \sigma^2_P I)\alpha_p =
    y_p` with :math:`K_p` the Matérn kernel matrix of the block, and predicts
    :math:`\hat f_p(\tilde x) = k(\tilde x, X_p)\alpha_p` at the targets — eq. (14) of
    arXiv:2105.11425 with :math:`\sigma^2_P = n\rho` — in :math:`O(n + T)` per block (module
    docstring).

    Parameters
    ----------
    x, y : array-like of shape (N,)
    x_targets : array-like of shape (T,)
    partitions : sequence of int
        Numbers of blocks; each divides ``N``.
    noise : sequence of float
        The diagonal load :math:`\sigma^2_P > 0` of each partitioning.
    nu : {0.5, 1.5, 2.5, 3.5}, default=3.5
    length_scale : float, default=1.0

    Returns
    -------
    predictions : list of ndarray of shape (P, T)
        One per partitioning, in the order given (views of one array).
    """
    coefficients, scale = _matern_coefficients(nu, length_scale)
    tables = _tables(tuple(coefficients))
    d = len(coefficients)
    x, targets = _scaled_positions(x, x_targets, scale)
    if x is None:
        raise ValueError(
            "x and x_targets scaled by sqrt(2 nu) / length_scale (= "
            f"{scale:g}) overflow float64, so the state-space recursion cannot represent their "
            "gaps; local_predictions_nested(..., solver='dense') evaluates this case."
        )
    y = np.asarray(y, dtype=float).ravel()
    n_samples = len(x)
    if len(y) != n_samples:
        raise ValueError(f"x and y differ in length: {n_samples} and {len(y)}.")
    partitions = [int(p) for p in partitions]
    noise = [float(v) for v in noise]
    if len(noise) != len(partitions):
        raise ValueError("noise needs one value per partitioning.")
    for p, sigma2 in zip(partitions, noise, strict=True):
        if p < 1 or n_samples % p:
            raise ValueError(f"Every P must divide N = {n_samples}; got P = {p}.")
        if not sigma2 > 0:
            raise ValueError(f"noise must be positive, got {sigma2!r}.")
    target_order = np.argsort(targets, kind="stable")
    sorted_targets = targets[target_order]
    n_targets = len(sorted_targets)
    # Per point: the number of targets left of it and its offsets e(.) to the first target at
    # or right of it and to the last one left of it (the same for every partitioning).
    bins = np.searchsorted(sorted_targets, x, side="left")
    left_gap = sorted_targets[np.minimum(bins, n_targets - 1)] - x
    right_gap = x - sorted_targets[np.maximum(bins - 1, 0)]
    left_offsets = _powers(np.maximum(left_gap, 0.0), STATE - 1, 1.0, d).T.copy()  # (N, 4)
    right_offsets = _powers(np.maximum(right_gap, 0.0), STATE - 1, 1.0, d).T.copy()
    gaps = np.concatenate([[0.0], np.diff(sorted_targets)])
    transitions = np.einsum("ks,kij->sij", _powers(gaps, d - 1, 1.0), _pad(_binomial_basis(d))[:d])
    predictions = np.empty((n_targets, sum(partitions)))
    results, start = [], 0
    # Each block's points in increasing order (ties by index), as original indices: one sort
    # of all points, then per partitioning a stable sort by block index (a radix sort).
    by_position = np.argsort(x, kind="stable")
    for p, sigma2 in zip(partitions, noise, strict=True):
        block = by_position // (n_samples // p)
        if p <= 1 << 16:
            block = block.astype(np.uint16)
        order = by_position[np.argsort(block, kind="stable")].reshape(p, -1)
        alpha = _solve_blocks(
            x[order],
            y[order],
            tables.a[0] + sigma2,
            tables.B,
            tables.c,
            tables.e0,
        )
        _predict_blocks(
            alpha,
            order,
            bins,
            left_offsets,
            right_offsets,
            transitions,
            tables.a,
            target_order,
            predictions,
            start,
        )
        results.append(predictions[:, start : start + p].T)
        start += p
    return results
