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

Every quantity is kept in this basis *at the current point* (only non-negative gaps enter
the exponentials, so nothing overflows), and :math:`K + \sigma^2 I = L D L^\top` is computed by
the generator recursion of a semiseparable Cholesky factorisation (celerite, Foreman-Mackey
et al. 2017, in local coordinates): with :math:`S_1 = 0`,

.. math:: D_m = a_0 + \sigma^2 - c^\top S_m c,\quad W_m = (e_0 - S_m c)/D_m,\quad
   S_{m+1} = \Phi_m (S_m + D_m W_m W_m^\top)\Phi_m^\top,

and :math:`L_{im} = c^\top\Phi(t_i - t_m) W_m` for :math:`i > m` (:math:`\Phi_m` =
:math:`\Phi(t_{m+1} - t_m)`). Forward and back substitution are recursions of the same kind.
One step of iterative refinement (residual :math:`y - (K + \sigma^2 I)\alpha` evaluated by the
same recursions) brings :math:`\alpha` to the accuracy of a dense Cholesky solve or better
(tested against float64 LAPACK and long-double references).

Predictions at targets use the accumulated sums
:math:`L_m = \sum_{i \le m} e(t_m - t_i)\alpha_i` and :math:`R_m = \sum_{i \ge m} e(t_i -
t_m)\alpha_i`: for :math:`t_j \le \tilde t < t_{j+1}`,

.. math:: \hat f(\tilde t) = e^{-\delta_1}\sum_k \delta_1^k (H L_j)_k
   + e^{-\delta_2}\sum_k \delta_2^k (H R_{j+1})_k,\quad
   \delta_1 = \tilde t - t_j,\ \delta_2 = t_{j+1} - \tilde t,

:math:`O(q)` work per (block, target) pair instead of :math:`O(n)`.

Many independent systems are solved at once: blocks of equal size are stacked, and groups
of different sizes ("levels") share one loop over the position in the block (level by level,
the blocks still running at a position form a prefix of the stacked columns). The loop has
``max(n)`` steps of a few NumPy calls on arrays of all active blocks; there are no Python
loops over blocks or targets.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb, factorial

import numpy as np

from krepro.kernels import _matern_coefficients

__all__ = ["matern_block_predictions"]


# --------------------------------------------------------------------------- tables


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


def _contributions(t, alpha, block, targets, degree):
    r"""Contributions of the points to the sums at the targets (see :func:`_scan`).

    Point :math:`t_i` enters the left sums :math:`\sum_{t_i \le \tilde t} e(\tilde t -
    t_i)\alpha_i` at the first target at or right of it, and the right sums
    :math:`\sum_{t_i > \tilde t} e(t_i - \tilde t)\alpha_i` at the last target left of it;
    the scans carry them on from there. Points of one block between the same two targets
    are summed first.

    Parameters
    ----------
    t, alpha, block : ndarray of shape (m,)
        Points, coefficients and stacked block index, block-major and sorted within blocks.

    Returns
    -------
    left, right : tuple (target, block, values)
        Values of shape (degree + 1, k) for ``k`` distinct (block, target) pairs.
    """
    n_targets = len(targets)
    bins = np.searchsorted(targets, t, side="left")  # number of targets left of t_i
    out = []
    for left in (True, False):
        valid = np.flatnonzero(bins < n_targets if left else bins > 0)
        target = bins[valid] if left else bins[valid] - 1
        b, t_i = block[valid], t[valid]
        gap = targets[target] - t_i if left else t_i - targets[target]
        values = _powers(gap, degree, 1.0)
        values *= alpha[valid]
        # Entries are block-major and sorted within blocks: equal (block, target) adjoin.
        start = np.ones(len(target), dtype=bool)
        start[1:] = (target[1:] != target[:-1]) | (b[1:] != b[:-1])
        group = np.cumsum(start) - 1
        n_groups = int(group[-1]) + 1 if len(group) else 0
        if n_groups < len(group):
            values = np.array([np.bincount(group, row, n_groups) for row in values])
        starts = np.flatnonzero(start)
        out.append((target[starts], b[starts], values))
    return out


def _scan(contributions, targets, tables, n_columns, out_rows):
    r"""Predictions at sorted targets from the points' contributions, all blocks at once.

    The left sums :math:`L(\tilde t_s) = \Phi(\tilde t_s - \tilde t_{s-1}) L(\tilde t_{s-1})
    + (\text{new points})` and the right sums (the mirror image, leftwards) share their
    transition matrices across blocks, so one loop over the targets updates every block of
    every level: left and right sums are stacked into one state of ``2 d`` rows. The
    prediction is :math:`c^\top L(\tilde t) + c^\top R(\tilde t)`.

    Returns
    -------
    predictions : ndarray of shape (T, n_columns)
        Row ``out_rows[s]`` holds sorted target ``s``.
    """
    d = len(tables.a)
    n_targets = len(targets)
    key_type = np.min_scalar_type(n_targets)
    # Per side: flat state indices (component, block) and values in the order of the steps
    # that add them (step s: left contributions at target s, right ones at T - 1 - s).
    sides = []
    for side, (target, column, values) in enumerate(contributions):
        step = target if side == 0 else n_targets - 1 - target
        order = np.argsort(step.astype(key_type), kind="stable")
        flat = np.arange(d)[None, :] * n_columns + column[order, None]
        bounds = d * np.concatenate([[0], np.cumsum(np.bincount(step, minlength=n_targets))])
        sides.append((flat.ravel(), values[:, order].T.ravel(), bounds))
    # Transitions across the gap into target s (e-basis: Phi = e^{-D} sum_k D^k B_k).
    B = np.zeros((d, d, d))
    for r in range(d):
        for s in range(r + 1):
            B[r - s, r, s] = comb(r, s)
    gaps = np.concatenate([[0.0], np.diff(targets)])
    transitions = np.einsum("ks,kij->sij", _powers(gaps, d - 1, 1.0), B)
    out = np.empty((n_targets, n_columns))
    right_part = np.empty((n_targets, n_columns))
    (left_flat, left_values, left_bounds), (right_flat, right_values, right_bounds) = sides
    left = np.zeros((d, n_columns))
    right = np.zeros((d, n_columns))
    for s in range(n_targets):
        if s:
            left = transitions[s] @ left
            right = transitions[n_targets - s] @ right
        part = slice(left_bounds[s], left_bounds[s + 1])
        left.ravel()[left_flat[part]] += left_values[part]
        part = slice(right_bounds[s], right_bounds[s + 1])
        right.ravel()[right_flat[part]] += right_values[part]
        np.matmul(tables.a, left, out=out[out_rows[s]])
        np.matmul(tables.a, right, out=right_part[out_rows[n_targets - 1 - s]])
    out += right_part
    return out


# --------------------------------------------------------------------------- public


def matern_block_predictions(levels, x_targets, *, nu=3.5, length_scale=1.0):
    r"""Local KRR predictions of many equal-size blocks of 1-D data, Matérn kernel, O(n).

    For every level ``(x, y, noise)`` with ``x`` and ``y`` of shape ``(P, n)`` (``P`` blocks of
    ``n`` points, any order within a block) and every block :math:`p`: solve
    :math:`(K_p + \sigma^2 I)\alpha_p = y_p` with :math:`K_p` the Matérn kernel matrix of the
    block and :math:`\sigma^2` = ``noise``, and predict :math:`\hat f_p(\tilde x) =
    k(\tilde x, X_p)\alpha_p` at the targets — eq. (14) of arXiv:2105.11425 with
    :math:`\sigma^2 = n\rho` — in :math:`O(n + T)` per block (module docstring).

    Parameters
    ----------
    levels : sequence of (x, y, noise)
        ``x``, ``y``: float arrays of shape ``(P, n)``; ``noise``: positive float.
    x_targets : array-like of shape (T,)
    nu : {0.5, 1.5, 2.5, 3.5}, default=3.5
    length_scale : float, default=1.0

    Returns
    -------
    predictions : list of ndarray of shape (P, T)
        One per level, in the order given (views of one array).
    """
    coefficients, scale = _matern_coefficients(nu, length_scale)
    tables = _tables(tuple(coefficients))
    d = len(tables.a)
    targets = np.asarray(x_targets, dtype=float).ravel() * scale
    target_order = np.argsort(targets, kind="stable")
    targets_sorted = targets[target_order]
    prepared = []
    for x, y, noise in levels:
        x = np.asarray(x, dtype=float) * scale
        y = np.asarray(y, dtype=float)
        if x.ndim != 2 or x.shape != y.shape or x.shape[1] < 1:
            raise ValueError(f"x and y of a level must have one shape (P, n), got {x.shape}.")
        if not noise > 0:
            raise ValueError(f"noise must be positive, got {noise!r}.")
        order = np.argsort(x, axis=1)
        prepared.append((np.take_along_axis(x, order, 1), np.take_along_axis(y, order, 1), noise))
    by_size = sorted(range(len(prepared)), key=lambda i: -prepared[i][0].shape[1])
    sizes = tuple(prepared[i][0].shape[1] for i in by_size)
    counts = tuple(prepared[i][0].shape[0] for i in by_size)
    layout = _layout(sizes, counts)
    t = np.empty(layout.total)
    rhs = np.empty(layout.total)
    noise = np.empty(layout.total)
    for level, i in enumerate(by_size):
        t_sorted, y_sorted, sigma2 = prepared[i]
        index = layout.index[level]
        t[index], rhs[index], noise[index] = t_sorted, y_sorted, sigma2
    sweeps = _Sweeps(tables, layout, t, noise)
    D, W, z = sweeps.factor_forward(rhs)
    alpha = sweeps.substitute_backward(D, W, z)
    column_start = np.concatenate([[0], np.cumsum(counts)])
    flat = np.concatenate([layout.index[level].ravel() for level in range(len(by_size))])
    block = np.repeat(np.arange(column_start[-1]), np.repeat(sizes, counts))
    contributions = _contributions(t[flat], alpha[flat], block, targets_sorted, d - 1)
    predictions = _scan(contributions, targets_sorted, tables, int(column_start[-1]), target_order)
    results = [None] * len(prepared)
    for level, i in enumerate(by_size):
        results[i] = predictions[:, column_start[level] : column_start[level + 1]].T
    return results
