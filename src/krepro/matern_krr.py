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
from one sorted target to the next by :math:`\Phi`, which is the same for every block, so one
loop over the targets serves all blocks of all partitionings (:func:`_scan`).

Many independent systems are solved at once: blocks of equal size are stacked, and
partitionings of different block sizes share one loop over the position in the block (the
blocks still running at a position form a prefix of the stacked columns). The loops have
``max(n)`` and ``T`` steps of a few NumPy calls on arrays of all active blocks; there are no
Python loops over blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb, factorial

import numpy as np

from krepro.kernels import _MATERN_POLYNOMIAL, _matern_coefficients

__all__ = ["matern_partition_predictions"]


# --------------------------------------------------------------------------- tables

# Observation covector c = a of the e-basis, by state dimension.
_MATERN_OBSERVATION = {len(a): np.array(a) for a in _MATERN_POLYNOMIAL.values()}


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
    prediction: np.ndarray  # (d, d): whitened sums -> coefficients of the polynomial in the gap
    rows: np.ndarray  # packed upper triangle of a symmetric d x d matrix
    cols: np.ndarray
    Sc: np.ndarray  # (d, p): packed S -> S c
    transport_S: np.ndarray  # (p, (2q + 1) p): packed S -> Phi S Phi^T, powers e^{-2D} D^m
    transport: np.ndarray  # (d, (q + 1) d): v -> Phi v, powers e^{-D} D^k
    transport_T: np.ndarray  # (d, (q + 1) d): g -> Phi^T g


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
    d = len(a)
    q = d - 1
    H = np.zeros((d, d))
    for k in range(d):
        for s in range(d - k):
            H[k, s] = a[k + s] * comb(k + s, k)
    root = np.linalg.cholesky(_stationary_covariance(a))
    whiten = np.linalg.inv(root)
    rows, cols = np.triu_indices(d)
    n_packed = len(rows)
    # Phi(D) = e^{-D} sum_k D^k B_k with (B_k)_{rs} = binom(r, s) for r - s = k; whitened.
    B = np.zeros((d, d, d))
    for r in range(d):
        for s in range(r + 1):
            B[r - s, r, s] = comb(r, s)
    B = whiten @ B @ root
    sc = np.zeros((d, n_packed))
    transport_S = np.zeros((n_packed, 2 * q + 1, n_packed))
    for index, (u, v) in enumerate(zip(rows, cols, strict=True)):
        unit = np.zeros((d, d))
        unit[u, v] = unit[v, u] = 1.0
        sc[:, index] = unit @ (root.T @ a)
        for j in range(d):
            for k in range(d):
                transport_S[:, j + k, index] += (B[j] @ unit @ B[k].T)[rows, cols]
    return _Tables(
        a=a,
        c=root.T @ a,
        e0=whiten[:, 0].copy(),
        prediction=H @ root,
        rows=rows,
        cols=cols,
        Sc=sc,
        transport_S=transport_S.reshape(n_packed, -1),
        transport=B.transpose(1, 0, 2).reshape(d, -1),  # [r, k d + s] = (B_k)_{rs}
        transport_T=B.transpose(2, 0, 1).reshape(d, -1),  # [r, k d + s] = (B_k)_{sr}
    )


# --------------------------------------------------------------------------- layout


@dataclass(frozen=True)
class _Layout:
    """Step-major storage of several levels of equal-size blocks.

    Level ``l`` has ``counts[l]`` blocks of ``sizes[l]`` points (sizes non-increasing). At step
    ``k`` the running blocks are the first ``active[k]`` stacked columns; their entries lie at
    ``offsets[k]:offsets[k] + active[k]`` of a flat array. ``index[l]`` (shape
    ``(counts[l], sizes[l])``) maps the level's (block, position) to the flat array.
    """

    sizes: tuple
    counts: tuple
    active: np.ndarray
    offsets: np.ndarray
    index: tuple

    @property
    def total(self):
        return int(self.offsets[-1])


@lru_cache(maxsize=8)
def _layout(sizes, counts):
    column_start = np.concatenate([[0], np.cumsum(counts)])
    active = np.array(
        [sum(c for n, c in zip(sizes, counts, strict=True) if n > k) for k in range(sizes[0])],
        dtype=np.int64,
    )
    offsets = np.concatenate([[0], np.cumsum(active)])
    index = tuple(
        offsets[None, :n] + column_start[level] + np.arange(count)[:, None]
        for level, (n, count) in enumerate(zip(sizes, counts, strict=True))
    )
    return _Layout(sizes, counts, active, offsets, index)


# --------------------------------------------------------------------------- recursions


def _powers(delta, degree, factor):
    """``exp(-factor * delta) * delta**k``, ``k = 0..degree``, in rows (``degree + 1``, m)."""
    out = np.empty((degree + 1, len(delta)))
    np.multiply(delta, -factor, out=out[0])
    np.exp(out[0], out=out[0])
    for k in range(1, degree + 1):
        np.multiply(out[k - 1], delta, out=out[k])
    return out


class _Sweeps:
    """Factorisation and substitutions over the step-major layout, whitened coordinates.

    States are (components, running blocks) arrays; per-entry results are stored at the
    entry's flat position (``(d, total)`` or ``(total,)``).
    """

    def __init__(self, tables, layout, t, noise):
        self.tables, self.layout = tables, layout
        q = len(tables.a) - 1
        delta = np.zeros(layout.total)
        off, active = layout.offsets, layout.active
        for k in range(1, len(active)):
            c = active[k]
            delta[off[k] : off[k] + c] = t[off[k] : off[k] + c] - t[off[k - 1] : off[k - 1] + c]
        # Powers of the gap from step k - 1 into step k, at step k's entries.
        self.vector_powers = _powers(delta, q, 1.0)
        self.matrix_powers = _powers(delta, 2 * q, 2.0)
        self.diagonal = tables.a[0] + noise

    def _part(self, k):
        start = self.layout.offsets[k]
        return slice(start, start + self.layout.active[k])

    def factor_forward(self, rhs):
        """Factorisation ``(D, W)`` and the forward substitution ``z`` of ``L z = rhs``."""
        tables, layout = self.tables, self.layout
        d, n_packed = len(tables.a), len(tables.rows)
        S = np.zeros((n_packed, layout.active[0]))
        f = np.zeros((d, layout.active[0]))
        D = np.empty(layout.total)
        W = np.empty((d, layout.total))
        z = np.empty(layout.total)
        for k in range(len(layout.active)):
            c, part = layout.active[k], self._part(k)
            if k:
                spread = self.vector_powers[:, None, part] * f[None, :, :c]
                f = tables.transport @ spread.reshape(-1, c)
                spread = self.matrix_powers[:, None, part] * S[None, :, :c]
                S = tables.transport_S @ spread.reshape(-1, c)
            Sc = tables.Sc @ S
            Dk = np.subtract(self.diagonal[part], tables.c @ Sc, out=D[part])
            r = tables.e0[:, None] - Sc
            Wk = np.divide(r, Dk, out=W[:, part])
            zk = np.subtract(rhs[part], tables.c @ f, out=z[part])
            S += r[tables.rows] * Wk[tables.cols]
            f += Wk * zk
        return D, W, z

    def substitute_backward(self, D, W, z):
        """Back substitution ``L^T alpha = z / D``."""
        tables, layout = self.tables, self.layout
        d = len(tables.a)
        alpha = np.empty(layout.total)
        g = np.zeros((d, layout.active[-1]))
        previous = None
        for k in range(len(layout.active) - 1, -1, -1):
            c, part = layout.active[k], self._part(k)
            if previous is not None:
                c1 = layout.active[k + 1]
                g += np.multiply.outer(tables.c, alpha[previous])
                spread = self.vector_powers[:, None, previous] * g[None]
                moved = tables.transport_T @ spread.reshape(-1, c1)
                if c > c1:
                    g = np.zeros((d, c))
                    g[:, :c1] = moved
                else:
                    g = moved
            ak = np.divide(z[part], D[part], out=alpha[part])
            ak -= np.einsum("ij,ij->j", W[:, part], g)
            previous = part
        return alpha


# --------------------------------------------------------------------------- targets


def _scan(t, targets, alphas, columns, n_columns, degree, rows=None):
    r"""Predictions at sorted targets of every block of every partition, one loop over targets.

    The left sums :math:`L(\tilde t) = \sum_{t_i \le \tilde t} e(\tilde t - t_i)\alpha_i` obey
    :math:`L(\tilde t_s) = \Phi(\tilde t_s - \tilde t_{s-1}) L(\tilde t_{s-1}) + \sum_{\tilde
    t_{s-1} < t_i \le \tilde t_s} e(\tilde t_s - t_i)\alpha_i`, and the right sums
    :math:`R(\tilde t) = \sum_{t_i > \tilde t} e(t_i - \tilde t)\alpha_i` the mirror image;
    the prediction is :math:`c^\top L(\tilde t) + c^\top R(\tilde t)` (e-basis, :math:`c = a`).
    The transitions are shared by all blocks, so each step is one small matrix product over
    all of them. The points' offsets :math:`e(\cdot)` to their neighbouring targets do not
    depend on the partition and are computed once.

    Parameters
    ----------
    t : ndarray of shape (N,)
        The (scaled) points, in their original order.
    targets : ndarray of shape (T,)
        Sorted scaled targets.
    alphas : ndarray of shape (L, N)
        Per partition, the dual coefficient of every point.
    columns : ndarray of shape (L, N)
        Per partition, the stacked block index of every point.
    rows : ndarray of shape (T,), default=None
        Output row of each sorted target (e.g. the sorting permutation, so the rows come
        out in the targets' original order); ``None``: sorted order.

    Returns
    -------
    predictions : ndarray of shape (T, n_columns)
        Row ``rows[s]`` holds sorted target ``s`` (writing there directly saves a permuting
        copy of the whole array).
    """
    d = degree + 1
    n_targets = len(targets)
    bins = np.searchsorted(targets, t, side="left")  # number of targets left of t_i
    by_bin = np.argsort(bins.astype(np.min_scalar_type(n_targets)), kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(bins, minlength=n_targets + 1))])
    bins, t_bin = bins[by_bin], t[by_bin]
    # Offsets to the first target at or right of the point and to the last one left of it.
    left_gap = targets[np.minimum(bins, n_targets - 1)] - t_bin
    right_gap = t_bin - targets[np.maximum(bins - 1, 0)]
    left_offsets = _powers(np.maximum(left_gap, 0.0), degree, 1.0)  # (d, N)
    right_offsets = _powers(np.maximum(right_gap, 0.0), degree, 1.0)
    # (partition, component, point) arrays, points in target order: flat state index, values.
    weights = alphas[:, None, by_bin]
    index = columns[:, None, by_bin] + (np.arange(d) * n_columns)[None, :, None]
    left_values = weights * left_offsets[None]
    right_values = weights * right_offsets[None]
    B = np.zeros((d, d, d))
    for r in range(d):
        for s in range(r + 1):
            B[r - s, r, s] = comb(r, s)
    gaps = np.concatenate([[0.0], np.diff(targets)])
    transitions = np.einsum("ks,kij->sij", _powers(gaps, degree, 1.0), B)  # into target s
    c = _MATERN_OBSERVATION[d]
    rows = np.arange(n_targets) if rows is None else rows
    out = np.empty((n_targets, n_columns))
    right_part = np.empty((n_targets, n_columns))
    left = np.zeros((d, n_columns))
    right = np.zeros((d, n_columns))
    for s in range(n_targets):
        r = n_targets - 1 - s  # the right sums run leftwards
        if s:
            left = transitions[s] @ left
            right = transitions[r + 1] @ right
        part = slice(bounds[s], bounds[s + 1])  # points between targets s - 1 and s
        np.add.at(left.ravel(), index[..., part].ravel(), left_values[..., part].ravel())
        part = slice(bounds[r + 1], bounds[r + 2])  # points between targets r and r + 1
        np.add.at(right.ravel(), index[..., part].ravel(), right_values[..., part].ravel())
        np.matmul(c, left, out=out[rows[s]])
        np.matmul(c, right, out=right_part[rows[r]])
    out += right_part
    return out


# --------------------------------------------------------------------------- public


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
    d = len(tables.a)
    x = np.asarray(x, dtype=float).ravel() * scale
    y = np.asarray(y, dtype=float).ravel()
    targets = np.asarray(x_targets, dtype=float).ravel() * scale
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
    by_size = sorted(range(len(partitions)), key=lambda i: partitions[i])
    counts = tuple(partitions[i] for i in by_size)
    sizes = tuple(n_samples // p for p in counts)
    layout = _layout(sizes, counts)
    t = np.empty(layout.total)
    rhs = np.empty(layout.total)
    diagonal_load = np.empty(layout.total)
    orders = []
    for level, i in enumerate(by_size):
        blocks = x.reshape(counts[level], sizes[level])
        order = np.argsort(blocks, axis=1)
        index = layout.index[level]
        t[index] = np.take_along_axis(blocks, order, 1)
        rhs[index] = np.take_along_axis(y.reshape(blocks.shape), order, 1)
        diagonal_load[index] = noise[i]
        orders.append(order + (np.arange(counts[level]) * sizes[level])[:, None])
    sweeps = _Sweeps(tables, layout, t, diagonal_load)
    D, W, z = sweeps.factor_forward(rhs)
    alpha = sweeps.substitute_backward(D, W, z)
    # Per partitioning: coefficient and stacked block of every point in its original order.
    column_start = np.concatenate([[0], np.cumsum(counts)])
    alphas = np.empty((len(counts), n_samples))
    columns = np.empty((len(counts), n_samples), dtype=np.int64)
    for level in range(len(counts)):
        alphas[level, orders[level]] = alpha[layout.index[level]]
        columns[level] = column_start[level] + np.arange(n_samples) // sizes[level]
    predictions = _scan(
        x, targets[target_order], alphas, columns, int(column_start[-1]), d - 1, target_order
    )
    results = [None] * len(partitions)
    for level, i in enumerate(by_size):
        results[i] = predictions[:, column_start[level] : column_start[level + 1]].T
    return results
