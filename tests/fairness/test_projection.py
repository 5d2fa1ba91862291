"""Projection onto M = φ[X]: kernel expansions, pre-images with known answers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import krepro.fairness.projection
from krepro.cme import CMEConditionalMean
from krepro.fairness.conditional import DyadicPartition, PartitionConditionalMean
from krepro.fairness.oblivious import ObliviousKernel
from krepro.fairness.projection import (
    FeatureExpansion,
    RBFKernel,
    feature_coordinates,
    hoeffding_radius,
    oblivious_expansion,
    project_onto_manifold,
)
from krepro.kernels import gram


def rbf(A, B=None):
    return gram(A, B, "rbf", gamma=1.0)


def _sample(n, seed=0):
    rng = np.random.default_rng(seed)
    S = rng.uniform(-5, 5, n)
    X = (0.5 * S + 0.5 * rng.uniform(-5, 5, n))[:, None]
    return S, X


def _oblivious(seed=0, estimator=None):
    S_est, X_est = _sample(60, seed)
    S, X = _sample(25, seed + 1)
    if estimator is None:
        estimator = PartitionConditionalMean(DyadicPartition(-5.0, 5.0, 4))
        kernel = ObliviousKernel(
            gamma=1.0, partition="dyadic", partition_bounds=(-5.0, 5.0), cells_per_axis=4
        )
    else:
        kernel = ObliviousKernel(gamma=1.0, conditional_mean=estimator)
    if getattr(estimator, "needs_output_gram", False):
        estimator.fit(S_est, output_gram=rbf(X_est))
    else:
        estimator.fit(S_est)
    kernel.fit(X_est, sensitive_features=S_est)
    return oblivious_expansion(estimator, X, S, X_est, rbf), kernel, (X, S)


# --------------------------------------------------------------------------- expansions


@pytest.mark.parametrize("cme", [False, True])
def test_oblivious_expansion_matches_the_oblivious_kernel(cme):
    """Z of eq. (9) as a kernel expansion has the Gram matrix of Algorithm 1."""
    estimator = CMEConditionalMean(gamma=1.0, alpha=1e-3) if cme else None
    expansion, kernel, (X, S) = _oblivious(3, estimator)
    np.testing.assert_allclose(expansion.gram(), kernel.gram(X, S), atol=1e-10)
    np.testing.assert_allclose(expansion.norms_sq(), np.diag(kernel.gram(X, S)), atol=1e-10)
    grid = np.linspace(-5, 5, 7)[:, None]
    np.testing.assert_allclose(
        expansion.inner_features(grid), kernel.mixed_gram(X, S, grid), atol=1e-10
    )
    other, _, (X2, S2) = _oblivious(3, estimator)
    np.testing.assert_allclose(expansion.inner(other), kernel.gram(X, S, X2, S2), atol=1e-10)


def test_inner_paired_picks_per_element_candidates():
    expansion, _, _ = _oblivious(4)
    Y = np.random.default_rng(0).uniform(-5, 5, size=(len(expansion), 3, 1))
    paired = expansion.inner_paired(Y)
    for i in range(len(expansion)):
        np.testing.assert_allclose(paired[i], expansion.inner_features(Y[i])[i], atol=1e-12)


def _naive_inner_paired(expansion, Y):
    """The atoms' sum in their order (einsum) plus each element's own term, pair by pair."""
    n, r, p = Y.shape
    K = expansion.kernel(expansion.atoms, Y.reshape(n * r, p)).reshape(-1, n, r)
    own = np.array(
        [
            [expansion.kernel(x[None], y[None])[0, 0] for y in Yi]
            for x, Yi in zip(expansion.points, Y, strict=True)
        ]
    )
    return expansion.point_weight * own + np.einsum("iv,vir->ir", expansion.coefficients, K)


@pytest.mark.parametrize("kernel", [rbf, RBFKernel(1.0)], ids=["callable", "RBFKernel"])
@pytest.mark.parametrize(("block", "atoms_per_call"), [(4096, 16), (7, 5), (1, 200)])
def test_inner_paired_sums_the_atoms_in_order(kernel, block, atoms_per_call):
    """Bit for bit the old per-pair formula, whatever the blocks and shared candidates."""
    base, _, _ = _oblivious(7)
    expansion = FeatureExpansion(base.points, base.atoms, base.coefficients, kernel, 0.7)
    rng = np.random.default_rng(1)
    distinct = rng.uniform(-5, 5, size=(len(expansion), 3, 1))
    shared = rng.choice(np.linspace(-5, 5, 9), size=(len(expansion), 3, 1))  # many repeats
    for Y in (distinct, shared):
        got = expansion.inner_paired(Y, block=block, atoms_per_call=atoms_per_call)
        np.testing.assert_array_equal(got, _naive_inner_paired(expansion, Y))


def test_rbf_kernel_is_gram_with_shortcuts():
    rng = np.random.default_rng(2)
    kernel = RBFKernel(0.8)
    for p in (1, 2):
        A, B = rng.normal(size=(30, p)), rng.normal(size=(30, p))
        full = gram(A, B, "rbf", gamma=0.8)
        if p == 1:
            np.testing.assert_array_equal(kernel(A, B), full)
            np.testing.assert_array_equal(kernel(A), gram(A, None, "rbf", gamma=0.8))
            np.testing.assert_array_equal(kernel.paired(A, B), np.diag(full))
        else:
            np.testing.assert_allclose(kernel(A, B), full, rtol=0, atol=1e-15)
            np.testing.assert_allclose(kernel.paired(A, B), np.diag(full), rtol=0, atol=1e-15)
        np.testing.assert_array_equal(kernel.diagonal(A), np.diag(gram(A, None, "rbf", gamma=0.8)))
    with pytest.raises(ValueError, match="same shape"):
        kernel.paired(np.zeros((3, 1)), np.zeros((2, 1)))


def test_distinct_coefficients_of_partition_features(monkeypatch):
    expansion, _, _ = _oblivious(8)
    rows, index = expansion.distinct_coefficients
    assert len(rows) <= 4 + 1  # one row per cell (and the rows of points in no cell)
    np.testing.assert_array_equal(rows[index], expansion.coefficients)
    # CME features: every row differs, so there is nothing to share
    cme, _, _ = _oblivious(8, CMEConditionalMean(gamma=1.0, alpha=1e-3))
    assert cme.distinct_coefficients is None
    # a hash that collides for every row falls back to comparing the rows themselves
    monkeypatch.setattr(krepro.fairness.projection, "_HASH_STEP", np.uint64(0))
    first, index = krepro.fairness.projection._distinct_rows(expansion.coefficients)
    np.testing.assert_array_equal(expansion.coefficients[first][index], expansion.coefficients)
    assert len(first) == len(rows)


def test_expansion_validates_shapes():
    with pytest.raises(ValueError, match="coefficients must have shape"):
        FeatureExpansion(np.zeros((3, 1)), np.zeros((2, 1)), np.zeros((3, 3)), rbf)
    with pytest.raises(ValueError, match="same dimension"):
        FeatureExpansion(np.zeros((3, 1)), np.zeros((2, 2)), np.zeros((3, 2)), rbf)


# --------------------------------------------------------------------------- projection


@pytest.mark.parametrize("p", [1, 2])
def test_point_on_the_manifold_projects_to_itself(p):
    """Z = φ(x) is on M: its projection is x and its distance 0 (off-grid points too)."""
    x = np.random.default_rng(p).uniform(-2, 2, size=(6, p))
    expansion = FeatureExpansion(x, np.zeros((1, p)), np.zeros((6, 1)), rbf)
    W, distances = project_onto_manifold(expansion, -3.0, 3.0, n_grid=31, n_refine=25)
    np.testing.assert_allclose(W, x, atol=1e-6)
    np.testing.assert_allclose(distances, 0.0, atol=1e-5)


def test_two_point_mixture_has_the_closed_form_distance():
    """Z = ½φ(a) + ½φ(b) with k(a, b) ≈ 0: the projection is a or b, d² = ½ + 1 − 1 = ½."""
    atoms = np.array([[-4.0], [4.0]])
    expansion = FeatureExpansion(np.zeros((1, 1)), atoms, np.array([[0.5, 0.5]]), rbf, 0.0)
    W, distances = project_onto_manifold(expansion, -5.0, 5.0, n_grid=101)
    assert abs(abs(W[0, 0]) - 4.0) < 1e-6
    k_ab = np.exp(-64.0)
    assert distances[0] ** 2 == pytest.approx(0.5 + 0.5 * k_ab + 1.0 - (1 + k_ab), abs=1e-9)


def test_projection_agrees_with_brute_force():
    """Grid + refinement vs exhaustive search on a 20 001-point grid."""
    expansion, _, _ = _oblivious(5)
    W, distances = project_onto_manifold(expansion, -5.0, 5.0, n_grid=201, n_refine=20)
    fine = np.linspace(-5, 5, 20_001)[:, None]
    values = 1.0 - 2.0 * expansion.inner_features(fine)
    brute = np.sqrt(np.maximum(expansion.norms_sq() + values.min(axis=1), 0.0))
    # the refined minimum is at least as low as the fine grid's (up to the grid's own error)
    assert np.all(distances <= brute + 1e-9)
    np.testing.assert_allclose(distances, brute, atol=1e-6)
    np.testing.assert_allclose(W[:, 0], fine[values.argmin(axis=1), 0], atol=2e-3)


def _reference_search(expansion, low, high, n_grid, n_refine):
    """The search before it carried values over: grid, then all 3^p points every step."""
    p = expansion.points.shape[1]
    axes = [np.linspace(low, high, n_grid)] * p
    grid = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    values = 1.0 - 2.0 * expansion.inner_features(grid)
    index = values.argmin(axis=1)
    W, best = grid[index], values[np.arange(len(index)), index]
    step = (high - low) / (n_grid - 1) / 2.0
    offsets = np.array(list(itertools.product((-1.0, 0.0, 1.0), repeat=p)))
    for _ in range(n_refine):
        candidates = np.clip(W[:, None, :] + offsets[None] * step, low, high)
        values = 1.0 - 2.0 * _naive_inner_paired(expansion, candidates)
        index = values.argmin(axis=1)
        rows = np.arange(len(W))
        improved = values[rows, index] < best
        W[improved] = candidates[improved, index[improved]]
        best[improved] = values[improved, index[improved]]
        step /= 2.0
    return W, np.sqrt(np.maximum(expansion.norms_sq() + best, 0.0))


@pytest.mark.parametrize("features", ["partition", "cme", "two_dim"])
@pytest.mark.parametrize("kernel", [rbf, RBFKernel(1.0)], ids=["callable", "RBFKernel"])
def test_search_takes_the_reference_search_path(features, kernel):
    """Carrying the current value over changes nothing: the same W, the same distances."""
    if features == "two_dim":
        rng = np.random.default_rng(9)
        base = FeatureExpansion(
            rng.uniform(-2, 2, (12, 2)),
            rng.uniform(-2, 2, (9, 2)),
            rng.normal(scale=0.3, size=(12, 9)),
            rbf,
            0.5,
        )
        low, high, n_grid = -2.0, 2.0, 11
    else:
        estimator = CMEConditionalMean(gamma=1.0, alpha=1e-3) if features == "cme" else None
        base, _, _ = _oblivious(10, estimator)
        low, high, n_grid = -5.0, 5.0, 41
    expansion = FeatureExpansion(
        base.points, base.atoms, base.coefficients, kernel, base.point_weight
    )
    W, distances = project_onto_manifold(expansion, low, high, n_grid=n_grid, n_refine=9)
    W_ref, distances_ref = _reference_search(expansion, low, high, n_grid, 9)
    np.testing.assert_array_equal(W, W_ref)
    np.testing.assert_allclose(distances, distances_ref, rtol=1e-13, atol=1e-14)


def test_projection_rejects_bad_domains():
    expansion = FeatureExpansion(np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((1, 1)), rbf)
    with pytest.raises(ValueError, match="low < high"):
        project_onto_manifold(expansion, 1.0, 1.0)
    with pytest.raises(ValueError, match="n_grid"):
        project_onto_manifold(expansion, 0.0, 1.0, n_grid=1)
    with pytest.raises(ValueError, match="n_refine"):
        project_onto_manifold(expansion, 0.0, 1.0, n_refine=-1)


def test_hoeffding_radius():
    # 2 exp(−2nε²/R²) = δ
    eps = hoeffding_radius(100, 1.0, 0.05, range_factor=5)
    assert 2 * np.exp(-2 * 100 * eps**2 / 25) == pytest.approx(0.05)
    with pytest.raises(ValueError, match="delta"):
        hoeffding_radius(100, 1.0, 1.5, range_factor=5)


def test_feature_coordinates_keep_rkhs_distances():
    expansion, _, _ = _oblivious(6)
    G = expansion.gram()
    coordinates = feature_coordinates(G)
    squared = np.diag(G)[:, None] + np.diag(G)[None, :] - 2 * G
    euclidean = ((coordinates[:, None, :] - coordinates[None, :, :]) ** 2).sum(axis=2)
    np.testing.assert_allclose(euclidean, np.maximum(squared, 0), atol=1e-8)


@pytest.mark.parametrize(("scale", "gamma"), [(1e160, 1.0), (1.0, 1.7e308), (1e300, 1e-300)])
def test_rbf_kernel_paired_is_finite_and_equals_the_kernel_matrix_at_extreme_scales(scale, gamma):
    # Before: the expansion |a|^2 + |b|^2 - 2<a, b> gave inf - inf = NaN.
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(6, 2)) * scale, rng.normal(size=(6, 2)) * scale
    B[0] = A[0]
    kernel = RBFKernel(gamma)
    paired = kernel.paired(A, B)
    assert np.isfinite(paired).all() and paired[0] == 1.0
    np.testing.assert_allclose(paired, np.diag(kernel(A, B)), rtol=0, atol=1e-15)
