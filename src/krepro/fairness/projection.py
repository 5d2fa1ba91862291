r"""Projection of oblivious features onto the manifold :math:`M = \varphi[\mathcal X]` (App. E.3).

For an element :math:`Z` of the RKHS, the squared distance to :math:`M` is (paper App. E.3)

.. math::

    \inf_{x\in\mathcal X}\lVert Z - \varphi(x)\rVert^2
    = \lVert Z\rVert^2 + \inf_{x\in\mathcal X} f(x), \qquad f(x) = k(x, x) - 2\langle Z,
    \varphi(x)\rangle,

and a minimiser :math:`W` of :math:`f` is a projection of :math:`Z` on :math:`M`
(Proposition 1). The empirical distance of Proposition 3 is
:math:`d_n(Z + h, M) = \frac1n\sum_i \min_{h'\in M}\lVert Z_i + h - h'\rVert`.

Every :math:`Z` here is a finite kernel expansion
:math:`Z_i = a\,\varphi(p_i) + \sum_v C_{iv}\varphi(b_v)` (:class:`FeatureExpansion`); the
oblivious feature of eq. (9), :math:`Z = \varphi(x) - E^S_n\varphi(X) + E_n\varphi(X)`, is one
with the estimation sample as atoms (:func:`oblivious_expansion`), so only kernel
evaluations are needed.

**How W is computed** (:func:`project_onto_manifold`): :math:`f` is Hölder continuous
whenever the kernel is (App. E.3), so a grid search over the compact box
:math:`\mathcal X = [\mathrm{low}, \mathrm{high}]^p` finds the global minimum up to the grid
spacing; each point's minimiser is then refined by a pattern search (the :math:`3^p`
neighbours at half the previous step, ``n_refine`` times), which converges to the local
minimum within :math:`\text{spacing}\cdot 2^{-\text{n\_refine}}`.

**Cost.** Each refinement step evaluates :math:`f_i` at the :math:`3^p - 1` neighbours only:
the value at the current point is the one computed when it was chosen (the same arithmetic,
so the search takes the same path as evaluating it again). Candidates shared by several
elements (early steps, on the grid's dyadic refinement) are evaluated once, and the sums over
the atoms run atom by atom, in order, on cache-sized kernel blocks. Products with the
coefficients in the grid search and in :meth:`FeatureExpansion.norms_sq` are formed on the
distinct rows of :math:`C` (one per cell for a partition estimator). A kernel object with
``diagonal`` and ``paired`` methods (:class:`RBFKernel`) spares the kernel calls behind
:math:`k(y, y)` and :math:`k(p_i, y_i)`; any other callable works too (through blocks of
kernel matrices).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import linalg, sparse

from krepro.kernel_safety import (
    _expansion_is_safe,
    _max_abs,
    _paired_scaled_squared_distances,
)
from krepro.kernels import gram, rbf_1d

__all__ = [
    "FeatureExpansion",
    "RBFKernel",
    "feature_coordinates",
    "hoeffding_radius",
    "oblivious_expansion",
    "project_onto_manifold",
]


def _as_2d(values, name):
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2:
        raise ValueError(f"{name} must be a 1-d or 2-d array, got shape {values.shape}.")
    return values


@dataclass(frozen=True)
class RBFKernel:
    r"""The Gaussian kernel :math:`k(x, y) = e^{-\gamma\lVert x - y\rVert^2}` as a callable with
    the shortcuts of the pre-image search.

    ``RBFKernel(gamma)(A, B)`` equals ``gram(A, B, "rbf", gamma=gamma)`` bit for bit (for one
    feature through :func:`krepro.kernels.rbf_1d`), so it can replace such a callable in a
    :class:`FeatureExpansion` without changing any result. :meth:`diagonal` and
    :meth:`paired` give :math:`k(a_i, a_i)` and :math:`k(a_i, b_i)` without the blocks of
    kernel matrices a plain callable needs.

    Parameters
    ----------
    gamma : float > 0
    """

    gamma: float

    def __call__(self, A, B=None):
        A = _as_2d(A, "A")
        if A.shape[1] == 1 and (B is None or _as_2d(B, "B").shape[1] == 1):
            return rbf_1d(A, B, gamma=self.gamma)
        return gram(A, B, "rbf", gamma=self.gamma)

    def diagonal(self, A):
        r""":math:`k(a_i, a_i) = 1` (what ``gram(A)`` has on its diagonal, exactly)."""
        return np.ones(len(_as_2d(A, "A")))

    def paired(self, A, B):
        r""":math:`k(a_i, b_i)` for rows of ``A`` and ``B`` of the same shape (n, p).

        The operations of :func:`krepro.kernels.gram` on each entry
        (:math:`-2\langle a, b\rangle + \lVert a\rVert^2 + \lVert b\rVert^2`, clipped at 0),
        so for one feature the values are those of the full kernel matrix bit for bit. At
        extreme scales, where that expansion could overflow, its direct-difference path
        (:func:`krepro.kernels.scaled_squared_distances`): finite values at any scale.
        """
        A, B = _as_2d(A, "A"), _as_2d(B, "B")
        if A.shape != B.shape:
            raise ValueError(f"A and B must have the same shape, got {A.shape} and {B.shape}.")
        if not _expansion_is_safe(_max_abs(A, B), A.shape[1], float(self.gamma)):
            distances = _paired_scaled_squared_distances(A, B, float(self.gamma))
            np.negative(distances, out=distances)
            return np.exp(distances, out=distances)
        distances = -2.0 * np.einsum("ij,ij->i", A, B)
        distances += np.einsum("ij,ij->i", A, A)
        distances += np.einsum("ij,ij->i", B, B)
        np.maximum(distances, 0.0, out=distances)
        with np.errstate(over="ignore"):  # -inf: a kernel value of 0
            distances *= -float(self.gamma)
        return np.exp(distances, out=distances)


@dataclass(frozen=True, eq=False)
class FeatureExpansion:
    r"""Elements :math:`Z_i = a\,\varphi(p_i) + \sum_v C_{iv}\,\varphi(b_v)` of an RKHS.

    Parameters
    ----------
    points : ndarray of shape (n, p)
        :math:`p_i`, each element's own atom.
    atoms : ndarray of shape (m, p)
        :math:`b_v`, atoms shared by all elements.
    coefficients : ndarray of shape (n, m)
        :math:`C`.
    kernel : callable
        ``kernel(A, B)`` returns the Gram matrix :math:`k(a_i, b_j)`.
    point_weight : float, default=1.0
        :math:`a` (0: the elements are combinations of the shared atoms only).
    """

    points: np.ndarray
    atoms: np.ndarray
    coefficients: np.ndarray
    kernel: object
    point_weight: float = 1.0

    def __post_init__(self):
        points, atoms = _as_2d(self.points, "points"), _as_2d(self.atoms, "atoms")
        coefficients = np.asarray(self.coefficients, dtype=float)
        if coefficients.shape != (len(points), len(atoms)):
            raise ValueError(
                f"coefficients must have shape (len(points), len(atoms)) = ({len(points)}, "
                f"{len(atoms)}), got {coefficients.shape}."
            )
        if points.shape[1] != atoms.shape[1]:
            raise ValueError(
                f"points and atoms must have the same dimension, got {points.shape[1]} and "
                f"{atoms.shape[1]}."
            )
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "atoms", atoms)
        object.__setattr__(self, "coefficients", coefficients)

    def __len__(self):
        return len(self.points)

    @cached_property
    def distinct_coefficients(self):
        r"""The distinct rows of :math:`C` and the row of each element, or ``None``.

        Oblivious features of a partition estimator have one row per cell
        (:math:`C_{iv} = 1/m - w_v(s_i)`), so products with :math:`C` are formed on these rows
        only. ``None`` when more than half of the rows are distinct (e.g. a CME estimator).

        Returns
        -------
        (rows, index) : ndarray of shape (q, m) and ndarray of shape (n,), or None
        """
        first, index = _distinct_rows(self.coefficients)
        if len(first) > len(self) // 2:
            return None
        return self.coefficients[first], index

    def combine_atoms(self, K, part=slice(None)):
        r""":math:`C K` for a block ``K`` of shape (m, q) of kernel values of the atoms, for
        the elements ``part`` (through :attr:`distinct_coefficients` when there are few)."""
        distinct = self.distinct_coefficients
        if distinct is None:
            return self.coefficients[part] @ K
        rows, index = distinct
        return (rows @ K)[index[part]]

    def norms_sq(self):
        r""":math:`\lVert Z_i\rVert^2`, shape (n,)."""
        a, C = self.point_weight, self.coefficients
        own = _kernel_diagonal(self.kernel, self.points) * a**2
        mixed = 2.0 * a * np.einsum("iv,iv->i", self.kernel(self.points, self.atoms), C)
        shared = np.einsum("iv,iv->i", self.combine_atoms(self.kernel(self.atoms)), C)
        return own + mixed + shared

    def inner_features(self, Y):
        r""":math:`\langle Z_i, \varphi(y_q)\rangle`, shape (n, q)."""
        Y = _as_2d(Y, "Y")
        return self.point_weight * self.kernel(self.points, Y) + self.coefficients @ self.kernel(
            self.atoms, Y
        )

    @cached_property
    def _coefficients_by_atom(self):
        """:math:`C^\\top`, C-contiguous: row ``v`` holds the coefficients of atom ``v``."""
        return np.ascontiguousarray(self.coefficients.T)

    def inner_paired(self, Y, *, block=4096, atoms_per_call=16):
        r""":math:`\langle Z_i, \varphi(y_{ir})\rangle` for per-element candidates ``Y``
        of shape (n, r, p); returns shape (n, r).

        The atoms' part :math:`\sum_v C_{iv} k(b_v, y_{ir})` is accumulated atom by atom, in
        the atoms' order, for every entry (the order of ``einsum("iv,vir->ir", ...)``), from
        kernel blocks of ``atoms_per_call`` atoms × the candidates of ``block`` elements (in
        the cache, never an atoms × candidates matrix); candidates shared by many elements of
        a block are evaluated once. The values depend neither on ``block`` nor on
        ``atoms_per_call`` nor on which candidates are shared.
        """
        Y = np.asarray(Y, dtype=float)
        n, r, p = Y.shape
        # candidates ordered (r, i): a row of K(atoms, ·) then has r runs of elements
        flat = Y.transpose(1, 0, 2).reshape(r * n, p)
        coefficients = self._coefficients_by_atom
        shared = np.empty((r, n))
        for start in range(0, n, block):
            stop = min(start + block, n)
            columns = (np.arange(r)[:, None] * n + np.arange(start, stop)[None, :]).ravel()
            candidates, inverse = _unique_rows(flat[columns])
            if len(candidates) > len(columns) // 2:  # few repeats: evaluate them all
                candidates, inverse = flat[columns], None
            # terms[0] is the running sum, terms[1:] the next atoms' terms C_iv k(b_v, y_ir);
            # add.reduce over the first axis adds the rows one after another, in order
            terms = np.zeros((atoms_per_call + 1, r, stop - start))
            for first in range(0, len(self.atoms), atoms_per_call):
                K = self.kernel(self.atoms[first : first + atoms_per_call], candidates)
                if inverse is not None:
                    K = K[:, inverse]
                used = len(K) + 1
                np.multiply(
                    K.reshape(len(K), r, stop - start),
                    coefficients[first : first + len(K), None, start:stop],
                    out=terms[1:used],
                )
                terms[0] = np.add.reduce(terms[:used], axis=0)
            shared[:, start:stop] = terms[0]
        own = _paired_kernel(self.kernel, self.points, Y)
        return self.point_weight * own + shared.T

    def inner(self, other):
        r""":math:`\langle Z_i, Z'_j\rangle` with another expansion, shape (n, n')."""
        a, b = self.point_weight, other.point_weight
        out = a * b * self.kernel(self.points, other.points)
        out += a * self.kernel(self.points, other.atoms) @ other.coefficients.T
        out += b * self.coefficients @ self.kernel(self.atoms, other.points)
        out += self.coefficients @ self.kernel(self.atoms, other.atoms) @ other.coefficients.T
        return out

    def gram(self):
        r""":math:`\langle Z_i, Z_j\rangle`, shape (n, n), symmetrised."""
        G = self.inner(self)
        return 0.5 * (G + G.T)


# Odd 64-bit multipliers of the row hash of _distinct_rows (golden-ratio increments).
_HASH_STEP = np.uint64(0x9E3779B97F4A7C15)


def _distinct_rows(C):
    """First occurrence of each distinct row of ``C`` (n, m) and the distinct row of each row.

    Rows are hashed exactly (their bit patterns times odd 64-bit constants, wrapping sums),
    grouped by hash, and the grouping is checked entry by entry; a hash collision falls back
    to sorting the rows.
    """
    C = np.ascontiguousarray(C, dtype=float)
    n, m = C.shape
    if n == 0:
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)
    multipliers = (np.arange(m, dtype=np.uint64) * np.uint64(2) + np.uint64(1)) * _HASH_STEP
    hashes = C.view(np.uint64) @ multipliers
    _, first, index = np.unique(hashes, return_index=True, return_inverse=True)
    index = index.reshape(-1)
    if not np.array_equal(C[first][index], C):  # a collision: sort the rows themselves
        rows = C.view(np.dtype((np.void, 8 * m))).reshape(-1)
        _, first, index = np.unique(rows, return_index=True, return_inverse=True)
        index = index.reshape(-1)
    return first, index


def _unique_rows(flat):
    """Distinct rows of ``flat`` (n, p) and the index of each row among them."""
    if flat.shape[1] == 1:
        values, inverse = np.unique(flat[:, 0], return_inverse=True)
        return values[:, None], inverse.reshape(-1)
    unique, inverse = np.unique(flat, axis=0, return_inverse=True)
    return unique, inverse.reshape(-1)


def _paired_kernel(kernel, points, Y, block=128):
    """:math:`k(p_i, y_{ir})`, shape (n, r): ``kernel.paired`` if the kernel has it, else
    block-diagonal pieces of kernel calls."""
    n, r, p = Y.shape
    paired = getattr(kernel, "paired", None)
    if paired is not None:
        return paired(np.repeat(points, r, axis=0), Y.reshape(n * r, p)).reshape(n, r)
    out = np.empty((n, r))
    for start in range(0, n, block):
        stop = min(start + block, n)
        values = kernel(points[start:stop], Y[start:stop].reshape(-1, p))
        values = values.reshape(stop - start, stop - start, r)
        out[start:stop] = values[np.arange(stop - start), np.arange(stop - start)]
    return out


def _kernel_diagonal(kernel, A, block=256):
    """:math:`k(a_i, a_i)`, shape (n,): ``kernel.diagonal`` if the kernel has it, else the
    diagonals of kernel blocks."""
    diagonal = getattr(kernel, "diagonal", None)
    if diagonal is not None:
        return np.asarray(diagonal(A), dtype=float)
    return (
        np.concatenate(
            [np.diag(kernel(A[start : start + block])) for start in range(0, len(A), block)]
        )
        if len(A)
        else np.zeros(0)
    )


def oblivious_expansion(estimator, X, S, X_estimation, kernel):
    r"""The oblivious features (eq. (9)) of points :math:`(x_i, s_i)` as a kernel expansion.

    :math:`Z_i = \varphi(x_i) - \sum_v w_v(s_i)\varphi(x_v) + \frac1m\sum_v\varphi(x_v)`, with
    :math:`w(s) = ` ``membership(s) weights_ᵀ`` of a fitted estimator of
    :math:`E[\varphi(X)\mid S]` (:class:`~krepro.fairness.conditional.PartitionConditionalMean` or
    :class:`~krepro.cme.CMEConditionalMean`) and its estimation sample ``X_estimation`` in the
    order it was fitted.

    Returns
    -------
    FeatureExpansion
    """
    X = _as_2d(X, "X")
    X_estimation = _as_2d(X_estimation, "X_estimation")
    membership = estimator.membership(S)
    membership = membership.toarray() if sparse.issparse(membership) else np.asarray(membership)
    weights = estimator.weights_
    if weights.shape[0] != len(X_estimation):
        raise ValueError(
            f"The estimator was fitted on {weights.shape[0]} points, X_estimation has "
            f"{len(X_estimation)}."
        )
    w = np.asarray(weights @ membership.T).T  # (n, m)
    coefficients = -w + 1.0 / len(X_estimation)
    return FeatureExpansion(X, X_estimation, coefficients, kernel)


def _objective(expansion, candidates):
    """:math:`f_i(y) = k(y, y) - 2\\langle Z_i, \\varphi(y)\\rangle` at per-element candidates
    of shape (n, r, p); returns shape (n, r)."""
    n, r, p = candidates.shape
    unique, inverse = _unique_rows(candidates.reshape(n * r, p))
    self_kernel = _kernel_diagonal(expansion.kernel, unique)[inverse].reshape(n, r)
    return self_kernel - 2.0 * expansion.inner_paired(candidates)


def project_onto_manifold(expansion, low, high, *, n_grid=201, n_refine=20, block=512):
    r"""Projections :math:`W_i` of :math:`Z_i` on :math:`M` and the distances :math:`\lVert Z_i
    - \varphi(W_i)\rVert` (paper App. E.3, Proposition 1).

    Grid search over the box :math:`[\mathrm{low}, \mathrm{high}]^p` (``n_grid`` points per
    axis), then a pattern-search refinement of each minimiser (see the module docstring).

    Parameters
    ----------
    expansion : FeatureExpansion
        The elements :math:`Z_i` (a shift :math:`h` is part of the expansion).
    low, high : float or array-like of shape (p,)
        The compact domain :math:`\mathcal X`.
    n_grid : int, default=201
        Grid points per axis (≥ 2).
    n_refine : int, default=20
        Refinement steps (0: grid only).
    block : int, default=512
        Elements per block of the grid search (memory: block × n_grid^p).

    Returns
    -------
    W : ndarray of shape (n, p)
    distances : ndarray of shape (n,)
        :math:`\min_x \lVert Z_i - \varphi(x)\rVert`; their mean is :math:`d_n(Z + h, M)`.

    Notes
    -----
    A refinement step compares :math:`f_i` at the current point and its :math:`3^p - 1`
    neighbours and moves to the smallest value if it is below the best so far. The current
    point's value is carried over from the step that chose it (at the first step it is
    evaluated once), so only the neighbours are evaluated (in one dimension two points
    instead of three), with the same comparisons.
    """
    p = expansion.points.shape[1]
    low = np.broadcast_to(np.asarray(low, dtype=float), (p,))
    high = np.broadcast_to(np.asarray(high, dtype=float), (p,))
    if np.any(high <= low):
        raise ValueError(f"The domain needs low < high, got low={low}, high={high}.")
    if int(n_grid) != n_grid or n_grid < 2:
        raise ValueError(f"n_grid must be an integer ≥ 2, got {n_grid!r}.")
    if int(n_refine) != n_refine or n_refine < 0:
        raise ValueError(f"n_refine must be a non-negative integer, got {n_refine!r}.")
    axes = [np.linspace(low[k], high[k], int(n_grid)) for k in range(p)]
    grid = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    kernel, a = expansion.kernel, expansion.point_weight
    diagonal = _kernel_diagonal(kernel, grid)
    atoms_grid = kernel(expansion.atoms, grid)
    distinct = expansion.distinct_coefficients
    if distinct is not None:  # C K(atoms, grid) on the distinct rows of C, once
        rows_grid, row_of = distinct[0] @ atoms_grid, distinct[1]

    n = len(expansion)
    W = np.empty((n, p))
    best = np.empty(n)
    for start in range(0, n, block):
        part = slice(start, min(start + block, n))
        if distinct is None:
            combined = expansion.coefficients[part] @ atoms_grid
        else:
            combined = rows_grid[row_of[part]]
        inner = a * kernel(expansion.points[part], grid) + combined
        values = diagonal[None, :] - 2.0 * inner
        index = np.argmin(values, axis=1)
        W[part] = grid[index]
        best[part] = values[np.arange(len(index)), index]
    step = (high - low) / (int(n_grid) - 1) / 2.0
    offsets = np.array(list(itertools.product((-1.0, 0.0, 1.0), repeat=p)))
    centre = len(offsets) // 2  # the all-zero offset
    neighbours = np.delete(np.arange(len(offsets)), centre)
    rows = np.arange(n)
    if n_refine:
        current = _objective(expansion, W[:, None, :])[:, 0]  # f_i(W_i), refinement's arithmetic
    for _ in range(int(n_refine)):
        candidates = np.clip(W[:, None, :] + offsets[None, :, :] * step, low, high)
        values = np.empty((n, len(offsets)))
        values[:, centre] = current
        values[:, neighbours] = _objective(expansion, candidates[:, neighbours])
        index = np.argmin(values, axis=1)
        improved = values[rows, index] < best
        W[improved] = candidates[improved, index[improved]]
        best[improved] = values[improved, index[improved]]
        current[improved] = best[improved]
        step = step / 2.0
    distances = np.sqrt(np.maximum(expansion.norms_sq() + best, 0.0))
    return W, distances


def hoeffding_radius(n, rho, delta, *, range_factor):
    r"""Radius :math:`\varepsilon` with :math:`P(|d_n - d| \ge \varepsilon) \le \delta` (Prop. 3).

    Hoeffding's inequality for :math:`n` i.i.d. distances in :math:`[0, R]`,
    :math:`R = c\rho` (:math:`c` = ``range_factor``, :math:`\rho = \max_x\lVert\varphi(x)\rVert`):
    :math:`2\exp(-2n\varepsilon^2/R^2) = \delta`, i.e.
    :math:`\varepsilon = R\sqrt{\log(2/\delta)/(2n)}`.
    """
    if n < 1 or not 0 < delta < 1 or not rho > 0 or not range_factor > 0:
        raise ValueError(
            f"Need n ≥ 1, 0 < delta < 1, rho > 0 and range_factor > 0; got n={n!r}, "
            f"delta={delta!r}, rho={rho!r}, range_factor={range_factor!r}."
        )
    return float(range_factor * rho * np.sqrt(np.log(2.0 / delta) / (2.0 * n)))


def feature_coordinates(gram_matrix, *, tol=1e-10):
    r"""Euclidean coordinates :math:`V\Lambda^{1/2}` of RKHS elements from their Gram matrix.

    Distances between the rows equal the RKHS distances
    :math:`\lVert Z_i - Z_j\rVert`, so :func:`krepro.metrics.distance_correlation` of the
    coordinates is the distance correlation of the RKHS-valued sample.
    """
    G = np.asarray(gram_matrix, dtype=float)
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"gram_matrix must be square, got shape {G.shape}.")
    eigenvalues, eigenvectors = linalg.eigh(0.5 * (G + G.T))
    keep = eigenvalues > tol * max(eigenvalues.max(), 0.0)
    return eigenvectors[:, keep] * np.sqrt(eigenvalues[keep])
