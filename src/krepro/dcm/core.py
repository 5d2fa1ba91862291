r"""Numerical core of :mod:`krepro.dcm`: feature maps, smoother Gram matrices, eigen-solvers.

Everything is solved in a reduced :math:`r \times r` form.
A *feature map* factors the centred training Gram matrix as :math:`K_x = F F^\top` with
orthogonal columns (:math:`A = F^\top F = \mathrm{diag}(a_1, \dots, a_r)`, all :math:`a_j > 0`)
and gives, for any point :math:`x`, a vector :math:`f(x)` with
:math:`\tilde k(x_i, x) = F_i \cdot f(x)` (centred with the *training* means):

* :class:`ExactFeatureMap` — kernel PCA, :math:`F = U_r \Lambda_r^{1/2}`, the eigenpairs of
  the :math:`N \times N` Gram matrix above the truncation (the standard methods;
  :func:`krepro.spectral.top_eigh` computes only those eigenvectors);
* :class:`NystroemFeatureMap` — :math:`F = \tilde C W^{+1/2}` from :math:`M` landmark columns
  (paper eqs. (13)–(15), with the rank-:math:`k` pseudo-inverse :math:`W_k^+` of eq. (14)).

The target and domain kernels enter only through :math:`T_v = F^\top S_v F`, with
:math:`S_v = \tilde K_v(\tilde K_v + N\varepsilon I)^{-1}` (:func:`smoother_gram`). Low-rank
output kernels (delta kernels, Nyström, exact RBF kernels of numerically low rank: a pivoted
Cholesky factor) need no :math:`N \times N` solve:
:math:`T = (F^\top G)(G^\top G + N\varepsilon I)^{-1}(G^\top F)` for :math:`\tilde K_v = G G^\top`.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from scipy import linalg

from krepro.content_key import cached_by_content, content_key
from krepro.kernel_safety import warn_if_degenerate
from krepro.kernels import gram, rbf_gram
from krepro.spectral import pivoted_cholesky, top_eigh
from krepro.validation import label_codes

#: Relative eigenvalue gap below which two eigenvalues count as one degenerate eigenvalue
#: (:func:`informative_top`). Round-off moves the eigenvalues of the degenerate clusters met
#: here (the non-informative cluster at 1 for DCM, at 0 for COIR) by ~1e-12 relative; real
#: gaps between informative eigenvalues are orders of magnitude above 1e-6.
DEGENERACY_TOL = 1e-6

#: An exact RBF output kernel is replaced by its pivoted-Cholesky factor (:func:`output_factor`)
#: when the numerical rank is at most this fraction of ``N``; above it the low-rank formula
#: costs more than the one :math:`N \times N` Cholesky solve.
LOWRANK_MAX_FRACTION = 0.5

__all__ = [
    "DEGENERACY_TOL",
    "LOWRANK_MAX_FRACTION",
    "ExactFeatureMap",
    "NystroemFeatureMap",
    "between_domain_covariance",
    "coir_solve",
    "dcm_solve",
    "dica_solve",
    "fastdcm_paper",
    "informative_top",
    "kernel_block",
    "output_factor",
    "pinv_sqrt",
    "smoother_factor",
    "smoother_gram",
]


def kernel_block(X, Y=None, *, kernel="rbf", **params):
    """:func:`krepro.kernels.gram`, with RBF blocks from :func:`krepro.kernels.rbf_gram`.

    The same values to round-off (≈ 1e-15) at about a third of the cost: the N × N Gram
    matrix and the n × N feature blocks are most of a standard fit's time besides its
    eigendecomposition.
    """
    if kernel == "rbf" and set(params) <= {"gamma"}:
        return rbf_gram(X, Y, params.get("gamma"))
    return gram(X, Y, kernel=kernel, **params)


def pinv_sqrt(W, tol=1e-10):
    r"""``P`` of shape (M, k) with :math:`P P^\top = W_k^+` (paper eq. (14)).

    Eigenvalues of the symmetric PSD matrix ``W`` at or below ``tol`` times the largest are
    dropped (a delta-kernel landmark block with two landmarks in one domain is singular).
    """
    values, vectors = linalg.eigh(W)
    top = max(float(values[-1]), 0.0)
    keep = values > tol * top if top > 0 else np.zeros_like(values, dtype=bool)
    return vectors[:, keep] / np.sqrt(values[keep])


def _orthogonalize(F, tol):
    """Rotate ``F`` to orthogonal columns and drop directions with tiny variance.

    Returns ``(F V, a, V)`` with ``(F V)ᵀ (F V) = diag(a)``; ``F V (F V)ᵀ = F Fᵀ`` up to the
    dropped directions.
    """
    values, vectors = linalg.eigh(F.T @ F)
    top = max(float(values[-1]), 0.0) if values.size else 0.0
    keep = values > tol * top if top > 0 else np.zeros_like(values, dtype=bool)
    V = vectors[:, keep][:, ::-1]
    return F @ V, values[keep][::-1], V


class ExactFeatureMap:
    r"""Kernel-PCA factor :math:`\tilde K = F F^\top` of the (centred) training Gram matrix.

    Parameters
    ----------
    X : ndarray of shape (N, d)
    kernel_params : dict
        ``{"kernel": ..., **params}`` passed to :func:`krepro.kernels.gram`.
    center : bool
        Centre the Gram matrix with :math:`H = I - 11^\top/N`; new points are centred with
        the training means (never with test-batch means).
    rank_tol : float
        Eigenvalues at or below ``rank_tol`` times the largest are dropped.
    eigensolver : {"partial", "dense"}
        :func:`krepro.spectral.top_eigh`'s ``method``: only the kept eigenvectors
        (default) or one full ``dsyevd``; the same factor up to round-off and column signs.
    """

    #: Distinct inputs whose :meth:`features` are kept (an experiment's training and test
    #: points).
    cache_size = 2

    def __init__(self, X, kernel_params, center=True, rank_tol=1e-8, eigensolver="partial"):
        self.X = X
        self.kernel_params = dict(kernel_params)
        self.center = center
        K = kernel_block(X, **self.kernel_params)
        if center:
            self.row_mean = K.mean(axis=0)
            self.grand_mean = float(self.row_mean.mean())
            K -= self.row_mean[None, :]
            K -= self.row_mean[:, None]
            K += self.grand_mean
        try:
            values, vectors = top_eigh(K, rank_tol, method=eigensolver, overwrite_a=True)
        except ValueError as error:
            if "not positive" not in str(error):
                raise
            raise ValueError(
                "X: the centred training Gram matrix is zero: all points coincide, or gamma is "
                "so small against their spread that every kernel value rounds to 1."
            ) from None
        self.eigenvalues = values
        self.projector = vectors / np.sqrt(values)
        self.F = vectors * np.sqrt(values)
        self.F.setflags(write=False)
        self.training_key = content_key(X)

    @property
    def rank(self):
        return self.F.shape[1]

    def features(self, X):
        r"""``f(X)`` of shape (n, r) with :math:`\tilde k(x_i, x) = F_i \cdot f(x)`.

        Costs an :math:`n \times N` kernel block and a product with the :math:`N \times r`
        projector; the results for the last :attr:`cache_size` distinct inputs (by content)
        are kept, read-only, so that estimators sharing this map (:func:`krepro.dcm.fit_shared`)
        project the same training and test points once
        (:func:`krepro.content_key.cached_by_content`: safe to call from several threads).
        Not pickled.

        The training points themselves need no kernel block: :math:`\tilde K U_r
        \Lambda_r^{-1/2} = U_r\Lambda_r^{1/2} = F`, so their features are ``F`` (equal to
        the kernel path up to the eigenvectors' residuals, ≈ 1e-10 of the smallest kept
        component at a 1e-6 truncation).
        """
        X = np.asarray(X, dtype=float)
        if content_key(X) == self.training_key:
            return self.F
        # dict.setdefault is atomic: threads sharing this map share one cache, whose reads
        # and writes cached_by_content makes thread-safe
        cache = self.__dict__.setdefault("_features", OrderedDict())
        return cached_by_content(cache, X, lambda: self._project(X), self.cache_size)

    def _project(self, X):
        """Uncached :meth:`features` of points other than the training points."""
        K = kernel_block(X, self.X, **self.kernel_params)
        if self.center:
            K = K - self.row_mean[None, :] - K.mean(axis=1, keepdims=True) + self.grand_mean
        return K @ self.projector

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_features", None)
        return state


class NystroemFeatureMap:
    r"""Nyström factor :math:`\tilde K = \tilde C W^+ \tilde C^\top = F F^\top` (eqs. 13–15).

    Parameters
    ----------
    X : ndarray of shape (N, d)
    landmarks : ndarray of int
        Indices of the landmark rows of ``X``.
    kernel_params : dict
    center : bool
        Subtract the training column means of :math:`C` (equals :math:`H\tilde K H`; ``W``
        is unchanged); new points subtract the same means.
    rank_tol, pinv_tol : float
        Relative cut-offs of the final rank and of the pseudo-inverse of ``W``.
    """

    def __init__(self, X, landmarks, kernel_params, center=True, rank_tol=1e-8, pinv_tol=1e-10):
        self.kernel_params = dict(kernel_params)
        self.landmarks = np.asarray(landmarks)
        self.X_landmarks = X[self.landmarks]
        self.center = center
        C = kernel_block(X, self.X_landmarks, **self.kernel_params)
        self.W = C[self.landmarks]
        warn_if_degenerate(self.W)  # the landmarks' Gram matrix (rbf_gram warns for K(X, X))
        self.C = C
        P = pinv_sqrt(self.W, pinv_tol)
        self.column_mean = C.mean(axis=0) if center else np.zeros(C.shape[1])
        F, self.eigenvalues, V = _orthogonalize((C - self.column_mean) @ P, rank_tol)
        if F.shape[1] == 0:
            raise ValueError(
                "X: the centred Nyström Gram matrix is zero: all landmarks coincide, or gamma "
                "is so small against their spread that every kernel value rounds to 1."
            )
        self.F = F
        self.projector = P @ V

    @property
    def rank(self):
        return self.F.shape[1]

    def landmark_columns(self, X):
        r"""Centred :math:`c(x) = [k(l_1, x), \dots, k(l_M, x)] - \bar c`, shape (n, M)."""
        return kernel_block(X, self.X_landmarks, **self.kernel_params) - self.column_mean

    def features(self, X):
        """``f(X)`` of shape (n, r)."""
        return self.landmark_columns(X) @ self.projector


def output_factor(v, kind, gamma=None, center=True, landmarks=None, pinv_tol=1e-10):
    r"""Centred output Gram matrix of ``v`` as a factor or in full.

    Returns ``("lowrank", G)`` with :math:`\tilde K_v = G G^\top`, or ``("full", K)``
    (exact RBF outputs: the :math:`N \times N` matrix itself).

    * ``kind="delta"``: :math:`K_v = E E^\top` with the indicator matrix ``E`` of the distinct
      values (exact), or the Nyström factor with the landmark rows;
    * ``kind="rbf"``: :math:`\exp(-\gamma (v - v')^2)`, exact or Nyström. Exact: the
      pivoted-Cholesky factor :math:`G` of :math:`K_v` at its numerical rank
      (:func:`krepro.spectral.pivoted_cholesky`, :math:`\lVert K_v - GG^\top\rVert_2 \le
      N^2 u`), centred as :math:`HG`, when that rank is at most
      :data:`LOWRANK_MAX_FRACTION` times ``N``; otherwise the full matrix.
    """
    if kind == "delta":
        codes = label_codes(v)
        values = codes[:, None].astype(float)
    elif kind == "rbf":
        values = np.asarray(v, dtype=float)
        values = values[:, None] if values.ndim == 1 else values
    else:
        raise ValueError(f"Unknown output kernel {kind!r}; expected 'delta' or 'rbf'.")
    params = {"kernel": "delta"} if kind == "delta" else {"kernel": "rbf", "gamma": gamma}
    if landmarks is not None:
        C = kernel_block(values, values[landmarks], **params)
        G = C @ pinv_sqrt(C[landmarks], pinv_tol)
        return "lowrank", (G - G.mean(axis=0) if center else G)
    if kind == "delta":
        E = np.zeros((len(codes), codes.max() + 1))
        E[np.arange(len(codes)), codes] = 1.0
        return "lowrank", (E - E.mean(axis=0) if center else E)
    K = kernel_block(values, **params)
    G = pivoted_cholesky(K)
    if G.shape[1] <= LOWRANK_MAX_FRACTION * len(K):
        return "lowrank", (G - G.mean(axis=0) if center else G)
    if center:
        mean = K.mean(axis=0)
        K = K - mean[None, :] - mean[:, None] + mean.mean()
    return "full", K


def smoother_gram(F, factor, ridge):
    r""":math:`T = F^\top \tilde K (\tilde K + c I)^{-1} F` for ``factor`` from
    :func:`output_factor` and ``c = ridge`` (:math:`N\varepsilon`)."""
    kind, M = factor
    if kind == "lowrank":
        FG = F.T @ M
        inner = M.T @ M + ridge * np.eye(M.shape[1])
        return FG @ linalg.solve(inner, FG.T, assume_a="pos")
    # K (K + cI)^{-1} = I - c (K + cI)^{-1}: one Cholesky factorisation, no eigendecomposition.
    K = M.copy()
    K[np.diag_indices_from(K)] += ridge
    factorisation = linalg.cho_factor(K, overwrite_a=True, check_finite=False)
    T = F.T @ F - ridge * (F.T @ linalg.cho_solve(factorisation, F, check_finite=False))
    return (T + T.T) / 2


def smoother_factor(F, factor, ridge):
    r"""``B`` with :math:`T = BB^\top` (the :math:`T` of :func:`smoother_gram`), or ``None``.

    For a low-rank output factor G (k columns) and ``ridge`` c > 0,
    :math:`T = (F^\top G)(G^\top G + cI)^{-1}(G^\top F) = BB^\top` with
    :math:`B = F^\top G L^{-\top}`, :math:`LL^\top = G^\top G + cI`: rank at most k. ``None``
    for a full output kernel or ``c = 0`` (no such factor is formed).
    """
    kind, M = factor
    if kind != "lowrank" or ridge <= 0:
        return None
    inner = M.T @ M + ridge * np.eye(M.shape[1])
    lower = linalg.cholesky(inner, lower=True, check_finite=False)
    return linalg.solve_triangular(lower, (F.T @ M).T, lower=True, check_finite=False).T


def _chosen(values, m):
    """Indices of the pairs :func:`informative_top` keeps (``values`` in any order)."""
    _, chosen = informative_top(values, np.arange(len(values))[None, :], m)
    return chosen[0]


def _dcm_low_rank(a_diag, B_y, B_d, m, a, rho):
    r""":func:`dcm_solve` through the factors :math:`T_y = B_yB_y^\top`, :math:`T_d = B_dB_d^\top`.

    With :math:`D = I + \rho A^{-1}` (diagonal) and :math:`x = D^{1/2}u`, the pencil becomes
    :math:`(I + YY^\top, I + ZZ^\top)` with :math:`Y = \sqrt a D^{-1/2}B_y`,
    :math:`Z = \sqrt a D^{-1/2}B_d`. Both act as the identity on the orthogonal complement of
    :math:`\mathrm{span}(Y, Z)` (dimension k ≤ rank B_y + rank B_d), so r − k eigenvalues are
    exactly 1 (the non-informative cluster) and the others are those of the k × k pencil on
    an orthonormal basis Q of the span; :math:`u = D^{-1/2}Qv` keeps the
    :math:`u^\top(aT_d + D)u = 1` normalisation. ``None`` when k > r/2 (no saving) or when the
    kept pairs would come from the cluster (then any basis of it is as good, and the dense
    solver's choice is kept).
    """
    r = len(a_diag)
    inv_root = 1.0 / np.sqrt(1.0 + rho / a_diag)  # D^(-1/2)
    scale = np.sqrt(a) * inv_root
    Y, Z = scale[:, None] * B_y, scale[:, None] * B_d
    basis = linalg.orth(np.hstack([Y, Z]))
    k = basis.shape[1]
    if 2 * k > r:
        return None
    Yq, Zq = basis.T @ Y, basis.T @ Z
    P, R = np.eye(k) + Yq @ Yq.T, np.eye(k) + Zq @ Zq.T
    values, vectors = _geigh((P + P.T) / 2, (R + R.T) / 2)
    chosen = _chosen(np.r_[values, np.ones(r - k)], m)
    if np.any(chosen >= k):
        return None
    u = inv_root[:, None] * (basis @ vectors[:, chosen])
    return values[chosen], u / a_diag[:, None]


def between_domain_covariance(F, domains):
    r"""DICA's :math:`F^\top Q F`: covariance of the domain mean embeddings (Muandet et al.).

    :math:`\frac1G\sum_g \mu_g\mu_g^\top - \bar\mu\bar\mu^\top` with :math:`\mu_g` the mean of
    the rows of ``F`` in domain ``g`` and :math:`\bar\mu = \frac1G\sum_g\mu_g`; its trace is
    the distributional variance :math:`\mathrm{tr}(KQ)`.
    """
    codes = label_codes(domains)
    counts = np.bincount(codes)
    means = np.zeros((len(counts), F.shape[1]))
    np.add.at(means, codes, F)
    means /= counts[:, None]
    centred = means - means.mean(axis=0)
    return centred.T @ centred / len(counts)


def _geigh(P, R):
    """All eigenpairs of the symmetric-definite pencil (P, R) (divide and conquer).

    Not LAPACK's subset driver ``sygvx``: the non-informative eigenvalues form a large
    cluster at 1 (DCM) or 0 (COIR), where its inverse iteration can fail to converge.
    """
    return linalg.eigh(P, R, driver="gvd", check_finite=False)


def informative_top(values, vectors, m, tol=DEGENERACY_TOL):
    r"""The leading eigenpairs, at most ``m``, whose eigenvalue is non-degenerate.

    An eigenvector is determined (up to sign and scale) only by a simple eigenvalue; inside
    a degenerate cluster any rotation is as good, and which one LAPACK returns depends on
    memory layout, dtype and the number of BLAS threads. The rule: sort the eigenvalues in
    decreasing order and keep the leading run of eigenvalues that are separated from both
    neighbours by more than ``tol`` times the largest absolute eigenvalue; the first
    eigenvalue of a cluster ends the run. For DCM with delta target kernels the run ends at
    the cluster at 1 (directions in the null space of both :math:`T_y` and :math:`T_d`), so
    at most :math:`\mathrm{rank}(T_y)` components are kept (1 for binary labels with centred
    kernels, 2 uncentred); for COIR it ends at the cluster at 0. When not even the top
    eigenvalue is simple the top pair is returned (callers warn).

    Returns
    -------
    values : ndarray of shape (k,)
    vectors : ndarray of shape (r, k)
        ``k = min(m, length of the run)``, at least 1.
    """
    order = np.argsort(values, kind="stable")[::-1]
    values, vectors = values[order], vectors[:, order]
    scale = float(np.max(np.abs(values))) if values.size else 0.0
    gaps = np.diff(values[::-1])[::-1]  # values[l] - values[l + 1] >= 0
    separated = gaps > tol * scale if scale > 0 else np.zeros_like(gaps, dtype=bool)
    simple = np.ones(values.size, dtype=bool)
    simple[:-1] &= separated
    simple[1:] &= separated
    run = int(np.argmin(simple)) if not simple.all() else values.size
    k = max(min(int(m), run), 1)
    return values[:k], vectors[:, :k]


def dcm_solve(a_diag, T_y, T_d, m, a=1.0, rho=0.0, factors=None):
    r"""Top generalised eigenpairs (at most ``m``, non-degenerate: :func:`informative_top`)
    of the reduced DCM problem (note §2.3).

    :math:`(a T_y + I + \rho A^{-1}) u = \gamma (a T_d + I + \rho A^{-1}) u`, which is eq. (12)
    restricted to the range of :math:`F` (``a = 1, rho = 0``: eq. (12) as printed;
    ``rho = N ε``: :math:`\Sigma_{xx}` regularised). Returns ``(gammas, W)`` with
    :math:`z(x) = f(x) W`, ``W = A⁻¹ u``.

    ``factors``: optional ``(B_y, B_d)`` with :math:`T_v = B_vB_v^\top`
    (:func:`smoother_factor`); of low rank, the pencil is solved on their span
    (:func:`_dcm_low_rank`, O(r k²) instead of O(r³); the same pairs to round-off).
    """
    if factors is not None and all(B is not None for B in factors):
        solved = _dcm_low_rank(a_diag, *factors, m, a, rho)
        if solved is not None:
            return solved
    r = len(a_diag)
    extra = np.eye(r) + np.diag(rho / a_diag)
    P = a * T_y + extra
    R = a * T_d + extra
    P, R = (P + P.T) / 2, (R + R.T) / 2
    values, vectors = _geigh(P, R)
    values, vectors = informative_top(values, vectors, m)
    return values, vectors / a_diag[:, None]


def coir_solve(a_diag, T_y, m, ridge, factor=None):
    r"""COIR (reconstructed): :math:`T_y w = \lambda (A + N\varepsilon I) w`, ``z = f(x) W``.

    Only non-degenerate eigenpairs are returned (:func:`informative_top`): at most
    :math:`\mathrm{rank}(T_y)`, the rest form the cluster at 0. With ``factor``
    :math:`B` (:math:`T_y = BB^\top`, k ≤ r/2 columns) the nonzero eigenvalues are those of
    :math:`\hat B^\top\hat B` (:math:`\hat B = E^{-1/2}B`, :math:`E = A + N\varepsilon I`)
    and :math:`w = E^{-1/2}\hat Bv/\sqrt\lambda`: O(r k²), the same pairs to round-off.
    """
    if factor is not None and 2 * factor.shape[1] <= len(a_diag):
        root = np.sqrt(a_diag + ridge)
        B = factor / root[:, None]
        small, V = linalg.eigh(B.T @ B)
        chosen = _chosen(np.r_[small, np.zeros(len(a_diag) - len(small))], m)
        if np.all(chosen < len(small)) and np.all(small[chosen] > 0):
            lam = small[chosen]
            return lam, (B @ V[:, chosen]) / np.sqrt(lam) / root[:, None]
    values, vectors = _geigh((T_y + T_y.T) / 2, np.diag(a_diag + ridge))
    return informative_top(values, vectors, m)


def dica_solve(a_diag, T_y, T_q, m, lam, n, supervised=True, tol=1e-10, factor=None):
    r"""DICA (``dica.m``) and unsupervised DICA (``udica.m``) in reduced form.

    Supervised: :math:`\tfrac1N T_y A w = \gamma (A T_q + A + \lambda I) w` (non-symmetric,
    as in the reference code). It has only :math:`k = \mathrm{rank}(T_y)` non-zero
    eigenvalues; with :math:`T_y = G G^\top` they are those of the :math:`k \times k` matrix
    :math:`G^\top A M^{-1} G / N` (:math:`M = A T_q + A + \lambda I`), with eigenvectors
    :math:`w = M^{-1} G v` — no dense :math:`r \times r` non-symmetric eigensolver. The
    zero-eigenvalue directions are not determined by the problem (``dica.m``'s ``eigs``
    returns arbitrary ones), so at most ``k`` directions are returned.
    Unsupervised: :math:`A w = \gamma (T_q + I + \lambda A^{-1}) w`. In both, ``z = f(x) W``.
    ``factor``: optional :math:`B` with :math:`T_y = BB^\top`; then G comes from the small
    :math:`B^\top B = V t V^\top` as :math:`G = BV` (the same columns up to sign) instead of
    the eigendecomposition of the r × r :math:`T_y`.
    """
    r = len(a_diag)
    if not supervised:
        rhs = T_q + np.eye(r) + np.diag(lam / a_diag)
        values, vectors = _geigh(np.diag(a_diag), (rhs + rhs.T) / 2)
        return informative_top(values, vectors, m)
    from_factor = factor is not None and factor.shape[1] < r
    if from_factor:
        t, V = linalg.eigh(factor.T @ factor)
    else:
        t, V = linalg.eigh((T_y + T_y.T) / 2, driver="evd")
    keep = t > tol * max(float(t[-1]), 0.0) if t[-1] > 0 else np.zeros_like(t, dtype=bool)
    G = factor @ V[:, keep] if from_factor else V[:, keep] * np.sqrt(t[keep])
    M = a_diag[:, None] * T_q + np.diag(a_diag + lam)
    MG = linalg.solve(M, G)
    small = (G.T * a_diag[None, :]) @ MG / n
    values, vectors = linalg.eig(small)
    values, vectors = informative_top(values.real, vectors.real, min(m, G.shape[1]))
    return values, MG @ vectors


def fastdcm_paper(Cx, Wx, Cy, Wy, Cd, Wd, eps, m, omega_ridge=True, pinv_tol=1e-10):
    r"""FastDCM exactly as printed: eqs. (16)–(21) of the paper.

    Parameters
    ----------
    Cx, Cy, Cd : ndarray of shape (N, M)
        (Centred) landmark columns of the three kernels, same landmarks.
    Wx, Wy, Wd : ndarray of shape (M, M)
        Landmark blocks; :math:`\tilde W = W^+` (rank-k pseudo-inverse of eq. (14)).
    eps : float
    m : int
    omega_ridge : bool
        Keep the :math:`+N\varepsilon I_M` inside the first inverse of Ω (eq. (18) as
        printed). Without it the spectrum equals eq. (12) on the Nyström kernels.

    Returns
    -------
    gammas : ndarray of shape (m,)
        Largest real eigenvalues Δ.
    projection : ndarray of shape (M, m)
        :math:`\tilde W_x S_{xx} V \Theta`, so that :math:`z(x) = \tilde{\mathcal B}^\top
        \tilde k_x = c(x)^\top \tilde W_x S_{xx} V\Theta` with the Nyström
        :math:`\tilde k_x = C_x \tilde W_x c(x)`.
    """
    N, M = Cx.shape
    c = N * eps
    I = np.eye(M)

    def pinv(W):
        P = pinv_sqrt(W, pinv_tol)
        return P @ P.T

    Wx_, Wy_, Wd_ = pinv(Wx), pinv(Wy), pinv(Wd)
    S = {
        key: A.T @ B
        for key, (A, B) in {
            "xx": (Cx, Cx),
            "xy": (Cx, Cy),
            "yy": (Cy, Cy),
            "xd": (Cx, Cd),
            "dd": (Cd, Cd),
        }.items()
    }
    S["yx"], S["dx"] = S["xy"].T, S["xd"].T
    x_term = Wx_ @ S["xx"] @ Wx_
    denominator = (
        Wx_ @ S["xd"] @ Wd_ @ linalg.solve(S["dd"] @ Wd_ + c * I, S["dx"]) @ x_term @ S["xx"]
        + x_term @ S["xx"]
        + (c * I if omega_ridge else 0.0)
    )
    numerator = Wx_ @ S["xy"] @ Wy_ @ linalg.solve(S["yy"] @ Wy_ + c * I, S["yx"]) @ x_term
    numerator = numerator + x_term
    Omega = linalg.solve(denominator, numerator)  # eq. (18)
    _, V = linalg.eigh(S["xx"])  # S_xx = V Λ² Vᵀ (eq. 19–20)
    values, Theta = linalg.eig(V.T @ Omega @ V @ V.T @ S["xx"] @ V)  # eq. (21)
    values, Theta = informative_top(values.real, Theta.real, m)
    return values, Wx_ @ S["xx"] @ V @ Theta
