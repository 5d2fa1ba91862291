r"""Divide-and-conquer kernel ridge regression with bootstrap confidence bands.

Avanesov, *Uncertainty quantification for distributed regression* (arXiv:2105.11425):

* **Distributed KRR** (eqs. (3)–(4), (14)). The sample is split into :math:`P` disjoint
  partitions of :math:`n \approx N/P` points; partition :math:`p` fits kernel ridge regression
  :math:`\hat f_p = \arg\max_f -\frac{1}{2n}\sum_i (y_i - f(X_i))^2 - \frac{\rho}{2}\lVert
  f\rVert_{\mathcal H}^2`, i.e. :math:`\hat f_p(x) = k(x, X_p)\,\alpha_p` with
  :math:`(K_p + n\rho I)\,\alpha_p = y_p`, and the estimator is the average
  :math:`\bar f = P^{-1}\sum_p \hat f_p` (eq. (4)).
* **Bootstrap bands** (eqs. (7)–(11)): the replicates in
  :mod:`krepro.distributed.bootstrap`, the band with one tail index in
  :mod:`krepro.distributed.bands`; :meth:`DistributedKernelRidge.predict_band` and
  :func:`bootstrap_band` (re-exported here) combine them.

Fast path of the coverage study:

* :func:`local_predictions_nested` fits the distributed KRR for several nested partitionings
  of one 1-D sample (P a multiple of the smallest P). By default every local system is
  solved in O(n) through the state-space form of the Matérn kernel
  (:mod:`krepro.distributed.matern_krr`); ``solver="dense"`` keeps the O(n^3) path (the
  kernel blocks of the coarsest partition contain all finer blocks on their diagonals,
  LAPACK ``dpotrf``/``dpotrs`` in place). Float64 throughout: the systems have condition numbers
  ~1e7.
"""

from __future__ import annotations

import itertools
import numbers
from typing import ClassVar

import numpy as np

# Imported at module level on purpose: SciPy's BLAS is then loaded before a caller caps
# thread pools with threadpoolctl, so the cap applies to it too.
from scipy import linalg
from scipy.linalg import lapack
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from krepro.distributed.bands import NestedBands, select_bands
from krepro.distributed.bootstrap import (
    BootstrapBand,
    bootstrap_band,
    bootstrap_counts,
    bootstrap_deviations,
)
from krepro.distributed.matern_krr import (
    matern_partition_predictions,
    positions_are_representable,
)
from krepro.kernels import KERNELS, gram, kernel_params
from krepro.matern import matern_1d
from krepro.validation import POSITIVE_FINITE, check_kernel_params, diagonal_load, validate_data

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

_MATERN_DEFAULTS = {"nu": 3.5, "length_scale": 1.0}
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


def _check_rho(rho):
    if not isinstance(rho, numbers.Real) or not np.isfinite(rho) or rho <= 0:
        raise ValueError(f"rho must be a positive finite number, got {rho!r}.")
    return float(rho)


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
        Number of partitions :math:`P` (at least 1; :meth:`predict_band` needs 2).
    rho : float, default=1e-3
        Penalty :math:`\rho > 0` of eq. (14); the local diagonal load is :math:`n_p\rho`.
    kernel : {"matern", "rbf", "linear", "poly", "polynomial", "delta"}, default="matern"
        Kernel, evaluated by :func:`krepro.kernels.gram`.
    gamma, degree, coef0 : float, int, float
        Parameters of the rbf and polynomial kernels (scikit-learn's names); ``gamma`` finite
        and > 0, ``degree >= 1``, ``coef0`` finite.
    kernel_params : dict, default=None
        Further kernel parameters, finite numbers; for ``"matern"`` ``nu`` (default 3.5, the
        paper's :math:`\nu = 7/2`) and ``length_scale`` (default 1.0, > 0).

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
    V. Avanesov. Uncertainty quantification for distributed regression. arXiv:2105.11425.
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

    _parameter_constraints: ClassVar[dict] = {
        "n_partitions": [Interval(numbers.Integral, 1, None, closed="left")],
        "rho": [POSITIVE_FINITE],
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [POSITIVE_FINITE, None],
        "degree": [Interval(numbers.Integral, 1, None, closed="left")],
        "coef0": [Interval(numbers.Real, None, None, closed="neither")],
        "kernel_params": [dict, None],
    }

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
        extra = check_kernel_params(self.kernel_params)
        params = kernel_params(self.kernel, self.gamma, self.degree, self.coef0, extra)
        if self.kernel == "matern":
            params = {**_MATERN_DEFAULTS, **params}
        return params

    def _gram(self, X, Y=None):
        return gram(X, Y, kernel=self.kernel, **self._kernel_params())

    @_fit_context(prefer_skip_nested_validation=True)
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
            system[np.diag_indices_from(system)] += diagonal_load(stop - start, rho, "rho")
            try:
                factor = linalg.cho_factor(system, lower=True, overwrite_a=True)
            except linalg.LinAlgError as error:
                raise ValueError(
                    f"The local system of rows {start}:{stop} is not positive definite in"
                    f" floating point (rho = {rho:g}); increase rho, or check the kernel on X"
                    f" (the scale of X, coef0 >= 0 for 'poly')."
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


def local_predictions_nested(
    x, y, x_targets, partitions, rho, *, nu=3.5, length_scale=1.0, solver="statespace"
):
    r"""Local predictions of distributed KRR for several nested partitionings of one sample.

    For every ``P`` in ``partitions``, the same as
    ``DistributedKernelRidge(n_partitions=P, rho=rho, kernel="matern",
    kernel_params={"nu": nu, "length_scale": length_scale}).fit(x[:, None], y)
    .predict_local(x_targets[:, None])`` (tested), at a fraction of the cost.

    ``solver="statespace"`` (default): the half-integer Matérn kernel is the covariance of a
    linear state-space model, so every local system is solved and predicted in
    :math:`O(n + T)` by :func:`krepro.distributed.matern_krr.matern_partition_predictions`,
    all blocks of all partitionings at once (as accurate as the dense solve or better,
    tested). At extreme scales, where the scaled positions :math:`\sqrt{2\nu}x/\ell` or the
    gaps between them overflow float64 (inputs near 1e300, a length scale near 1e-308), it
    falls back to ``solver="dense"``, whose kernel blocks are finite at any scale.

    ``solver="dense"``: the Matérn blocks of the coarsest partition are computed once (upper
    triangles only) and contain the blocks of every finer partition on their diagonals; the
    cross-kernel block to the targets is shared too; the local systems are solved by LAPACK
    ``dpotrf``/``dpotrs`` in place (:math:`O(n^3)` per block).

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
    solver : {"statespace", "dense"}, default="statespace"

    Returns
    -------
    local_predictions : dict
        ``{P: ndarray of shape (P, T)}`` (with ``"statespace"``: views of one array).
    """
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    targets = np.asarray(x_targets, dtype=float).ravel()
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length: {len(x)} and {len(y)}.")
    rho = _check_rho(rho)
    n_samples = len(x)
    partitions = _check_nested_partitions(n_samples, partitions)
    if solver == "statespace" and not positions_are_representable(
        x, targets, nu=nu, length_scale=length_scale
    ):
        solver = "dense"  # extreme scales: the gaps overflow float64, the dense path does not
    if solver == "statespace":
        noise = [n_samples // p * rho for p in partitions]
        predictions = matern_partition_predictions(
            x, y, targets, partitions, noise, nu=nu, length_scale=length_scale
        )
        return dict(zip(partitions, predictions, strict=True))
    if solver != "dense":
        raise ValueError(f"solver must be 'statespace' or 'dense', got {solver!r}.")
    return _local_predictions_dense(x, y, targets, partitions, rho, nu, length_scale)


def _local_predictions_dense(x, y, targets, partitions, rho, nu, length_scale):
    """The ``solver="dense"`` path of :func:`local_predictions_nested`."""
    n_samples, n_targets = len(x), len(targets)
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
