r"""Convergence rates of the estimators of :math:`E[\varphi(X)\mid S]` against a closed-form truth.

The oblivious-data paper (Grünewälder & Khaleghi, JMLR 2021, §6.2) measures the error of an
estimator :math:`E^S_n\varphi(X)` of the Hilbert-space-valued conditional expectation
:math:`E^S\varphi(X) = g(S)` in the conditional :math:`L^2`-pseudo-norm

.. math::

    \lVert E^S_n\varphi(X) - E^S\varphi(X)\rVert_{2,n}
    = \Big(E_{F_n}\,\lVert E^S_n\varphi(X) - g(S)\rVert_{\mathcal H}^2\Big)^{1/2},

the RKHS-norm error averaged over a new S given the estimation sample. Proposition 5 gives
:math:`O_P(n^{-1/2})` for finite S, Proposition 6 :math:`O_P(n^{-1/(2(d+1))})` for
:math:`S \in [0, 1]^d` with a density bounded below, Lipschitz :math:`g` and the dyadic
partition of :math:`\ell = n^{1/(2(d+1))}` cells per axis (proof in App. C.6:
:math:`\ell = n^{\alpha^*/d}`, :math:`\alpha^* = d/(2(d+1))`).

Every estimator here is linear in the feature map, :math:`\hat g(s) = \sum_v w_v(s)
\varphi(x_v)`, so with :math:`G_{vq} = g(s_q)(x_v) = E[k(X, x_v)\mid S = s_q]`

.. math::

    \lVert \hat g(s_q) - g(s_q)\rVert^2 = w(s_q)^\top K w(s_q) - 2\, w(s_q)^\top G_{\cdot q}
    + \lVert g(s_q)\rVert^2 .

The truth is closed-form for the Gaussian kernel :math:`k(x, y) = e^{-\gamma (x-y)^2}` and
Gaussian conditionals :math:`X \mid S = s \sim N(\mu(s), \sigma^2)`
(:class:`GaussianConditionalModel`):

.. math::

    E[k(X, x)\mid S = s] = \frac{e^{-\gamma (x - \mu(s))^2/(1 + 2\gamma\sigma^2)}}
    {\sqrt{1 + 2\gamma\sigma^2}}, \qquad
    \lVert g(s)\rVert^2 = E[k(X, X')\mid S = s] = \frac{1}{\sqrt{1 + 4\gamma\sigma^2}} .

Slopes of :math:`\log(\text{error})` against :math:`\log n` are fitted by least squares on
the mean error per n; their confidence intervals come from resampling the repetitions
(:func:`fit_slope`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from krepro.kernels import gram, rbf_1d

__all__ = [
    "GaussianConditionalModel",
    "cells_per_axis_schedule",
    "embedding_errors",
    "fit_slope",
    "midpoint_grid",
    "theory_slope",
]


def theory_slope(kind, d=1):
    r"""Exponent of the paper's rate: Prop. 5 (``"finite"``): :math:`-1/2`; Prop. 6
    (``"continuous"``, :math:`S \in [0,1]^d`): :math:`-1/(2(d+1))`; ``None`` otherwise."""
    if kind == "finite":
        return -0.5
    if kind == "continuous":
        if int(d) != d or d < 1:
            raise ValueError(f"d must be a positive integer, got {d!r}.")
        return -1.0 / (2.0 * (d + 1))
    return None


def cells_per_axis_schedule(n, d, *, exponent=None, scale=1.0):
    r"""Cells per axis :math:`\ell = \lceil c\, n^{e}\rceil` of the dyadic partition.

    The default exponent :math:`e = 1/(2(d+1))` is Proposition 6's choice
    (App. C.6: :math:`\ell = n^{\alpha^*/d}`, :math:`\alpha^* = d/(2(d+1))`); the paper gives no
    constant, so ``scale`` :math:`c` defaults to 1.
    """
    if n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}.")
    if not scale > 0:
        raise ValueError(f"scale must be positive, got {scale!r}.")
    exponent = 1.0 / (2.0 * (d + 1)) if exponent is None else float(exponent)
    return max(1, math.ceil(scale * n**exponent - 1e-9))


def midpoint_grid(cells_per_axis, d, *, points_per_cell=1):
    r"""Midpoints of a regular grid on :math:`[0, 1]^d` and their (equal) weights.

    With ``cells_per_axis`` :math:`\ell` equal to the partition's, every grid cell lies inside
    one partition cell, so the midpoint rule integrates each piece of the piecewise-smooth
    squared error separately (second-order accurate).
    """
    per_axis = int(cells_per_axis) * int(points_per_cell)
    if per_axis < 1 or d < 1:
        raise ValueError(
            f"cells_per_axis, points_per_cell and d must be positive, got "
            f"{cells_per_axis!r}, {points_per_cell!r}, {d!r}."
        )
    axis = (np.arange(per_axis) + 0.5) / per_axis
    mesh = np.meshgrid(*([axis] * d), indexing="ij")
    points = np.stack([m.ravel() for m in mesh], axis=1)
    return points, np.full(len(points), 1.0 / len(points))


@dataclass(frozen=True)
class GaussianConditionalModel:
    r"""S with a finite or uniform law, :math:`X\mid S=s \sim N(\mu(s), \sigma^2)`, Gaussian kernel.

    ``kind="finite"``: S uniform on :math:`\{0, \dots, k-1\}`,
    :math:`\mu(s) = a\, s/(k-1)` (:math:`\mu = 0` for :math:`k = 1`).
    ``kind="continuous"``: S uniform on :math:`[0,1]^d`, :math:`\mu(s) = a\,\bar s` with
    :math:`\bar s` the mean of the coordinates (Lipschitz, as Prop. 6 requires).

    Parameters
    ----------
    kind : {"finite", "continuous"}
    n_values : int
        k, the number of values of a finite S.
    d : int
        Dimension of a continuous S.
    mean_scale : float
        a, the range of :math:`\mu`.
    sd : float
        :math:`\sigma > 0`.
    kernel_gamma : float
        :math:`\gamma > 0` of :math:`k(x, y) = e^{-\gamma(x-y)^2}`.
    """

    kind: str
    n_values: int = 2
    d: int = 1
    mean_scale: float = 2.0
    sd: float = 0.5
    kernel_gamma: float = 1.0

    def __post_init__(self):
        if self.kind not in ("finite", "continuous"):
            raise ValueError(f'kind must be "finite" or "continuous", got {self.kind!r}.')
        if self.kind == "finite" and (int(self.n_values) != self.n_values or self.n_values < 1):
            raise ValueError(f"n_values must be a positive integer, got {self.n_values!r}.")
        if self.kind == "continuous" and (int(self.d) != self.d or self.d < 1):
            raise ValueError(f"d must be a positive integer, got {self.d!r}.")
        if not self.sd > 0 or not self.kernel_gamma > 0:
            raise ValueError(
                f"sd and kernel_gamma must be positive, got {self.sd!r}, {self.kernel_gamma!r}."
            )

    def mean(self, S):
        r""":math:`\mu(s)` for each row of ``S`` (shape (q,) or (q, d))."""
        S = np.asarray(S, dtype=float)
        S = S[:, None] if S.ndim == 1 else S
        if self.kind == "finite":
            k = int(self.n_values)
            return self.mean_scale * S[:, 0] / (k - 1) if k > 1 else np.zeros(len(S))
        return self.mean_scale * S.mean(axis=1)

    def sample(self, rng, n):
        """``n`` draws (S, X): S of shape (n, 1) or (n, d), X of shape (n, 1)."""
        if self.kind == "finite":
            S = rng.integers(0, int(self.n_values), size=(n, 1)).astype(float)
        else:
            S = rng.uniform(0.0, 1.0, size=(n, int(self.d)))
        X = self.mean(S) + self.sd * rng.standard_normal(n)
        return S, X[:, None]

    def query_points(self, cells_per_axis=1, points_per_cell=1):
        """Points and weights that integrate over the law of S (exact for a finite S)."""
        if self.kind == "finite":
            k = int(self.n_values)
            return np.arange(k, dtype=float)[:, None], np.full(k, 1.0 / k)
        return midpoint_grid(cells_per_axis, int(self.d), points_per_cell=points_per_cell)

    def embedding(self, S, X):
        r""":math:`G_{vq} = E[k(X', x_v)\mid S = s_q]`, shape (len(X), len(S))."""
        spread = 1.0 + 2.0 * self.kernel_gamma * self.sd**2
        x = np.asarray(X, dtype=float).reshape(len(X), -1)[:, 0]
        diff = x[:, None] - self.mean(S)[None, :]
        return np.exp(-self.kernel_gamma * diff**2 / spread) / np.sqrt(spread)

    def embedding_norm_sq(self, S):
        r""":math:`\lVert g(s)\rVert^2 = E[k(X, X')\mid S = s]` (X, X' independent given s)."""
        value = 1.0 / np.sqrt(1.0 + 4.0 * self.kernel_gamma * self.sd**2)
        return np.full(len(np.asarray(S)), value)

    def kernel(self, A, B=None):
        """The Gaussian kernel of the model: :func:`krepro.kernels.gram`'s values (through
        :func:`krepro.kernels.rbf_1d`, the same bits faster, for one feature)."""
        A = np.asarray(A, dtype=float)
        B = None if B is None else np.asarray(B, dtype=float)
        if A.ndim == 2 and A.shape[1] == 1 and (B is None or (B.ndim == 2 and B.shape[1] == 1)):
            return rbf_1d(A, B, gamma=self.kernel_gamma)
        return gram(A, B, "rbf", gamma=self.kernel_gamma)


def _dense(matrix):
    return matrix.toarray() if sparse.issparse(matrix) else np.asarray(matrix)


# Largest 2γR² (R: half the range of a cell's points) for which a cell's pair sum is taken
# from the series of _gaussian_pair_sum (about 110 terms); wider cells use kernel tiles.
_SERIES_MAX_SPREAD = 40.0


def _gaussian_pair_sum(x, gamma):
    r""":math:`\sum_{u,v} e^{-\gamma (x_u - x_v)^2}` of 1-D points by a convergent series.

    With :math:`\tilde x = x - c` (c the midpoint of the points' range, :math:`R =
    \max|\tilde x|`), :math:`y = \sqrt{2\gamma}\,\tilde x` and :math:`a_u =
    e^{-\gamma\tilde x_u^2}`, expanding :math:`e^{y_u y_v}` gives

    .. math::

        \sum_{u,v} e^{-\gamma(x_u - x_v)^2} = \sum_{k \ge 0} \frac{1}{k!}
        \Big(\sum_u a_u y_u^k\Big)^2,

    a sum of non-negative terms, the k-th at most :math:`z^k/k!` times the first
    (:math:`z = 2\gamma R^2`); it is cut where the remaining ones add less than 1e-17 of
    the total. Cost :math:`O(nK)` instead of :math:`O(n^2)`, with :math:`K \approx ez`
    terms; the rounding error is that of the direct double sum (~1e-16 relative, tested
    against an extended-precision sum). Returns ``None`` when :math:`z` exceeds
    ``_SERIES_MAX_SPREAD`` (use kernel tiles).
    """
    x = np.asarray(x, dtype=float).reshape(-1)
    centred = x - 0.5 * (x.max() + x.min())
    spread = 2.0 * gamma * float(np.max(np.abs(centred))) ** 2
    if spread > _SERIES_MAX_SPREAD:
        return None
    # terms: the tail after term K is at most z^(K+1)/(K+1)! / (1 − z/(K+2)) of the first
    n_terms, bound = 0, 1.0
    while True:
        n_terms += 1
        bound *= spread / n_terms  # z^K / K!
        nxt = bound * spread / (n_terms + 1)
        if n_terms + 2 > spread and nxt * (n_terms + 2) / (n_terms + 2 - spread) <= 1e-17:
            break
    y = np.sqrt(2.0 * gamma) * centred
    term = np.exp(-gamma * centred * centred)  # a_u y_u^k / sqrt(k!) for k = 0, 1, ...
    total = term.sum() ** 2
    for k in range(1, n_terms + 1):
        term *= y
        term /= np.sqrt(k)
        total += term.sum() ** 2
    return float(total)


def _cell_norms_sq(model, X, members, block=256):
    """:math:`\\lVert \\hat g_a\\rVert^2` = mean of k over pairs in each cell (0 if empty).

    Each cell's pair sum comes from :func:`_gaussian_pair_sum` (1-D X, cells not too wide
    for the kernel), else from the tiles on and above the diagonal of its kernel matrix (the
    symmetric entries below counted twice): half of the evaluations.
    """
    kernel = model.kernel
    norms = np.zeros(len(members))
    for a, index in enumerate(members):
        if len(index) == 0:
            continue
        points = X[index]
        total = None
        if points.shape[1] == 1:
            total = _gaussian_pair_sum(points[:, 0], model.kernel_gamma)
        if total is None:
            total = 0.0
            for start in range(0, len(index), block):
                stop = min(start + block, len(index))
                diagonal = kernel(points[start:stop]).sum()
                for first in range(stop, len(index), 8 * block):  # tiles right of the diagonal
                    tile = kernel(points[start:stop], points[first : first + 8 * block])
                    total += 2.0 * tile.sum()
                total += diagonal
        norms[a] = total / len(index) ** 2
    return norms


def _cell_cross(estimator, X, S, index, model, block):
    r""":math:`\langle \hat g_{a(q)}, g(s_q)\rangle`: the mean of :math:`g(s_q)` over the
    estimation points of the query's own cell (0 for a point in no cell or an empty cell).

    Only the points of that cell are evaluated, :math:`O(nq/L)` instead of :math:`O(nq)`.
    """
    cross = np.zeros(len(S))
    for a in np.unique(index[index >= 0]):
        members = estimator.cell_members_[a]
        if len(members) == 0:
            continue
        queries = np.flatnonzero(index == a)
        for start in range(0, len(queries), block):
            part = queries[start : start + block]
            cross[part] = model.embedding(S[part], X[members]).sum(axis=0) / len(members)
    return cross


def embedding_errors(estimator, X, S_query, model, *, block=256):
    r"""Squared RKHS-norm errors :math:`\lVert \hat g(s_q) - g(s_q)\rVert^2` at query points.

    Parameters
    ----------
    estimator : fitted estimator of :math:`E[\varphi(X)\mid S]`
        A :class:`~krepro.fairness.conditional.PartitionConditionalMean` (cell averages: the error
        needs only within-cell kernel sums and each query's own cell, :math:`O(n^2/L + nq/L)`
        for L cells of similar size) or any estimator with
        ``membership(S)`` and ``weights_`` such that :math:`w(s) = \text{membership}(s)\,
        \text{weights\_}^\top` (e.g. :class:`~krepro.cme.CMEConditionalMean`; cost
        :math:`O(q n^2)`).
    X : ndarray of shape (n, 1)
        Non-sensitive features of the estimation sample, in the order used to fit.
    S_query : ndarray of shape (q,) or (q, d)
        Query values of S.
    model : GaussianConditionalModel
        The truth (closed-form embeddings and norms) and the kernel.
    block : int, default=256
        Query points per block (memory :math:`O(n \cdot \text{block})`; for a partition,
        the points of one cell times ``block``).

    Returns
    -------
    ndarray of shape (q,)
        Non-negative up to round-off.
    """
    S_query = np.asarray(S_query, dtype=float)
    S_query = S_query[:, None] if S_query.ndim == 1 else S_query
    if hasattr(estimator, "cell_members_"):  # partition: ĝ(s) is the mean of its cell
        index = np.asarray(estimator.cell_of(S_query))
        cell_norms = _cell_norms_sq(model, X, estimator.cell_members_)
        own = np.where(index >= 0, cell_norms[np.maximum(index, 0)], 0.0)
        cross = _cell_cross(estimator, X, S_query, index, model, block)
        return own - 2.0 * cross + model.embedding_norm_sq(S_query)
    K = model.kernel(X)
    out = np.empty(len(S_query))
    for start in range(0, len(S_query), block):
        part = slice(start, min(start + block, len(S_query)))
        S = S_query[part]
        truth = model.embedding(S, X)  # (n, b): g(s_q)(x_v)
        membership = _dense(estimator.membership(S))
        w = np.asarray(estimator.weights_ @ membership.T).T  # (b, n): w(s_q)
        own = np.einsum("qv,qv->q", w @ K, w)
        cross = np.einsum("qv,vq->q", w, truth)
        out[part] = own - 2.0 * cross + model.embedding_norm_sq(S)
    return out


def _ols_slopes(log_n, log_errors):
    """Least-squares slopes of each row of ``log_errors`` (..., k) against ``log_n`` (k,)."""
    centred = log_n - log_n.mean()
    return (log_errors - log_errors.mean(axis=-1, keepdims=True)) @ centred / (centred @ centred)


def fit_slope(sizes, errors, *, n_bootstrap=2000, confidence=0.95, random_state=None):
    r"""Log-log slope of the mean error against n, with a bootstrap confidence interval.

    The slope is the least-squares fit of :math:`\log \bar e(n)` on :math:`\log n`, where
    :math:`\bar e(n)` is the mean error over the repetitions at n. The interval is the
    percentile interval of the slope over bootstrap samples that redraw the repetitions with
    replacement independently at every n (the repetitions are independent).

    Parameters
    ----------
    sizes : array-like of shape (k,)
        Sample sizes, at least two distinct.
    errors : array-like of shape (k, r)
        Error of repetition j at size i (r ≥ 2, positive).
    n_bootstrap : int, default=2000
    confidence : float, default=0.95
    random_state : int, Generator or None

    Returns
    -------
    dict
        ``slope``, ``intercept``, ``slope_ci_low``, ``slope_ci_high``, ``r2``.
    """
    sizes = np.asarray(sizes, dtype=float)
    errors = np.asarray(errors, dtype=float)
    if errors.ndim != 2 or errors.shape[0] != len(sizes):
        raise ValueError(
            f"errors must have shape (len(sizes), n_repetitions) = ({len(sizes)}, r), got "
            f"{errors.shape}."
        )
    if len(np.unique(sizes)) < 2 or errors.shape[1] < 2:
        raise ValueError(
            f"A slope needs at least two sizes and two repetitions, got sizes {sizes.tolist()} "
            f"and {errors.shape[1]} repetition(s)."
        )
    if np.any(~np.isfinite(errors)) or np.any(errors <= 0):
        raise ValueError("errors must be positive and finite to take logarithms.")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}.")
    log_n = np.log(sizes)
    log_mean = np.log(errors.mean(axis=1))
    slope = float(_ols_slopes(log_n, log_mean))
    intercept = float(log_mean.mean() - slope * log_n.mean())
    residual = log_mean - (intercept + slope * log_n)
    total = np.sum((log_mean - log_mean.mean()) ** 2)
    r2 = float(1.0 - residual @ residual / total) if total > 0 else float("nan")
    rng = np.random.default_rng(random_state)
    k, r = errors.shape
    draws = rng.integers(0, r, size=(n_bootstrap, k, r))
    resampled = np.take_along_axis(errors[None, :, :], draws, axis=2).mean(axis=2)
    slopes = _ols_slopes(log_n, np.log(resampled))
    tail = 100.0 * (1.0 - confidence) / 2.0
    low, high = np.percentile(slopes, [tail, 100.0 - tail])
    return {
        "slope": slope,
        "intercept": intercept,
        "slope_ci_low": float(low),
        "slope_ci_high": float(high),
        "r2": r2,
    }
