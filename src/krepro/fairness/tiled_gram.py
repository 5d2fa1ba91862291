r"""Kernel matrices evaluated tile by tile, for the oblivious Gram matrix.

The oblivious Gram matrix (Grünewälder & Khaleghi 2021, Algorithm 1 and Appendix E) is a
kernel matrix plus a low-rank correction, built from three kernel blocks of which only one is
returned: of :math:`K(\mathrm{est}, \mathrm{est})` and :math:`K(\mathrm{train},
\mathrm{est})` only the products with the few columns of the cell-averaging matrix
:math:`G` are needed. This module evaluates kernels on square tiles small enough to stay in
the CPU cache and consumes each tile at once:

* :func:`cross_products` -- :math:`K(X, Y)\,E` for a matrix :math:`E` with few columns;
* :func:`symmetric_products` -- :math:`K(X, X)\,E` from the tiles on and above the diagonal
  only (each off-diagonal tile serves both :math:`K_{IJ}E_J` and :math:`K_{IJ}^\top E_I`),
  i.e. half of the kernel evaluations;
* :func:`fill_gram` -- a kernel matrix plus a correction written into a preallocated output,
  for a symmetric matrix again from the tiles on and above the diagonal, each mirrored while
  it is in cache; the result is exactly symmetric.

No full kernel block is ever allocated: the peak memory is the output plus a few tiles.
Results depend on the tile size only through the order of floating-point sums (round-off).

For the RBF kernel :class:`KernelTiles` evaluates a tile with one matrix product, a clip and
an exponential in a reused buffer: with augmented points
:math:`\tilde x = (2\gamma x, -\gamma\lVert x\rVert^2, 1)` and
:math:`\tilde y = (y, 1, -\gamma\lVert y\rVert^2)`,
:math:`\tilde x^\top\tilde y = -\gamma\lVert x - y\rVert^2` (the expansion scikit-learn's
``euclidean_distances`` uses, with the same round-off order of magnitude). Other kernels
are evaluated per tile by :func:`krepro.kernels.gram`. At extreme scales, where the
augmented product could overflow (inputs of magnitude ~1e154 and beyond, ``gamma`` near the
float64 maximum), RBF tiles come from direct differences instead
(:func:`krepro.kernels.scaled_squared_distances`): every tile is finite whatever the scale.
"""

from __future__ import annotations

import functools
import threading

import numpy as np
from scipy.linalg import get_blas_funcs
from threadpoolctl import ThreadpoolController

from krepro.kernel_safety import _augmented_is_safe, _max_abs, _rbf_direct
from krepro.kernels import _kernel_matrix

__all__ = [
    "TILE_SIZE",
    "KernelTiles",
    "LowRankCorrection",
    "cell_correction",
    "cross_products",
    "fill_gram",
    "symmetric_products",
    "tile_ranges",
]

# Side of the square kernel tiles. A 256 × 256 float64 tile is 512 KiB: a tile and the
# small operands of its products stay in a 1-2 MiB L2 cache, and at ~65k entries per tile
# the fixed cost of the numpy calls per tile (tens of µs) is a few per cent of the work.
# Measured on the benchmark (benchmarks/oblivious_gram.py): 192-384 are within noise of
# each other; 64 is slower from per-tile overhead, 1024 from cache misses.
TILE_SIZE = 256
# Widest one-hot product that cell_correction adds by gemm (k = 2(L + 1) for L cells; 34
# for the paper's 16 cells): beyond it two gathers per tile are cheaper.
_GEMM_MAX_WIDTH = 64
_dgemm = get_blas_funcs("gemm", dtype=np.float64)


@functools.cache
def _blas_controller():
    return ThreadpoolController()


class _SingleBlasThread:
    """BLAS limited to one thread while a tiled product runs, safe to enter from threads.

    BLAS thread pools are process-wide. The first thread to enter owns the limit and is
    the one to lift it, restoring what it saw on entry; threads entering while it is set
    run under it and change nothing. (Each thread applying and lifting a ``threadpoolctl``
    limit of its own instead lets a thread that entered under another's limit "restore"
    that limit on leaving, which left the process on one BLAS thread for good.) A thread
    still inside when the owner leaves may finish with the original thread count: the same
    results, at most slower.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._owner = None
        self._depth = 0
        self._limiter = None

    def __enter__(self):
        with self._lock:
            if self._owner is None:
                self._owner = threading.get_ident()
                self._limiter = _blas_controller().limit(limits=1, user_api="blas")
            if self._owner == threading.get_ident():
                self._depth += 1

    def __exit__(self, *exc_info):
        with self._lock:
            if self._owner != threading.get_ident():
                return
            self._depth -= 1
            if self._depth == 0:
                self._limiter.restore_original_limits()
                self._owner, self._limiter = None, None


_SINGLE_BLAS_THREAD = _SingleBlasThread()


def _one_blas_thread(function):
    """Run ``function`` with BLAS limited to one thread (thread-safe: see
    :class:`_SingleBlasThread`).

    The products inside a tile are small (256 × 256 × 3 for the RBF exponent, × 34 for the
    correction): a threaded BLAS would spend more time starting and spinning threads than
    computing (measured: 8× the CPU time with 2 threads at n = 4000).
    """

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with _SINGLE_BLAS_THREAD:
            return function(*args, **kwargs)

    return wrapper


def tile_ranges(n, size):
    """Consecutive slices of ``range(n)`` of length ``size`` (the last one shorter)."""
    size = max(1, int(size))
    return [slice(start, min(start + size, n)) for start in range(0, n, size)]


class KernelTiles:
    r"""Tiles :math:`k(x_i, y_j)`, ``i ∈ rows``, ``j ∈ cols``, of a kernel matrix.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    Y : ndarray of shape (m, d), default=None
        ``None`` means the symmetric matrix of ``X`` with itself: its diagonal tiles are
        evaluated as such (zero self-distance for RBF, as scikit-learn's ``X is Y`` case).
    kernel : str, default="rbf"
        Kernel name of :func:`krepro.kernels.gram`.
    params : dict, default=None
        Its parameters (``gamma=None`` means ``1 / d`` for RBF, as scikit-learn).
    tile_size : int, default=TILE_SIZE
        Largest tile side; the RBF buffer holds one tile.

    Notes
    -----
    For RBF the returned tile is a view of a buffer that the next call overwrites. It is
    the augmented product when a bound shows that it cannot overflow
    (:func:`krepro.kernels.rbf_gram`'s condition, checked once for all tiles), else
    :func:`krepro.kernels.scaled_squared_distances` exponentiated.
    """

    def __init__(self, X, Y=None, kernel="rbf", params=None, tile_size=TILE_SIZE):
        self.symmetric = Y is None
        self.X = X
        self.Y = X if Y is None else Y
        self.kernel = kernel
        self.params = dict(params or {})
        self.fast = kernel == "rbf"
        self._gamma = None
        if self.fast:
            gamma = self.params.get("gamma")
            gamma = 1.0 / X.shape[1] if gamma is None else float(gamma)
            magnitude = _max_abs(X) if self.symmetric else _max_abs(X, self.Y)
            if not _augmented_is_safe(magnitude, X.shape[1], gamma):
                self.fast = False
                self._gamma = gamma  # tiles by direct differences
                return
            self._left = self._augment(X, gamma, scale=2.0 * gamma, first=True)
            right = self._augment(self.Y, gamma, scale=1.0, first=False)
            self._right_t = np.ascontiguousarray(right.T)
            self._buffer = np.empty(int(tile_size) ** 2)

    @staticmethod
    def _augment(Z, gamma, scale, first):
        """Rows ``(2γ z, -γ|z|², 1)`` (``first``) or ``(z, 1, -γ|z|²)``."""
        squared = -gamma * np.einsum("ij,ij->i", Z, Z)
        ones = np.ones(len(Z))
        tail = (squared, ones) if first else (ones, squared)
        return np.column_stack([scale * Z, *tail])

    def __call__(self, rows, cols):
        """The tile ``K[rows, cols]`` (rows, cols: slices)."""
        diagonal = self.symmetric and rows == cols
        if not self.fast:
            Y = None if diagonal else self.Y[cols]
            if self._gamma is not None:
                return _rbf_direct(self.X[rows], Y, self._gamma)
            return _kernel_matrix(self.X[rows], Y, self.kernel, self.params)
        n_rows, n_cols = rows.stop - rows.start, cols.stop - cols.start
        tile = self._buffer[: n_rows * n_cols].reshape(n_rows, n_cols)
        np.matmul(self._left[rows], self._right_t[:, cols], out=tile)  # −γ‖x − y‖²
        np.minimum(tile, 0.0, out=tile)  # round-off can make a distance negative
        if diagonal:
            np.fill_diagonal(tile, 0.0)
        return np.exp(tile, out=tile)


def _column_support(E, cols):
    """Smallest column range of ``E`` holding every nonzero of the rows ``cols``."""
    nonzero = np.flatnonzero(np.any(E[cols] != 0.0, axis=0))
    if len(nonzero) == 0:
        return slice(0, 0)
    return slice(int(nonzero[0]), int(nonzero[-1]) + 1)


@_one_blas_thread
def cross_products(tiles, E, n_rows, tile_size=TILE_SIZE):
    r""":math:`K(X, Y)\,E`, shape ``(n_rows, E.shape[1])``, one kernel tile at a time.

    Parameters
    ----------
    tiles : KernelTiles
        Tiles of :math:`K(X, Y)`.
    E : ndarray of shape (m, k)
        Few columns; for points sorted by cell, the cell indicators, whose nonzeros in a
        tile of rows lie in a narrow range of columns (only those are multiplied).
    n_rows : int
        Number of points in ``X``.
    tile_size : int
    """
    out = np.zeros((n_rows, E.shape[1]))
    col_tiles = tile_ranges(E.shape[0], tile_size)
    supports = [_column_support(E, cols) for cols in col_tiles]
    for rows in tile_ranges(n_rows, tile_size):
        for cols, support in zip(col_tiles, supports, strict=True):
            tile = tiles(rows, cols)
            if support.stop > support.start:
                out[rows, support] += tile @ E[cols, support]
    return out


@_one_blas_thread
def symmetric_products(tiles, E, tile_size=TILE_SIZE):
    r""":math:`K(X, X)\,E` from the kernel tiles on and above the diagonal only.

    An off-diagonal tile :math:`K_{IJ}` adds :math:`K_{IJ}E_J` to rows ``I`` and
    :math:`K_{IJ}^\top E_I` to rows ``J``, so the kernel is evaluated on about half of the
    pairs.

    Parameters
    ----------
    tiles : KernelTiles
        Symmetric tiles (``Y=None``).
    E : ndarray of shape (m, k)
    tile_size : int
    """
    m = E.shape[0]
    out = np.zeros((m, E.shape[1]))
    blocks = tile_ranges(m, tile_size)
    supports = [_column_support(E, block) for block in blocks]
    for a, rows in enumerate(blocks):
        for b in range(a, len(blocks)):
            cols = blocks[b]
            tile = tiles(rows, cols)
            if supports[b].stop > supports[b].start:
                out[rows, supports[b]] += tile @ E[cols, supports[b]]
            if b != a and supports[a].stop > supports[a].start:
                out[cols, supports[a]] += tile.T @ E[rows, supports[a]]
    return out


class LowRankCorrection:
    r"""Correction :math:`C = A B^\top`, added to a tile by one in-place BLAS ``gemm``.

    Parameters
    ----------
    A : ndarray of shape (n_a, k)
    B : ndarray of shape (n_b, k)
    """

    def __init__(self, A, B):
        self.A = np.ascontiguousarray(A, dtype=float)
        self.B = np.ascontiguousarray(B, dtype=float)

    def add_to(self, tile, rows, cols):
        """``tile += C[rows, cols]`` in place."""
        if tile.dtype == np.float64 and tile.flags.c_contiguous:
            # tileᵀ (Fortran order) += B[cols] A[rows]ᵀ: no temporary, no copy of the tile
            result = _dgemm(
                1.0, self.B[cols].T, self.A[rows].T, beta=1.0, c=tile.T, trans_a=1, overwrite_c=1
            )
            if not np.shares_memory(result, tile):  # pragma: no cover (a copying wrapper)
                tile[...] = result.T
        else:
            tile += self.A[rows] @ self.B[cols].T


class _GatherCorrection:
    """:math:`C_{ij} = U_{i, c_j} + V_{j, c'_i}` by two gathers (many cells)."""

    def __init__(self, U, cells_b, V, cells_a):
        self.U, self.cells_b = U, cells_b
        self.V_by_cell = None if V is None else np.ascontiguousarray(V.T)
        self.cells_a = cells_a

    def add_to(self, tile, rows, cols):
        if self.U is not None:
            tile += self.U[rows][:, self.cells_b[cols]]
        if self.V_by_cell is not None:
            tile += self.V_by_cell[:, cols][self.cells_a[rows]]


def cell_correction(U=None, cells_b=None, V=None, cells_a=None):
    r"""Correction :math:`C_{ij} = U_{i, c_j} + V_{j, c'_i}` for one-hot coefficients.

    The oblivious Gram's correction when the coefficients :math:`r(s) = (-e_{a(s)}, 1)` are
    one-hot: with ``U`` and ``V`` of shape ``(·, L + 1)`` and cell indices in ``0..L``
    (``L`` for a point in no cell). It is the product :math:`[U, H_a][H_b, V]^\top` with the
    one-hot matrices :math:`H` of the cells, added by one ``gemm`` per tile (the ones and
    zeros make every product exact, so the entry is rounded once, from
    :math:`U_{i,c_j} + V_{j,c'_i}`); with many cells (a wide product) by two gathers instead.

    Parameters
    ----------
    U : ndarray of shape (n_a, L + 1) or None
        Indexed by the row point and the column point's cell ``cells_b``.
    cells_b : ndarray of shape (n_b,)
    V : ndarray of shape (n_b, L + 1) or None
        Indexed by the column point and the row point's cell ``cells_a``.
    cells_a : ndarray of shape (n_a,)

    Returns
    -------
    correction : object with ``add_to(tile, rows, cols)``
    """
    width = U.shape[1] if U is not None else V.shape[1]
    n_terms = (U is not None) + (V is not None)
    if n_terms * width > _GEMM_MAX_WIDTH:
        return _GatherCorrection(U, cells_b, V, cells_a)

    def one_hot(cells):
        H = np.zeros((len(cells), width))
        H[np.arange(len(cells)), cells] = 1.0
        return H

    left, right = [], []
    if U is not None:
        left.append(U)
        right.append(one_hot(cells_b))
    if V is not None:
        left.append(one_hot(cells_a))
        right.append(V)
    return LowRankCorrection(np.hstack(left), np.hstack(right))


@_one_blas_thread
def fill_gram(tiles, correction, out, symmetric=False, tile_size=TILE_SIZE):
    r"""``out = K + C`` tile by tile, for a kernel matrix K and a correction C.

    Parameters
    ----------
    tiles : KernelTiles
        Tiles of ``K`` (symmetric tiles when ``symmetric``).
    correction : object with ``add_to(tile, rows, cols)``
        ``C``; when ``symmetric`` it must be a symmetric matrix.
    out : ndarray of shape (n_a, n_b)
        Written in place and returned.
    symmetric : bool, default=False
        Evaluate only the tiles on and above the diagonal and mirror each off-diagonal one
        into its transposed position (half the kernel evaluations). Diagonal tiles are
        replaced by :math:`(T + T^\top)/2`, so ``out`` is exactly symmetric.
    tile_size : int

    Returns
    -------
    out : ndarray of shape (n_a, n_b)
    """
    n_a, n_b = out.shape
    row_tiles = tile_ranges(n_a, tile_size)
    col_tiles = row_tiles if symmetric else tile_ranges(n_b, tile_size)
    for a, rows in enumerate(row_tiles):
        for cols in col_tiles[a:] if symmetric else col_tiles:
            tile = tiles(rows, cols)
            correction.add_to(tile, rows, cols)
            if not symmetric:
                out[rows, cols] = tile
            elif rows == cols:
                # the kernel's and the correction's round-off may break symmetry here
                target = out[rows, cols]
                np.add(tile, tile.T, out=target)
                target *= 0.5
            else:
                out[rows, cols] = tile
                out[cols, rows] = tile.T  # the tile is still in cache
    return out
