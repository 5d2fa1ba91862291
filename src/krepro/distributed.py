r"""Divide-and-conquer kernel ridge regression with bootstrap confidence bands.

Avanesov, *Uncertainty quantification for distributed regression* (arXiv:2105.11425):

* **Distributed KRR** (eqs. (3)–(4), (14)). The sample is split into :math:`P` disjoint
  partitions of :math:`n \approx N/P` points; partition :math:`p` fits kernel ridge regression
  :math:`\hat f_p = \arg\max_f -\frac{1}{2n}\sum_i (y_i - f(X_i))^2 - \frac{\rho}{2}\lVert
  f\rVert_{\mathcal H}^2`, i.e. :math:`\hat f_p(x) = k(x, X_p)\,\alpha_p` with
  :math:`(K_p + n\rho I)\,\alpha_p = y_p`, and the estimator is the average
  :math:`\bar f = P^{-1}\sum_p \hat f_p` (eq. (4)).
* **Bootstrap bands** (eqs. (8)–(11)). The :math:`P` local prediction vectors
  :math:`\hat{\mathsf f}_p \in \mathbb R^T` are resampled with replacement :math:`P` times and
  averaged, :math:`\bar{\mathsf f}^\flat_b`, for :math:`b = 1..B`. The band uses one tail
  index :math:`i` for all components: :math:`L_t = v_t(i)`, :math:`U_t = v_t(B-1-i)` with
  :math:`v_t(0) \le \dots \le v_t(B-1)` the sorted :math:`\bar{\mathsf f}^\flat_{b,t}`, so every
  component has the same bootstrap tail probability (eq. (11)); :math:`i` is the largest
  index whose joint bootstrap coverage :math:`B^{-1}\#\{b: L < \bar{\mathsf f}^\flat_b < U\}`
  (strict, all :math:`t`) still exceeds the level, found as in the authors' code: stop at the
  first :math:`i` with coverage :math:`\le` level and return :math:`\max(0, i - 1)`.
  Two bands come out of the same bootstrap: the *percentile* band :math:`(L, U)` (what the
  authors' code checks) and the *basic* band of eqs. (7)/(10),
  :math:`l^\flat < \bar{\mathsf f} - \mathsf f^* < u^\flat` with
  :math:`l^\flat = L - \bar{\mathsf f}`, :math:`u^\flat = U - \bar{\mathsf f}`, i.e.
  :math:`(2\bar{\mathsf f} - U, 2\bar{\mathsf f} - L)`.

Fast paths (the coverage study):

* :func:`bootstrap_deviations` draws the multinomial resampling counts :math:`W` (uniform
  index draws, counted) and computes all replicates as one matrix product
  :math:`W (F - \bar F) / P`.
* :func:`select_bands` finds the tail index without a loop over :math:`i` or :math:`b`: with
  the depth :math:`d_{b,t} = \min(\#\{b': v_{b',t} < v_{b,t}\}, \#\{b': v_{b',t} > v_{b,t}\})`
  of replicate :math:`b` in component :math:`t` and :math:`m_b = \min_t d_{b,t}`, replicate
  :math:`b` lies strictly inside band :math:`i` iff :math:`m_b > i`; the loop's stopping index
  is an order statistic of :math:`m`. Only the :math:`\lceil k/2\rceil` most extreme replicates
  per component matter (:math:`k` = replicates allowed outside), found by partial sorting;
  nested prefixes :math:`T_1 < T_2 < \dots` of the components share the work (prefix minima).
* :func:`local_predictions_nested` fits the distributed KRR for several nested partitionings
  of one 1-D sample (P a multiple of the smallest P): the kernel blocks of the coarsest
  partition contain all finer blocks on their diagonals, and each local system is solved with
  LAPACK ``dpotrf``/``dpotrs`` in place (float64: the systems have condition numbers ~1e7).
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass

import numpy as np

# Imported at module level on purpose: SciPy's BLAS is then loaded before a caller caps
# thread pools with threadpoolctl, so the cap applies to it too.
from scipy import linalg
from scipy.linalg import lapack
from scipy.special import ndtri
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from krepro.kernels import MATERN_ORDERS, gram, kernel_params

__all__ = [
    "BootstrapBand",
    "DistributedKernelRidge",
    "NestedBands",
    "bootstrap_band",
    "bootstrap_counts",
    "bootstrap_deviations",
    "local_predictions_nested",
    "matern_1d",
    "partition_bounds",
    "select_bands",
]

# Closed-form Matérn kernels k(r) = exp(-a) * sum_j c_j a^j, a = sqrt(2 nu) r / length_scale
# (Rasmussen & Williams eq. 4.16); the same formulas as krepro.kernels, in Horner form.
_MATERN_POLYNOMIAL = {
    0.5: (1.0,),
    1.5: (1.0, 1.0),
    2.5: (1.0, 1.0, 1.0 / 3.0),
    3.5: (1.0, 1.0, 2.0 / 5.0, 1.0 / 15.0),
}
_MATERN_DEFAULTS = {"nu": 3.5, "length_scale": 1.0}
# Rows of kernel entries evaluated per numpy call: small enough that the temporaries stay in
# the L2 cache (64 × 1024 float64 = 512 KiB), large enough to amortise the call overhead.
_KERNEL_CHUNK_ROWS = 64
# Resamples whose counts are drawn and multiplied at once (bounds the memory of the counts:
# 1000 × 4096 int64 = 33 MB). Fixed, so the random stream is consumed the same way always.
_COUNT_CHUNK = 1000
# Entries of a cross-kernel block evaluated at once in predict (32 MiB of float64).
_PREDICT_CHUNK_ENTRIES = 1 << 22


# --------------------------------------------------------------------------- helpers


def partition_bounds(n_samples, n_partitions):
    """Boundaries of ``n_partitions`` contiguous blocks of ``range(n_samples)``.

    Block ``p`` is ``range(bounds[p], bounds[p + 1])``; sizes differ by at most one (all equal
    to ``n_samples / n_partitions`` when it divides, as in the paper).
    """
    if not isinstance(n_partitions, numbers.Integral) or n_partitions < 1:
        raise ValueError(f"n_partitions must be a positive integer, got {n_partitions!r}.")
    if n_partitions > n_samples:
        raise ValueError(
            f"n_partitions = {n_partitions} partitions need at least as many samples, got"
            f" n_samples = {n_samples}."
        )
    return (np.arange(n_partitions + 1, dtype=np.int64) * n_samples) // n_partitions


def _generator(random_state):
    """A numpy Generator from None, an int, a SeedSequence, a Generator or a RandomState."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1, size=4))
    return np.random.default_rng(random_state)


def _check_level(confidence_level):
    if not 0.0 < float(confidence_level) < 1.0:
        raise ValueError(f"confidence_level must lie in (0, 1), got {confidence_level!r}.")
    return float(confidence_level)


def _check_rho(rho):
    if not isinstance(rho, numbers.Real) or not np.isfinite(rho) or rho <= 0:
        raise ValueError(f"rho must be a positive finite number, got {rho!r}.")
    return float(rho)


def _matern_coefficients(nu, length_scale):
    if float(nu) not in _MATERN_POLYNOMIAL:
        raise ValueError(f"Matérn order nu must be one of {MATERN_ORDERS}, got {nu!r}.")
    if not float(length_scale) > 0:
        raise ValueError(f"length_scale must be positive, got {length_scale!r}.")
    return _MATERN_POLYNOMIAL[float(nu)], np.sqrt(2.0 * float(nu)) / float(length_scale)


def _matern_rows(a, coefficients, target, work, poly):
    """``target = k(a)`` for scaled distances ``a >= 0``; ``work`` and ``poly`` are scratch."""
    np.negative(a, out=work)
    np.exp(work, out=work)
    if len(coefficients) == 1:
        np.copyto(target, work)
        return
    # Horner: p = c_d a; p = (p + c_j) a for j = d-1..1; p + c_0.
    *lower, top = coefficients
    np.multiply(a, top, out=poly)
    for c in reversed(lower[1:]):
        poly += c
        poly *= a
    poly += lower[0]
    np.multiply(poly, work, out=target)


def matern_1d(x, y=None, *, nu=3.5, length_scale=1.0, upper=False, out=None):
    r"""Matérn kernel matrix of 1-D points, evaluated in cache-sized chunks.

    Equals ``krepro.kernels.gram(x[:, None], y[:, None], "matern", nu=nu,
    length_scale=length_scale)`` (tested), without the distance matrix and its temporaries.

    Parameters
    ----------
    x : array-like of shape (n,)
    y : array-like of shape (m,), default=None
        ``None`` means ``y = x``.
    nu : {0.5, 1.5, 2.5, 3.5}, default=3.5
    length_scale : float, default=1.0
    upper : bool, default=False
        With ``y = None``: compute only what the upper triangle ``j >= i`` needs (what a
        Cholesky factorisation of the symmetric matrix reads), about half the entries; the
        entries below the diagonal are then partly left as they were.
    out : ndarray of shape (n, m), C-contiguous float64, default=None

    Returns
    -------
    K : ndarray of shape (n, m)
    """
    coefficients, scale = _matern_coefficients(nu, length_scale)
    xs = np.asarray(x, dtype=float).ravel() * scale
    symmetric = y is None
    ys = xs if symmetric else np.asarray(y, dtype=float).ravel() * scale
    if upper and not symmetric:
        raise ValueError("upper=True needs y = None (a symmetric matrix).")
    n, m = len(xs), len(ys)
    if out is None:
        out = np.empty((n, m))
    elif out.shape != (n, m) or out.dtype != np.float64 or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous float64 array of shape {(n, m)}.")
    rows = _KERNEL_CHUNK_ROWS
    buffers = np.empty((3, rows * m))
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        first = start if upper else 0
        shape = (stop - start, m - first)
        # Contiguous scratch views (slices of a wider buffer would be strided and slower).
        a, work, poly = (buffer[: shape[0] * shape[1]].reshape(shape) for buffer in buffers)
        np.subtract(xs[start:stop, None], ys[None, first:], out=a)
        np.abs(a, out=a)
        _matern_rows(a, coefficients, out[start:stop, first:], work, poly)
    return out


# --------------------------------------------------------------------------- estimator


class DistributedKernelRidge(RegressorMixin, BaseEstimator):
    r"""Divide-and-conquer kernel ridge regression (Fast-KRR), eqs. (3), (4) and (14).

    The rows are split into ``n_partitions`` contiguous blocks (sizes differ by at most one;
    shuffle the data first if their order is not random). Block :math:`p` with
    :math:`n_p` points solves :math:`(K_p + n_p\rho I)\alpha_p = y_p` (eq. (14): penalty
    :math:`\rho` on the RKHS norm, squared loss averaged over the block), and the prediction
    is the average of the local predictions, :math:`\bar f(x) = P^{-1}\sum_p k(x,X_p)\alpha_p`.
    With one partition this is :class:`sklearn.kernel_ridge.KernelRidge` with
    ``alpha = n_samples * rho``.

    Parameters
    ----------
    n_partitions : int, default=8
        Number of partitions :math:`P`.
    rho : float, default=1e-3
        Penalty :math:`\rho` of eq. (14); the local diagonal load is :math:`n_p\rho`.
    kernel : {"matern", "rbf", "linear", "poly", "polynomial", "delta"}, default="matern"
        Kernel, evaluated by :func:`krepro.kernels.gram`.
    gamma, degree, coef0 : float, int, float
        Parameters of the rbf and polynomial kernels (scikit-learn's names).
    kernel_params : dict, default=None
        Further kernel parameters; for ``"matern"`` ``nu`` (default 3.5, the paper's
        :math:`\nu = 7/2`) and ``length_scale`` (default 1.0).

    Attributes
    ----------
    X_fit_ : ndarray of shape (n_samples, n_features)
    dual_coef_ : ndarray of shape (n_samples,)
        The local :math:`\alpha_p`, concatenated in block order.
    partition_bounds_ : ndarray of shape (n_partitions + 1,)
        Block :math:`p` is rows ``partition_bounds_[p]:partition_bounds_[p + 1]``.
    n_features_in_ : int

    References
    ----------
    G. Avanesov. Uncertainty quantification for distributed regression. arXiv:2105.11425.
    Y. Zhang, J. Duchi and M. Wainwright. Divide and conquer kernel ridge regression. JMLR
    16, 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.distributed import DistributedKernelRidge
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(4096, 1)); y = np.sin(2 * np.pi * X[:, 0]) + rng.normal(size=4096)
    >>> model = DistributedKernelRidge(n_partitions=16, rho=1e-6).fit(X, y)
    >>> model.predict_local([[0.25], [0.75]]).shape
    (16, 2)
    >>> band = model.predict_band([[0.25], [0.75]], n_resamples=2000, random_state=0)
    >>> bool(np.all(band.lower < band.upper))
    True
    """

    def __init__(
        self,
        n_partitions=8,
        rho=1e-3,
        kernel="matern",
        gamma=None,
        degree=3,
        coef0=1.0,
        kernel_params=None,
    ):
        self.n_partitions = n_partitions
        self.rho = rho
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Averaging P fits on N/P points each is (by design) poor on scikit-learn's tiny
        # 10-feature check data set at the default P = 8.
        tags.regressor_tags.poor_score = True
        return tags

    def _kernel_params(self):
        params = kernel_params(self.kernel, self.gamma, self.degree, self.coef0, self.kernel_params)
        if self.kernel == "matern":
            params = {**_MATERN_DEFAULTS, **params}
        return params

    def _gram(self, X, Y=None):
        return gram(X, Y, kernel=self.kernel, **self._kernel_params())

    def fit(self, X, y):
        """Fit one kernel ridge regression per partition.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : DistributedKernelRidge
        """
        X, y = validate_data(self, X, y, dtype=float, y_numeric=True)
        rho = _check_rho(self.rho)
        bounds = partition_bounds(X.shape[0], self.n_partitions)
        dual_coef = np.empty(X.shape[0])
        for start, stop in itertools.pairwise(bounds):
            system = self._gram(X[start:stop])
            system[np.diag_indices_from(system)] += (stop - start) * rho
            try:
                factor = linalg.cho_factor(system, lower=True, overwrite_a=True)
            except linalg.LinAlgError as error:
                raise ValueError(
                    f"The local system of rows {start}:{stop} is not positive definite in"
                    f" floating point (rho = {rho:g}); increase rho."
                ) from error
            dual_coef[start:stop] = linalg.cho_solve(factor, y[start:stop])
        self.X_fit_ = X
        self.dual_coef_ = dual_coef
        self.partition_bounds_ = bounds
        return self

    def _cross_chunks(self, X):
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, dtype=float, reset=False)
        rows = max(1, _PREDICT_CHUNK_ENTRIES // max(1, self.X_fit_.shape[0]))
        for start in range(0, X.shape[0], rows):
            yield start, self._gram(X[start : start + rows], self.X_fit_)

    def predict_local(self, X):
        r"""The local predictions :math:`\hat f_p(x)` of every partition (eq. (5)).

        Parameters
        ----------
        X : array-like of shape (n_points, n_features)

        Returns
        -------
        local_predictions : ndarray of shape (n_partitions, n_points)
            Row :math:`p` is :math:`\hat{\mathsf f}_p`; their mean over rows is
            :meth:`predict`. Pass it to :func:`bootstrap_band`.
        """
        chunks = [
            np.add.reduceat(cross * self.dual_coef_, self.partition_bounds_[:-1], axis=1).T
            for _, cross in self._cross_chunks(X)
        ]
        if not chunks:
            return np.empty((len(self.partition_bounds_) - 1, 0))
        return np.concatenate(chunks, axis=1)

    def predict(self, X):
        r"""The averaged prediction :math:`\bar f(x) = P^{-1}\sum_p \hat f_p(x)` (eq. (4)).

        Parameters
        ----------
        X : array-like of shape (n_points, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_points,)
        """
        n_partitions = len(self.partition_bounds_) - 1 if hasattr(self, "dual_coef_") else 1
        parts = [cross @ self.dual_coef_ for _, cross in self._cross_chunks(X)]
        prediction = np.concatenate(parts) if parts else np.empty(0)
        return prediction / n_partitions

    def predict_band(self, X, confidence_level=0.95, n_resamples=5000, random_state=None):
        """Bootstrap confidence band of the averaged prediction at ``X`` (eqs. (8)–(11)).

        Equivalent to ``bootstrap_band(self.predict_local(X), ...)``.

        Returns
        -------
        band : BootstrapBand
        """
        return bootstrap_band(
            self.predict_local(X),
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            random_state=random_state,
        )


# --------------------------------------------------------------------------- bootstrap


def bootstrap_counts(rng, n_resamples, n_partitions):
    """Resampling counts of eq. (8): row b counts how often each partition is drawn.

    Each row is ``n_partitions`` uniform draws with replacement from
    ``range(n_partitions)``, counted, i.e. Multinomial(P, 1/P, ..., 1/P). For a power of two
    ``P <= 2**16`` the draws are the low bits of 16-bit pieces of the generator's raw 64-bit
    output (exactly uniform, twice as fast as ``rng.integers``); otherwise
    ``rng.integers``.

    Parameters
    ----------
    rng : numpy.random.Generator
    n_resamples, n_partitions : int

    Returns
    -------
    counts : ndarray of shape (n_resamples, n_partitions), int64
        Rows sum to ``n_partitions``.
    """
    size = n_resamples * n_partitions
    offsets = (np.arange(n_resamples, dtype=np.int64) * n_partitions)[:, None]
    if n_partitions & (n_partitions - 1) == 0 and n_partitions <= 1 << 16:
        words = rng.bit_generator.random_raw(-(-size // 4))
        draws = words.view(np.uint16)[:size].reshape(n_resamples, n_partitions)
        flat = np.add(draws & np.uint16(n_partitions - 1), offsets)
    else:
        flat = rng.integers(0, n_partitions, size=(n_resamples, n_partitions)) + offsets
    return np.bincount(flat.ravel(), minlength=size).reshape(n_resamples, n_partitions)


def _check_local_predictions(local_predictions):
    local = np.asarray(local_predictions, dtype=float)
    if local.ndim == 1:
        local = local[:, None]
    if local.ndim != 2 or local.shape[0] < 1 or local.shape[1] < 1:
        raise ValueError(
            "local_predictions must have shape (n_partitions, n_points), got"
            f" {np.shape(local_predictions)}."
        )
    if not np.all(np.isfinite(local)):
        raise ValueError("local_predictions contain NaN or infinite values.")
    return local


def _low_rank(centred, tolerance):
    """Factors ``(Q, R)`` with ``centred ≈ Q @ R``, or None when that would not pay.

    Randomised range finder with a fixed test matrix (so results are deterministic): Q is an
    orthonormal basis of ``centred @ Omega`` and R = Qᵀ·centred; the rank is the smallest
    prefix of Q whose residual is at most ``tolerance`` times the norm of every column
    (verified explicitly). Smooth local prediction curves make the (P, T) matrix
    numerically low-rank: about 60 of 512 at 1e-8 in the coverage study.
    """
    n_rows, n_cols = centred.shape
    # A rank-k product costs k (P + T) per resample against P T for the full one.
    k_max = min(_LOW_RANK_MAX, n_cols, int(0.5 * n_rows * n_cols / (n_rows + n_cols)))
    if k_max < 8:
        return None
    omega = _test_matrix(n_cols, k_max)
    basis, _ = np.linalg.qr(centred @ omega)
    coefficients = basis.T @ centred
    # Energy left beyond each prefix rank, per column (tail sums: no cancellation); the
    # chosen rank is then checked directly.
    column_norms = np.einsum("ij,ij->j", centred, centred)
    tail = np.cumsum((coefficients**2)[::-1], axis=0)[::-1]  # tail[r] = sum over rows >= r
    leftover = tail / np.maximum(column_norms, 1e-300)
    good = np.flatnonzero(np.all(leftover <= (0.5 * tolerance) ** 2, axis=1))
    if len(good) == 0 or good[0] == 0:
        return None
    rank = int(good[0])  # rows 0..rank-1 are kept; the energy of rows >= rank is small
    left, right = basis[:, :rank], coefficients[:rank]
    residual = centred - left @ right
    error = np.sqrt(np.einsum("ij,ij->j", residual, residual) / np.maximum(column_norms, 1e-300))
    if np.any(error > tolerance):
        return None
    return left, right


_LOW_RANK_MAX = 96
_TEST_MATRICES = {}


def _test_matrix(n_cols, k):
    if (n_cols, k) not in _TEST_MATRICES:
        _TEST_MATRICES[n_cols, k] = np.random.default_rng(0).standard_normal((n_cols, k))
    return _TEST_MATRICES[n_cols, k]


def bootstrap_deviations(
    local_predictions, n_resamples=5000, random_state=None, dtype=None, rank_tolerance=None
):
    r"""Bootstrap replicates :math:`\bar{\mathsf f}^\flat_b - \bar{\mathsf f}` (eqs. (8)–(9)).

    Computed as one matrix product per chunk of resamples,
    :math:`(W (F - \bar F) / P)^\top` with :math:`W` the counts of :func:`bootstrap_counts`
    (the counts sum to :math:`P`, so centring :math:`F` first changes nothing but rounding).

    Parameters
    ----------
    local_predictions : array-like of shape (n_partitions, n_points)
        The local prediction vectors :math:`\hat{\mathsf f}_p` as rows.
    n_resamples : int, default=5000
        :math:`B`.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
    dtype : {None, numpy.float64, numpy.float32}, default=None
        Precision of the product (``None``: float64). float32 halves the cost; the counts
        are exact in it and the centred predictions lose ~1e-7 relative, far below the
        spread of the replicates.
    rank_tolerance : float, default=None
        If given, multiply through a low-rank factorisation :math:`F - \bar F \approx QR`
        whose residual is at most ``rank_tolerance`` times the norm of each column of
        :math:`F - \bar F` (checked; the full product is used when no such factorisation of
        rank below :math:`PT/(2(P+T))` is found). Each replicate then moves by about that
        fraction of the bootstrap spread of its component. ``None``: exact product.

    Returns
    -------
    deviations : ndarray of shape (n_points, n_resamples)
        Components in rows (the layout :func:`select_bands` works on).
    """
    local = _check_local_predictions(local_predictions)
    if not isinstance(n_resamples, numbers.Integral) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}.")
    dtype = np.dtype(np.float64 if dtype is None else dtype)
    rng = _generator(random_state)
    n_partitions, n_points = local.shape
    centred = local - local.mean(axis=0)
    factors = None if rank_tolerance is None else _low_rank(centred, float(rank_tolerance))
    if factors is None:
        left_t, right_t = np.ascontiguousarray(centred.T, dtype=dtype), None
    else:
        left_t = np.ascontiguousarray(factors[0].T, dtype=dtype)
        right_t = np.ascontiguousarray(factors[1].T, dtype=dtype)
    deviations = np.empty((n_points, n_resamples), dtype=dtype)
    for start in range(0, n_resamples, _COUNT_CHUNK):
        stop = min(start + _COUNT_CHUNK, n_resamples)
        counts = bootstrap_counts(rng, stop - start, n_partitions).astype(dtype)
        product = left_t @ counts.T
        deviations[:, start:stop] = product if right_t is None else right_t @ product
    deviations *= dtype.type(1.0 / n_partitions)
    return deviations


def _max_inside(confidence_level, n_resamples):
    """Largest count j of replicates inside a band with j / B <= level (the loop's test)."""
    j = int(np.floor(confidence_level * n_resamples))
    while j + 1 <= n_resamples and (j + 1) / n_resamples <= confidence_level:
        j += 1
    while j >= 0 and j / n_resamples > confidence_level:
        j -= 1
    return j


def _run_starts(sorted_values):
    """Per row of a sorted array: index of the first entry equal to each entry.

    For ascending rows this is the number of strictly smaller entries of the row (within the
    sorted part); for descending rows the number of strictly larger ones.
    """
    n = sorted_values.shape[1]
    starts = np.ones(sorted_values.shape, dtype=bool)
    starts[:, 1:] = sorted_values[:, 1:] != sorted_values[:, :-1]
    positions = np.where(starts, np.arange(n, dtype=np.int32), np.int32(0))
    return np.maximum.accumulate(positions, axis=1)


def _depth_dtype(cap):
    return np.int16 if cap < np.iinfo(np.int16).max else np.int32


def _tail_depths_sorted(values, cap):
    """Exact capped depths and tails (ties included) by a full sort of every row."""
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    below = _run_starts(ordered)
    above = _run_starts(ordered[:, ::-1])[:, ::-1]
    depth_sorted = np.minimum(np.minimum(below, above), cap).astype(_depth_dtype(cap))
    depth = np.empty_like(depth_sorted)
    np.put_along_axis(depth, order, depth_sorted, axis=1)
    return depth, ordered[:, :cap], ordered[:, ::-1][:, :cap]


def _tail_candidates(values, mask, cap, sign):
    """Sorted tail of each row among the candidate entries ``mask`` (see :func:`_tail_depths`).

    ``sign = 1`` for the lower tail, ``-1`` for the upper tail (sorted by ``-value``).

    Returns
    -------
    rows, cols, depth : ndarray
        Candidate positions and their number of strictly smaller (``sign = -1``: larger)
        entries in the row.
    tail : ndarray of shape (R, cap)
        ``sign *`` the ``cap`` smallest of ``sign * values`` per row (rows in ``missed``:
        garbage).
    missed : ndarray of bool, shape (R,)
        Rows with fewer than ``cap`` candidates.
    """
    n_rows = values.shape[0]
    rows, cols = np.nonzero(mask)
    counts = np.bincount(rows, minlength=n_rows)
    missed = counts < cap
    if missed.any():
        keep = ~missed[rows]
        rows, cols = rows[keep], cols[keep]
        counts[missed] = 0
    width = max(int(counts.max()), cap)
    position = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    padded = np.full((n_rows, width), np.inf, dtype=values.dtype)
    padded[rows, position] = values[rows, cols] if sign > 0 else -values[rows, cols]
    order = np.argsort(padded, axis=1, kind="stable")
    ordered = np.take_along_axis(padded, order, axis=1)
    # Sorted position of each candidate: invert `order` (the padding sorts last).
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(width)[None, :], axis=1)
    depth = _run_starts(ordered)[rows, rank[rows, position]]
    tail = ordered[:, :cap] if sign > 0 else -ordered[:, :cap]
    return rows, cols, depth, tail, missed


def _tail_depths(values, cap):
    r"""Capped depths :math:`\min(d_{b,t}, \text{cap})` and the ``cap`` extreme order statistics.

    Candidates for each tail are the entries beyond a threshold from a normal approximation
    of the row (about 2·cap + 20 entries expected beyond it). A row with at least ``cap``
    candidates in a tail is exact: every entry smaller than (or tied with) a candidate is a
    candidate itself, so counts among candidates are counts in the row, and entries that are
    not candidates have at least ``cap`` smaller entries. Rows with fewer candidates (a
    distribution far from normal) are redone by a full sort.

    Returns
    -------
    depth : integer array of shape (R, B)
        :math:`\min(\#\{b': v_{b'} < v_b\}, \#\{b': v_{b'} > v_b\}, \text{cap})` per row.
    lower_tail : array of shape (R, cap)
        :math:`v_t(0) \le \dots \le v_t(\text{cap} - 1)`.
    upper_tail : array of shape (R, cap)
        :math:`v_t(B-1) \ge \dots \ge v_t(B - \text{cap})`.
    """
    n_rows, n_resamples = values.shape
    if 2 * cap > n_resamples:
        return _tail_depths_sorted(values, cap)
    mean = values.mean(axis=1)
    centred_square = np.einsum("ij,ij->i", values, values) / n_resamples - mean**2
    spread = ndtri(min(0.5, (2 * cap + 20) / n_resamples)) * np.sqrt(np.maximum(centred_square, 0))
    depth = np.full((n_rows, n_resamples), cap, dtype=_depth_dtype(cap))
    rows, cols, below, lower_tail, missed_low = _tail_candidates(
        values, values < (mean + spread)[:, None], cap, 1
    )
    depth[rows, cols] = np.minimum(below, cap)
    rows, cols, above, upper_tail, missed_high = _tail_candidates(
        values, values > (mean - spread)[:, None], cap, -1
    )
    depth[rows, cols] = np.minimum(depth[rows, cols], above)
    missed = np.flatnonzero(missed_low | missed_high)
    if len(missed):
        depth[missed], lower_tail[missed], upper_tail[missed] = _tail_depths_sorted(
            values[missed], cap
        )
    return depth, lower_tail, upper_tail


@dataclass(frozen=True)
class NestedBands:
    """Bands of eqs. (10)–(11) for nested prefixes ``[:T]`` of the components.

    Attributes
    ----------
    sizes : ndarray of shape (k,)
        Prefix sizes :math:`T_1 < \\dots < T_k`.
    tail_index : ndarray of shape (k,)
        Chosen tail index :math:`i` per prefix (band :math:`v_t(i), v_t(B-1-i)`).
    n_inside : ndarray of shape (k,)
        Replicates strictly inside the chosen band in all components of the prefix.
    n_resamples : int
    lower_tail, upper_tail : ndarray of shape (T, c)
        Smallest and largest order statistics of every component (ascending, descending),
        as far as the prefixes need them (NaN beyond; at least up to the tail index of every
        prefix that contains the component, plus one).
    """

    sizes: np.ndarray
    tail_index: np.ndarray
    n_inside: np.ndarray
    n_resamples: int
    lower_tail: np.ndarray
    upper_tail: np.ndarray

    def band(self, k):
        """(lower, upper) deviation band of prefix ``k``: arrays of shape ``(sizes[k],)``."""
        size, index = int(self.sizes[k]), int(self.tail_index[k])
        return self.lower_tail[:size, index], self.upper_tail[:size, index]

    @property
    def bootstrap_coverage(self):
        """Joint bootstrap coverage of each chosen band."""
        return self.n_inside / self.n_resamples


def select_bands(deviations, confidence_level=0.95, sizes=None):
    r"""Tail index of the band of eqs. (10)–(11), for nested prefixes of the components.

    For prefix size :math:`T`: the smallest :math:`i` whose band
    :math:`(v_t(i), v_t(B-1-i))_{t<T}` holds at most ``confidence_level`` of the replicates
    strictly inside in every component, minus one (at least 0) — the narrowest band whose
    joint bootstrap coverage still exceeds the level, as in the authors' code. No loop over
    :math:`i` or the replicates: replicate :math:`b` is inside band :math:`i` iff
    :math:`m_b = \min_{t<T} d_{b,t} > i` (depth :math:`d`, see the module docstring), so the
    stopping index is the :math:`(B - j)`-th smallest :math:`m_b` with :math:`j` the largest
    count allowed inside. Since one component alone already puts :math:`2(i+1)` replicates at
    depth :math:`\le i`, that index is below :math:`\lceil (B-j)/2\rceil`, and only that many
    extreme order statistics per component are needed. Ties are handled exactly.

    Parameters
    ----------
    deviations : array-like of shape (T, B)
        Bootstrap replicates (components in rows), e.g. from :func:`bootstrap_deviations`;
        any per-row shift (such as adding :math:`\bar{\mathsf f}`) gives the same indices.
    confidence_level : float, default=0.95
        Joint bootstrap coverage :math:`1-\alpha` to exceed.
    sizes : sequence of int, default=None
        Increasing prefix sizes (``None``: all ``T`` components).

    Returns
    -------
    bands : NestedBands
    """
    level = _check_level(confidence_level)
    deviations = np.asarray(deviations)
    if deviations.ndim == 1:
        deviations = deviations[None, :]
    if deviations.ndim != 2 or deviations.size == 0:
        raise ValueError(f"deviations must have shape (T, B), got {deviations.shape}.")
    if not np.all(np.isfinite(deviations)):
        raise ValueError("deviations contain NaN or infinite values.")
    n_rows, n_resamples = deviations.shape
    sizes = np.array([n_rows] if sizes is None else sizes, dtype=np.int64)
    if sizes.ndim != 1 or len(sizes) == 0 or np.any(np.diff(sizes) <= 0):
        raise ValueError(f"sizes must be strictly increasing, got {sizes.tolist()}.")
    if sizes[0] < 1 or sizes[-1] > n_rows:
        raise ValueError(f"sizes must lie in [1, {n_rows}], got {sizes.tolist()}.")
    n_outside = n_resamples - _max_inside(level, n_resamples)  # >= 1 since level < 1
    # The stopping index is below ceil(n_outside / 2) (one component alone has 2(i+1)
    # replicates at depth <= i), so depths can be capped there. A later prefix cannot stop
    # later than an earlier one (its minima are smaller), so its new rows need depths only
    # up to the previous stopping index: cap = previous stop + 1.
    cap = -(-n_outside // 2)
    total = int(sizes[-1])
    lower_tail = np.full((total, cap), np.nan, dtype=deviations.dtype)
    upper_tail = np.full((total, cap), np.nan, dtype=deviations.dtype)
    tail_index, n_inside = [], []
    minimum, done = None, 0
    for size in sizes:
        depth, low, high = _tail_depths(deviations[done:size], cap)
        lower_tail[done:size, :cap], upper_tail[done:size, :cap] = low, high
        block = depth.min(axis=0)
        minimum = block if minimum is None else np.minimum(minimum, block)
        done = size
        stop = int(np.partition(minimum, n_outside - 1)[n_outside - 1])
        index = max(0, stop - 1)
        tail_index.append(index)
        n_inside.append(int(np.count_nonzero(minimum > index)))
        cap = stop + 1
    return NestedBands(
        sizes=sizes,
        tail_index=np.array(tail_index, dtype=np.int64),
        n_inside=np.array(n_inside, dtype=np.int64),
        n_resamples=n_resamples,
        lower_tail=lower_tail,
        upper_tail=upper_tail,
    )


@dataclass(frozen=True)
class BootstrapBand:
    r"""A simultaneous bootstrap confidence band for :math:`\mathsf f^*` (eqs. (7)–(11)).

    Attributes
    ----------
    estimate : ndarray of shape (T,)
        :math:`\bar{\mathsf f}`, the averaged prediction (eq. (6)).
    lower, upper : ndarray of shape (T,)
        Percentile band :math:`(L, U)`: the order statistics :math:`v_t(i)` and
        :math:`v_t(B-1-i)` of :math:`\bar{\mathsf f}^\flat_{\cdot,t}` (the authors' code).
    basic_lower, basic_upper : ndarray of shape (T,)
        Basic ("reflected") band of eqs. (7)/(10): :math:`2\bar{\mathsf f} - U`,
        :math:`2\bar{\mathsf f} - L`.
    tail_index : int
        :math:`i`.
    tail_probability : float
        Per component and side, the bootstrap share of replicates not strictly inside,
        :math:`(i + 1)/B` without ties — the :math:`\mathrm c` of eq. (11).
    bootstrap_coverage : float
        Joint bootstrap coverage of the band (share of replicates strictly inside in every
        component); exceeds ``confidence_level`` unless even :math:`i = 0` does not.
    n_resamples : int
    confidence_level : float
    """

    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    basic_lower: np.ndarray
    basic_upper: np.ndarray
    tail_index: int
    tail_probability: float
    bootstrap_coverage: float
    n_resamples: int
    confidence_level: float

    def covers(self, values, kind="percentile"):
        """Whether ``lower < values < upper`` in every component (strict, as in the paper).

        ``kind`` is ``"percentile"`` or ``"basic"``.
        """
        values = np.asarray(values, dtype=float)
        if kind == "percentile":
            lower, upper = self.lower, self.upper
        elif kind == "basic":
            lower, upper = self.basic_lower, self.basic_upper
        else:
            raise ValueError(f"kind must be 'percentile' or 'basic', got {kind!r}.")
        return bool(np.all((lower < values) & (values < upper)))


def bootstrap_band(
    local_predictions, confidence_level=0.95, n_resamples=5000, random_state=None, dtype=None
):
    r"""Bootstrap confidence band from the local predictions (eqs. (8)–(11)).

    Parameters
    ----------
    local_predictions : array-like of shape (n_partitions, T)
        Row :math:`p` is :math:`\hat{\mathsf f}_p`, e.g.
        :meth:`DistributedKernelRidge.predict_local`; a 1-D array is one component.
    confidence_level : float, default=0.95
        Joint bootstrap coverage :math:`1-\alpha` (eq. (10)).
    n_resamples : int, default=5000
        :math:`B`.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
    dtype : {None, numpy.float64, numpy.float32}, default=None
        Precision of the bootstrap product, see :func:`bootstrap_deviations`.

    Returns
    -------
    band : BootstrapBand

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.distributed import bootstrap_band
    >>> local = np.random.default_rng(0).normal(size=(256, 4))
    >>> band = bootstrap_band(local, n_resamples=2000, random_state=1)
    >>> band.bootstrap_coverage > 0.95, band.lower.shape
    (True, (4,))
    """
    local = _check_local_predictions(local_predictions)
    deviations = bootstrap_deviations(local, n_resamples, random_state, dtype)
    bands = select_bands(deviations, confidence_level)
    lower_dev, upper_dev = bands.band(0)
    estimate = local.mean(axis=0)
    index = int(bands.tail_index[0])
    lower_dev, upper_dev = lower_dev.astype(float), upper_dev.astype(float)
    return BootstrapBand(
        estimate=estimate,
        lower=estimate + lower_dev,
        upper=estimate + upper_dev,
        basic_lower=estimate - upper_dev,
        basic_upper=estimate - lower_dev,
        tail_index=index,
        tail_probability=(index + 1) / n_resamples,
        bootstrap_coverage=float(bands.bootstrap_coverage[0]),
        n_resamples=int(n_resamples),
        confidence_level=float(confidence_level),
    )


# --------------------------------------------------------------------------- nested fits


def _check_nested_partitions(n_samples, partitions):
    partitions = sorted({int(p) for p in partitions})
    if not partitions or partitions[0] < 1:
        raise ValueError(f"partitions must be positive integers, got {partitions}.")
    for p in partitions:
        if n_samples % p or p % partitions[0]:
            raise ValueError(
                f"Nested partitions need every P to divide N = {n_samples} and to be a"
                f" multiple of the smallest P = {partitions[0]}; got P = {p}."
            )
    return partitions


def local_predictions_nested(x, y, x_targets, partitions, rho, *, nu=3.5, length_scale=1.0):
    r"""Local predictions of distributed KRR for several nested partitionings of one sample.

    For every ``P`` in ``partitions``, the same as
    ``DistributedKernelRidge(n_partitions=P, rho=rho, kernel="matern",
    kernel_params={"nu": nu, "length_scale": length_scale}).fit(x[:, None], y)
    .predict_local(x_targets[:, None])`` (tested), at a fraction of the cost: the Matérn
    blocks of the coarsest partition are computed once (upper triangles only) and contain the
    blocks of every finer partition on their diagonals; the cross-kernel block to the targets
    is shared too; the local systems are solved by LAPACK ``dpotrf``/``dpotrs`` in place.

    Parameters
    ----------
    x, y : array-like of shape (N,)
        One-dimensional covariates and responses; partitions are contiguous blocks.
    x_targets : array-like of shape (T,)
        Prediction points.
    partitions : sequence of int
        Numbers of partitions; each divides ``N`` and is a multiple of the smallest.
    rho : float
        Penalty of eq. (14) (diagonal load :math:`n\rho`, :math:`n = N/P`).
    nu, length_scale : float
        Matérn kernel.

    Returns
    -------
    local_predictions : dict
        ``{P: ndarray of shape (P, T)}``.
    """
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    targets = np.asarray(x_targets, dtype=float).ravel()
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length: {len(x)} and {len(y)}.")
    rho = _check_rho(rho)
    n_samples, n_targets = len(x), len(targets)
    partitions = _check_nested_partitions(n_samples, partitions)
    coarsest = partitions[0]
    block = n_samples // coarsest
    result = {p: np.empty((p, n_targets)) for p in partitions}
    kernel = np.empty((block, block))
    cross = np.empty((block, n_targets))
    scratch = np.empty(block * block)
    alpha = np.empty(block)
    for q in range(coarsest):
        rows = slice(q * block, (q + 1) * block)
        matern_1d(x[rows], nu=nu, length_scale=length_scale, upper=True, out=kernel)
        matern_1d(x[rows], targets, nu=nu, length_scale=length_scale, out=cross)
        y_block = y[rows]
        # Finest partitions first: the coarsest one factorises `kernel` itself, in place.
        for p in reversed(partitions):
            n = n_samples // p
            per_block = block // n
            for s in range(per_block):
                part = slice(s * n, (s + 1) * n)
                if n == block:
                    system = kernel
                else:
                    system = scratch[: n * n].reshape(n, n)
                    system[...] = kernel[part, part]
                system.flat[:: n + 1] += n * rho
                # The C-order upper triangle is the lower triangle of the F-order transpose.
                factor, info = lapack.dpotrf(system.T, lower=1, overwrite_a=1, clean=0)
                if info != 0:
                    raise np.linalg.LinAlgError(
                        f"Local system (P = {p}, block {q * per_block + s}) is not positive"
                        f" definite in float64 (LAPACK info {info}); increase rho = {rho:g}."
                    )
                alpha[part], info = lapack.dpotrs(factor, y_block[part], lower=1)
            local = alpha.reshape(per_block, 1, n) @ cross.reshape(per_block, n, n_targets)
            result[p][q * per_block : (q + 1) * per_block] = local[:, 0, :]
    return result
