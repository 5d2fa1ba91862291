"""Tests of :mod:`krepro.fairness.tiled_gram` against dense computations."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

import krepro
from krepro.fairness.tiled_gram import (
    KernelTiles,
    LowRankCorrection,
    cell_correction,
    cross_products,
    fill_gram,
    symmetric_products,
    tile_ranges,
)
from krepro.kernels import gram

# Tile sizes: one tile per row, uneven edges (n = 23, m = 17 are not multiples), one tile.
TILE_SIZES = [1, 4, 7, 1000]
KERNELS = [
    ("rbf", {"gamma": 0.4}),
    ("rbf", {}),  # gamma = 1 / n_features
    ("poly", {"degree": 2, "gamma": 0.5, "coef0": 1.0}),
    ("matern", {"nu": 1.5, "length_scale": 2.0}),
]


def _points(seed=0, n=23, m=17, d=3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) + 2.0, rng.normal(size=(m, d))


def test_tile_ranges_cover_the_range_once():
    assert tile_ranges(10, 4) == [slice(0, 4), slice(4, 8), slice(8, 10)]
    assert tile_ranges(3, 10) == [slice(0, 3)]
    assert tile_ranges(0, 4) == []


@pytest.mark.parametrize(("kernel", "params"), KERNELS)
def test_kernel_tiles_equal_the_dense_kernel(kernel, params):
    X, Y = _points()
    for tiles, K in [
        (KernelTiles(X, Y, kernel, params, tile_size=8), gram(X, Y, kernel, **params)),
        (KernelTiles(X, None, kernel, params, tile_size=8), gram(X, None, kernel, **params)),
    ]:
        for rows in tile_ranges(K.shape[0], 8):
            for cols in tile_ranges(K.shape[1], 8):
                # entries are O(1)-O(10); round-off of the expansion |x|² + |y|² − 2<x, y> only
                np.testing.assert_allclose(tiles(rows, cols), K[rows, cols], rtol=1e-13, atol=1e-13)


def test_rbf_tiles_have_unit_diagonal_and_values_at_most_one():
    X, _ = _points(1, n=40)
    X = np.vstack([X, X[:5]])  # duplicates: zero distance up to round-off
    tiles = KernelTiles(X, None, "rbf", {"gamma": 3.0}, tile_size=16)
    for rows in tile_ranges(len(X), 16):
        for cols in tile_ranges(len(X), 16):
            tile = tiles(rows, cols)
            assert tile.max() <= 1.0
            if rows == cols:
                np.testing.assert_array_equal(np.diag(tile), 1.0)
    np.testing.assert_allclose(
        KernelTiles(X, X.copy(), "rbf", {"gamma": 3.0}, tile_size=64)(slice(0, 45), slice(0, 45)),
        rbf_kernel(X, X.copy(), gamma=3.0),
        rtol=0,
        atol=1e-13,
    )


@pytest.mark.parametrize("tile_size", TILE_SIZES)
@pytest.mark.parametrize(("kernel", "params"), KERNELS)
def test_products_equal_dense_products(kernel, params, tile_size):
    X, Y = _points(2)
    rng = np.random.default_rng(3)
    E = rng.normal(size=(len(Y), 4))
    E[:6, 2:] = 0.0  # rows whose nonzeros span part of the columns only
    E[10:, :2] = 0.0
    K_xy = gram(X, Y, kernel, **params)
    K_yy = gram(Y, None, kernel, **params)
    tiles = KernelTiles(X, Y, kernel, params, tile_size)
    # O(10) sums of O(1) terms
    np.testing.assert_allclose(cross_products(tiles, E, len(X), tile_size), K_xy @ E, atol=1e-12)
    symmetric = symmetric_products(KernelTiles(Y, None, kernel, params, tile_size), E, tile_size)
    np.testing.assert_allclose(symmetric, K_yy @ E, rtol=0, atol=1e-12)


def _cells_and_tables(rng, n, n_cells):
    cells = rng.integers(0, n_cells + 1, n)  # n_cells: "in no cell"
    return cells, rng.normal(size=(n, n_cells + 1))


@pytest.mark.parametrize("tile_size", TILE_SIZES)
@pytest.mark.parametrize("n_cells", [3, 40])  # gemm of the one-hot factors; gathers
def test_fill_gram_with_cell_correction(tile_size, n_cells):
    X, Y = _points(4)
    rng = np.random.default_rng(5)
    cells_a, U = _cells_and_tables(rng, len(X), n_cells)
    cells_b, V = _cells_and_tables(rng, len(Y), n_cells)
    params = {"gamma": 0.3}
    expected = gram(X, Y, "rbf", **params) + U[:, cells_b] + V[:, cells_a].T
    out = np.empty((len(X), len(Y)))
    fill_gram(
        KernelTiles(X, Y, "rbf", params, tile_size),
        cell_correction(U, cells_b, V, cells_a),
        out,
        tile_size=tile_size,
    )
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-13)
    # one term only (the M-oblivious cross products)
    out = fill_gram(
        KernelTiles(X, Y, "rbf", params, tile_size),
        cell_correction(V=V, cells_a=cells_a),
        np.empty((len(X), len(Y))),
        tile_size=tile_size,
    )
    np.testing.assert_allclose(out, gram(X, Y, "rbf", **params) + V[:, cells_a].T, atol=1e-13)
    # symmetric: C_ij = W_{i, c_j} + W_{j, c_i}
    out = fill_gram(
        KernelTiles(X, None, "rbf", params, tile_size),
        cell_correction(U, cells_a, U, cells_a),
        np.empty((len(X), len(X))),
        symmetric=True,
        tile_size=tile_size,
    )
    expected = gram(X, None, "rbf", **params) + U[:, cells_a] + U[:, cells_a].T
    np.testing.assert_array_equal(out, out.T)
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-13)


@pytest.mark.parametrize("tile_size", TILE_SIZES)
def test_fill_gram_with_low_rank_correction(tile_size):
    X, Y = _points(6)
    rng = np.random.default_rng(7)
    A, B = rng.normal(size=(len(X), 5)), rng.normal(size=(len(Y), 5))
    params = {"nu": 2.5, "length_scale": 1.0}
    out = fill_gram(
        KernelTiles(X, Y, "matern", params, tile_size),
        LowRankCorrection(A, B),
        np.empty((len(X), len(Y))),
        tile_size=tile_size,
    )
    np.testing.assert_allclose(out, gram(X, Y, "matern", **params) + A @ B.T, atol=1e-13)
    C = rng.normal(size=(len(X), 5))
    out = fill_gram(
        KernelTiles(X, None, "matern", params, tile_size),
        LowRankCorrection(np.hstack([A, C]), np.hstack([C, A])),
        np.empty((len(X), len(X))),
        symmetric=True,
        tile_size=tile_size,
    )
    np.testing.assert_array_equal(out, out.T)
    expected = gram(X, None, "matern", **params) + A @ C.T + C @ A.T
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-13)


@pytest.mark.parametrize(
    ("scale", "gamma"),
    [(1e160, 1.0), (1e-300, 1.7e308), (1.0, 1.7e308), (1e300, 1e-300), (1e154, 1e-300)],
)
@pytest.mark.parametrize("symmetric", [True, False])
def test_rbf_tiles_are_finite_and_equal_gram_at_extreme_scales(scale, gamma, symmetric):
    # Before: the augmented product overflowed (2 gamma = inf, |x|^2 = inf) and tiles held
    # NaN; now they take the direct path, as gram() does, whatever the scale.
    X, Y = _points()
    X, Y = X * scale, (None if symmetric else Y * scale)
    tiles = KernelTiles(X, Y, "rbf", {"gamma": gamma})
    n_cols = len(X) if symmetric else len(Y)
    for size in (4, 1000):
        for rows in tile_ranges(len(X), size):
            for cols in tile_ranges(n_cols, size):
                tile = tiles(rows, cols)
                assert np.isfinite(tile).all()
                reference = gram(X[rows], (X if symmetric else Y)[cols], "rbf", gamma=gamma)
                if symmetric and rows == cols:
                    np.testing.assert_array_equal(np.diag(tile), 1.0)
                np.testing.assert_allclose(tile, reference, rtol=0, atol=1e-15)


def test_concurrent_tiled_products_restore_the_blas_threads(tmp_path):
    # Thread A enters a tiled product, thread B enters another, A leaves, B leaves. Before,
    # each applied a threadpoolctl limit of its own: B saw A's one-thread limit as the
    # original and "restored" it last, leaving the process on one BLAS thread for good. Run
    # in a fresh interpreter: in this one the main thread holds the test session's limits,
    # and threadpoolctl ignores other threads' limits while it does.
    script = tmp_path / "interleave.py"
    script.write_text(_INTERLEAVE)
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "2", "PYTHONPATH": SOURCE_ROOT},
        check=True,
    )
    assert result.stdout.split() == ["2", "2"], result.stdout  # before, after


SOURCE_ROOT = str(Path(krepro.__file__).resolve().parents[1])  # the krepro under test
_INTERLEAVE = """
import threading
import numpy as np
from threadpoolctl import threadpool_info
from krepro.fairness.tiled_gram import cross_products

def blas_threads():
    return max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")

a_inside, b_inside, a_left = threading.Event(), threading.Event(), threading.Event()

class Tiles:
    def __init__(self, entered, wait_for):
        self.entered, self.wait_for = entered, wait_for

    def __call__(self, rows, cols):
        self.entered.set()
        self.wait_for.wait(timeout=60)
        return np.ones((1, 1))

def first():
    cross_products(Tiles(a_inside, b_inside), np.ones((1, 1)), 1)
    a_left.set()

def second():
    a_inside.wait(timeout=60)
    cross_products(Tiles(b_inside, a_left), np.ones((1, 1)), 1)

print(blas_threads())
threads = [threading.Thread(target=first), threading.Thread(target=second)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(blas_threads())
"""
