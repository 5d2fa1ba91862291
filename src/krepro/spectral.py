r"""Truncated factorisations of symmetric positive semi-definite (kernel) matrices.

* :func:`top_eigh` — the eigenpairs whose eigenvalue exceeds ``rank_tol`` times the largest
  (kernel-PCA truncation), either from one full LAPACK ``dsyevd`` (``method="dense"``) or
  computing only the kept eigenvectors (``method="partial"``): Householder
  tridiagonalisation ``dsytrd``, all eigenvalues of the tridiagonal matrix (``dsterf``), the
  kept eigenvectors of the tridiagonal matrix by MRRR (``dstemr``; bisection and inverse
  iteration, ``dstebz``/``dstein``, should it fail), and the back
  transformation of those vectors only (``dormqr``). Both use the same tridiagonal matrix
  (``dsyevd`` calls ``dsytrd`` too); the partial path skips the divide-and-conquer
  eigenvectors of the whole spectrum and their :math:`2N^3`-flop back transformation.
* :func:`pivoted_cholesky` — :math:`K \approx G G^\top` by LAPACK's pivoted Cholesky
  ``dpstrf``, stopped at the numerical rank (pivot at or below :math:`N u \max_i K_{ii}`);
  cheap when the spectrum decays fast (an RBF kernel on a scalar output: rank ≈ 20 for
  :math:`N` = 4,000).

Why the kernel PCA is not factorised by a pivoted Cholesky: the truncation of the input
kernel sits inside a dense part of its spectrum (Parkinson's, :math:`N` = 4,144: 977
eigenvalues above :math:`10^{-6}\lambda_{\max}`, 2,262 above :math:`10^{-8}`, 3,681 above
:math:`10^{-10}`); a pivoted Cholesky stopped at the truncation tolerance has rank 913 and
changes the DCM projections by 0.06 (eq. (12) as printed: by 2.9), and one that reproduces
them to 1e-6 has rank ≈ 4,100 ≈ :math:`N` (``benchmarks/README.md``, section ``dcm.py``).

Cost of ``method="partial"`` there (1 BLAS thread, fractions of one dense ``dsyevd`` of the
same matrix; ``benchmarks/dcm.py --stages``): ``dsytrd`` 0.44, ``dsterf`` 0.015, ``dstemr``
0.12 (bisection + inverse iteration: ≈ 4× slower), ``dormqr`` 0.075. Not used, measured:
LAPACK's two-stage reduction (``dsytrd_sy2sb`` + ``dsytrd_sb2st``, exported by SciPy's
OpenBLAS but not wrapped) gives all eigenvalues in ≈ 0.26× instead of 0.49×, but keeps
none of its bulge-chasing reflectors (eigenvectors "not available in this release"), and
band eigenvectors by ``dsbevx`` cost 3× a dense ``dsyevd``. The ``dsytrd`` block size and
triangle change nothing beyond noise.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg
from scipy.linalg import lapack

from krepro.kernel_safety import check_finite

__all__ = ["EIGENSOLVERS", "pivoted_cholesky", "top_eigh"]

EIGENSOLVERS = ("partial", "dense")
_NOT_FINITE_HINT = (
    " (a kernel matrix evaluated at a scale where it overflowed?); LAPACK cannot factorise it"
)


def _truncate(values, rank_tol, top):
    if not top > 0:
        raise ValueError("The largest eigenvalue is not positive: the matrix is zero.")
    return np.flatnonzero(values > rank_tol * top)[::-1]


def _tridiagonal_top(d, e, k, driver):
    n = len(d)
    return linalg.eigh_tridiagonal(
        d, e, select="i", select_range=(n - k, n - 1), lapack_driver=driver, check_finite=False
    )


def top_eigh(K, rank_tol, *, method="partial", overwrite_a=False):
    r"""Eigenpairs of the symmetric matrix ``K`` with eigenvalue :math:`> \tau\lambda_{\max}`.

    Parameters
    ----------
    K : ndarray of shape (n, n), float64
        Symmetric; LAPACK reads one triangle (a C-ordered ``K`` is passed as the
        Fortran-ordered ``K.T``, which is the same matrix: no copy).
    rank_tol : float
        :math:`\tau \in [0, 1)`: eigenvalues at or below ``rank_tol`` times the largest are
        dropped.
    method : {"partial", "dense"}, default="partial"
        ``"dense"``: ``dsyevd`` (all eigenpairs) then truncation; ``"partial"``: the kept
        eigenvectors only (module docstring). Same eigenpairs up to round-off.
    overwrite_a : bool, default=False
        Let LAPACK overwrite ``K``.

    Returns
    -------
    values : ndarray of shape (k,)
        Decreasing.
    vectors : ndarray of shape (n, k)
        Orthonormal columns, sign arbitrary.

    Raises
    ------
    ValueError
        If the largest eigenvalue is not positive, or ``K`` holds a NaN or an infinity
        (LAPACK would otherwise fail to converge or return NaN eigenpairs).
    """
    if method not in EIGENSOLVERS:
        raise ValueError(f"method must be one of {EIGENSOLVERS}, got {method!r}.")
    check_finite(K, "the matrix K of top_eigh", _NOT_FINITE_HINT)
    n = K.shape[0]
    if method == "dense":
        values, vectors = linalg.eigh(K, overwrite_a=overwrite_a, check_finite=False, driver="evd")
        keep = _truncate(values, rank_tol, float(values[-1]))
        return values[keep], vectors[:, keep]
    A = K.T if K.flags.c_contiguous else K
    work, info = lapack.dsytrd_lwork(n, lower=1)
    reflectors, d, e, tau, info = lapack.dsytrd(
        A, lower=1, lwork=max(int(work), 1), overwrite_a=overwrite_a
    )
    if info != 0:
        raise linalg.LinAlgError(f"LAPACK dsytrd failed (info={info}).")
    spectrum = linalg.eigvalsh_tridiagonal(d, e, lapack_driver="sterf", check_finite=False)
    top = float(spectrum[-1])
    k = len(_truncate(spectrum, rank_tol, top))
    try:
        values, Z = _tridiagonal_top(d, e, k, "stemr")
    except linalg.LinAlgError:  # MRRR can fail on rare inputs: bisection + inverse iteration
        values, Z = _tridiagonal_top(d, e, k, "stebz")
    keep = _truncate(values, rank_tol, top)  # the same k up to a tie at the cut-off
    values, Z = values[keep], Z[:, keep]
    vectors = np.empty_like(Z)
    vectors[0] = Z[0]  # Q = H(1)...H(n-1) acts on rows 2..n (dormtr with uplo = "L")
    if n > 1:
        args = ("L", "N", reflectors[1:, :-1], tau, Z[1:])
        lwork = max(int(lapack.dormqr(*args, lwork=-1)[1][0]), 1)
        vectors[1:], _, info = lapack.dormqr(*args, lwork=lwork)
        if info != 0:
            raise linalg.LinAlgError(f"LAPACK dormqr failed (info={info}).")
    return values, vectors


def pivoted_cholesky(K, *, overwrite_a=False):
    r"""Low-rank factor :math:`G` with :math:`K \approx GG^\top` (LAPACK ``dpstrf``).

    Greedy diagonal pivoting, stopped when the largest remaining pivot (diagonal of the
    Schur complement) is at or below LAPACK's default :math:`n u \max_i K_{ii}`, :math:`u`
    the unit round-off: the residual :math:`E = K - GG^\top` is positive semi-definite with
    :math:`\max_i E_{ii} \le n u \max_i K_{ii}`, so :math:`\lVert E\rVert_2 \le
    \mathrm{tr}\,E \le n^2 u \max_i K_{ii}`. Cost :math:`O(n^2 k)` for rank ``k``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric positive semi-definite (lower triangle read).
    overwrite_a : bool, default=False

    Returns
    -------
    G : ndarray of shape (n, k)

    Raises
    ------
    ValueError
        If ``K`` holds a NaN or an infinity.
    """
    check_finite(K, "the matrix K of pivoted_cholesky", _NOT_FINITE_HINT)
    A = K.T if K.flags.c_contiguous else K
    factor, piv, rank, info = lapack.dpstrf(A, lower=1, overwrite_a=overwrite_a)
    if info < 0:
        raise linalg.LinAlgError(f"LAPACK dpstrf failed (info={info}).")
    G = np.empty((K.shape[0], rank))
    G[piv - 1] = np.tril(factor[:, :rank])  # Pᵀ K P = L Lᵀ, P[:, j] = e_piv[j]
    return G
