"""krepro.spectral: truncated eigendecomposition and pivoted Cholesky against dense LAPACK.

Tolerances: the partial and dense eigensolvers share the Householder tridiagonalisation and
differ only in the tridiagonal eigensolver (MRRR vs divide and conquer), so eigenvalues
agree to a few units of round-off times the largest, and the kept subspaces to round-off
divided by the spectral gap at the cut-off.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import linalg
from threadpoolctl import threadpool_limits

from krepro.kernels import gram
from krepro.spectral import pivoted_cholesky, top_eigh


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1):
        yield


def centred_rbf(n=300, dim=6, gamma=0.01, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, dim))
    K = gram(X, kernel="rbf", gamma=gamma)
    mean = K.mean(axis=0)
    return K - mean[None, :] - mean[:, None] + mean.mean()


def projector(vectors):
    return vectors @ vectors.T


@pytest.mark.parametrize("rank_tol", [0.0, 1e-12, 1e-8, 1e-6, 1e-3])
def test_partial_eigensolver_equals_dense_dsyevd(rank_tol):
    K = centred_rbf()
    values, vectors = top_eigh(K, rank_tol, method="partial")
    dense_values, dense_vectors = top_eigh(K, rank_tol, method="dense")
    reference = linalg.eigvalsh(K)[::-1]
    assert len(values) == len(dense_values) == np.sum(reference > rank_tol * reference[0])
    assert np.all(np.diff(values) <= 0)
    np.testing.assert_allclose(values, dense_values, rtol=0, atol=1e-12 * values[0])
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(len(values)), atol=1e-10)
    np.testing.assert_allclose(K @ vectors, vectors * values, atol=1e-11 * values[0])
    if rank_tol >= 1e-8:  # a cut-off in the decaying spectrum, not in the round-off noise
        # Davis-Kahan: round-off perturbations of size ~u‖K‖ turn the kept subspace by at
        # most ~u‖K‖/gap (measured: 4e-9 at gap 5e-9, 3e-14 at gap 0.04; bound 45u‖K‖/gap).
        gap = values[-1] - reference[len(values)]
        difference = np.abs(projector(vectors) - projector(dense_vectors)).max()
        assert difference <= 1e-14 * values[0] / gap


def test_rank_is_decided_by_the_same_rule_as_dense():
    """The cut-off is `value > rank_tol * largest` for both solvers (ranks 27, 83, 203 of 300)."""
    K = centred_rbf(gamma=0.003)
    spectrum = linalg.eigvalsh(K)[::-1]
    for rank_tol in (1e-4, 1e-6, 1e-9):
        expected = int(np.sum(spectrum > rank_tol * spectrum[0]))
        assert 0 < expected < len(K)
        for method in ("partial", "dense"):
            assert len(top_eigh(K, rank_tol, method=method)[0]) == expected


def test_degenerate_kept_eigenvalue_gives_the_same_subspace():
    """A repeated eigenvalue: the vectors are arbitrary inside it, the subspace is not."""
    rng = np.random.default_rng(1)
    Q, _ = linalg.qr(rng.normal(size=(40, 40)))
    spectrum = np.r_[5.0, 3.0, 3.0, 3.0, 1.0, np.full(35, 1e-12)]
    K = (Q * spectrum) @ Q.T
    for method in ("partial", "dense"):
        values, vectors = top_eigh(K, 1e-8, method=method)
        np.testing.assert_allclose(values, [5, 3, 3, 3, 1], rtol=1e-12)
        np.testing.assert_allclose(projector(vectors), projector(Q[:, :5]), atol=1e-12)


@pytest.mark.parametrize("method", ["partial", "dense"])
def test_layout_and_overwrite_do_not_change_the_result(method):
    K = centred_rbf(n=120)
    values, vectors = top_eigh(K, 1e-8, method=method)
    for variant, overwrite in ((np.asfortranarray(K), False), (K.copy(), True)):
        other_values, other_vectors = top_eigh(variant, 1e-8, method=method, overwrite_a=overwrite)
        # LAPACK reads the other triangle of a Fortran-ordered K (equal up to 1 ulp).
        np.testing.assert_allclose(other_values, values, rtol=0, atol=1e-14 * values[0])
        np.testing.assert_allclose(projector(other_vectors), projector(vectors), atol=1e-8)
    untouched = K.copy()
    top_eigh(K, 1e-8, method=method)
    np.testing.assert_array_equal(K, untouched)


@pytest.mark.parametrize("method", ["partial", "dense"])
def test_zero_matrix_and_unknown_method_are_errors(method):
    with pytest.raises(ValueError, match="not positive"):
        top_eigh(np.zeros((5, 5)), 1e-8, method=method)
    with pytest.raises(ValueError, match="method"):
        top_eigh(np.eye(3), 1e-8, method="lanczos")


def test_pivoted_cholesky_stops_at_the_numerical_rank():
    rng = np.random.default_rng(2)
    B = rng.normal(size=(200, 7))
    K = B @ B.T  # rank 7
    G = pivoted_cholesky(K)
    assert G.shape == (200, 7)
    np.testing.assert_allclose(G @ G.T, K, atol=1e-12 * np.abs(K).max())


def test_pivoted_cholesky_of_a_smooth_kernel_meets_its_residual_bound():
    """RBF on a scalar: numerical rank ≈ 20 of 500; ‖K − GGᵀ‖₂ ≤ n² u max K_ii."""
    v = np.linspace(-3.0, 3.0, 500)[:, None]
    K = gram(v, kernel="rbf", gamma=0.5)
    G = pivoted_cholesky(K)
    assert 5 < G.shape[1] < 60
    n, u = len(K), np.finfo(float).eps
    assert linalg.norm(K - G @ G.T, 2) <= n**2 * u * K.diagonal().max()
    # Full-rank SPD: an exact factorisation.
    S = K + np.eye(n)
    G = pivoted_cholesky(S)
    assert G.shape == (n, n)
    np.testing.assert_allclose(G @ G.T, S, atol=1e-12)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_matrices_are_refused_naming_k(bad):
    # Before: LAPACK's dsterf "did not converge" (LinAlgError) or NaN eigenpairs.
    K = gram(np.random.default_rng(0).normal(size=(8, 2)), kernel="rbf")
    K[2, 3] = K[3, 2] = bad
    for method in ("partial", "dense"):
        with pytest.raises(ValueError, match="matrix K of top_eigh"):
            top_eigh(K, 1e-8, method=method)
    with pytest.raises(ValueError, match="matrix K of pivoted_cholesky"):
        pivoted_cholesky(K)
