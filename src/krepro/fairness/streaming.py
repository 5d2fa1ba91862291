r"""Linear ridge regression on oblivious features, fitted from blocks of rows in one pass.

For samples too large for the ``n × D`` feature matrix of
:class:`~krepro.fairness.oblivious_features.ObliviousFeatures`, the ridge regression on the
oblivious features :math:`z_i = \tilde\varphi(x_i) - \hat E[\tilde\varphi(X)|S\in A_{a(i)}] +
\hat E[\tilde\varphi(X)]` (paper eq. (9), §6.1, the conditional means by the partition plug-in
estimator on the same rows, as ``ObliviousFeatures.fit_transform``) needs only sums that can
be accumulated block by block. With :math:`\Phi` the features of the rows,
:math:`P_a = \sum_{i\in A_a}\tilde\varphi(x_i)`, :math:`n_a = |A_a|`,
:math:`u_a = \sum_{i\in A_a} y_i`, every row in a cell and the cell means
:math:`c_a = P_a/n_a`:

.. math::

    \bar z = \bar\varphi, \qquad
    \sum_i (z_i - \bar z)(z_i - \bar z)^\top = \Phi^\top\Phi - \sum_a \frac{P_a P_a^\top}{n_a},
    \qquad
    \sum_i (z_i - \bar z)(y_i - \bar y) = \Phi^\top y - \sum_a \frac{P_a u_a}{n_a},

the within-cell scatter of the features (the conditional means remove the between-cell
part; the overall mean added back only moves the intercept). The ridge regression with
intercept, :math:`\min_{w, b}\sum_i (y_i - z_i^\top w - b)^2 + \alpha\lVert w\rVert^2` (the
objective of :class:`sklearn.linear_model.Ridge`), is then

.. math::

    w = \Bigl(\Phi^\top\Phi - \sum_a \tfrac{P_a P_a^\top}{n_a} + \alpha I\Bigr)^{-1}
        \Bigl(\Phi^\top y - \sum_a \tfrac{P_a u_a}{n_a}\Bigr), \qquad
    b = \bar y - \bar\varphi^\top w .

One pass over the rows accumulates :math:`\Phi^\top\Phi` (a symmetric rank-k update per
block), :math:`\Phi^\top y`, the cell sums :math:`P, n, u` and the totals, in memory
:math:`O(D^2 + LD)` plus one block of features; the sums are taken around the first
block's means (a shift that leaves the centred sums unchanged and limits cancellation).
The result equals ``Ridge(alpha).fit(ObliviousFeatures(...).fit_transform(X, S), y)``
with the same landmarks, to rounding.
"""

from __future__ import annotations

from numbers import Integral, Real
from types import SimpleNamespace
from typing import ClassVar

import numpy as np
from scipy import linalg, sparse
from scipy.linalg.blas import dsyrk
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from krepro.fairness.conditional import make_partition
from krepro.fairness.oblivious_features import (
    FEATURE_MAP_CONSTRAINTS,
    KERNEL_CONSTRAINTS,
    PARTITION_CONSTRAINTS,
    KernelFeatureMap,
)
from krepro.kernel_safety import named_solves
from krepro.validation import check_not_given, check_sensitive_features, validate_data

__all__ = ["StreamingObliviousRidge"]

# A conditional-mean estimator that needs the Gram matrix of all rows (the CME) cannot be
# accumulated block by block: only partitions here.
_PARTITION_CONSTRAINTS = {k: v for k, v in PARTITION_CONSTRAINTS.items() if k != "conditional_mean"}


class StreamingObliviousRidge(RegressorMixin, BaseEstimator):
    r"""Ridge regression on oblivious features, fitted block by block (``partial_fit``).

    The model of ``Ridge(alpha).fit(ObliviousFeatures(...).fit_transform(X, S), y)``: the
    oblivious features :math:`z = \tilde\varphi(x) - \hat E[\tilde\varphi(X)|S\in A_{a(s)}]
    + \hat E[\tilde\varphi(X)]` (paper eq. (9), §6.1) of all rows seen, the conditional means
    estimated on those same rows by the partition plug-in estimator, and a linear ridge
    regression with intercept on them, without ever holding the ``n × D`` features: each
    block of rows adds to the sums of :mod:`krepro.fairness.streaming` (memory
    :math:`O(D^2 + LD)` plus ``block_rows × D``), and the coefficients are solved from the sums
    (a ``D × D`` system) after every :meth:`partial_fit`.

    Parameters
    ----------
    alpha : float >= 0, default=1.0
        Ridge penalty, as :class:`sklearn.linear_model.Ridge` (not scaled by n).
    kernel, gamma, degree, coef0, kernel_params
        Kernel of the feature map, as
        :class:`~krepro.fairness.oblivious_features.ObliviousFeatures`.
    partition : {"values", "dyadic"} or partition object, default="values"
        Cells of the conditional means. Fixed on the first block: with ``"values"`` the
        distinct values of the first block's S are the cells (a later value that is not one
        of them is a ``ValueError``); ``"dyadic"`` needs ``partition_bounds``. Every row must
        fall in a cell.
    partition_bounds : (low, high), default=None
    cells_per_axis : int >= 1, default=16
    n_components : int >= 1, default=100
        Landmarks (Nyström) or random features (RFF) ``D``.
    approximation : {"nystroem", "rff"}, default="nystroem"
    random_state : int, RandomState or None, default=None
        Landmark / frequency draws, from the ``landmarks`` pool of the first
        :meth:`partial_fit` (default: its ``X``); :meth:`fit` draws from all of ``X``, as
        :class:`~krepro.fairness.oblivious_features.ObliviousFeatures` does.
    block_rows : int >= 1, default=4096
        Rows whose features are held at once.

    Attributes
    ----------
    feature_map_ : KernelFeatureMap
    partition_ : partition object or None
        None when fitted without sensitive features (one group: ``z`` = plain features).
    n_components_ : int
    n_samples_seen_ : int
    coef_ : ndarray of shape ``(n_components_,)``
    intercept_ : float
    cell_means_ : ndarray of shape ``(n_cells, n_components_)``
        :math:`\hat E[\tilde\varphi(X)|S\in A_a]` (a zero row for an empty cell).
    cell_counts_ : ndarray of shape (n_cells,)
    mean_ : ndarray of shape ``(n_components_,)``
        :math:`\hat E[\tilde\varphi(X)]`.
    sums_ : SimpleNamespace
        The running sums (around the shifts ``shift``, ``y_shift``): ``gram`` (upper
        triangle of :math:`\sum\varphi\varphi^\top`), ``feature_sum``, ``cross``
        (:math:`\sum\varphi y`), ``target_sum``, ``cell_sums``, ``cell_counts``,
        ``cell_targets``.
    n_features_in_ : int

    References
    ----------
    S. Grünewälder and A. Khaleghi. Oblivious Data for Fairness with Kernels. JMLR 22(208),
    2021, eq. (9), §6.1, §6.4.

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.fairness.streaming import StreamingObliviousRidge
    >>> rng = np.random.default_rng(0)
    >>> model = StreamingObliviousRidge(
    ...     gamma=0.5, n_components=50, partition="dyadic", partition_bounds=(0, 1),
    ...     cells_per_axis=4, random_state=0)
    >>> for _ in range(3):
    ...     S = rng.uniform(size=500); X = S[:, None] + rng.normal(size=(500, 2))
    ...     model = model.partial_fit(X, X[:, 0] + S, sensitive_features=S)
    >>> model.n_samples_seen_
    1500
    """

    __metadata_request__fit = {"sensitive_features": True}  # noqa: RUF012
    __metadata_request__partial_fit = {"sensitive_features": True}  # noqa: RUF012
    __metadata_request__predict = {"sensitive_features": True}  # noqa: RUF012

    _parameter_constraints: ClassVar[dict] = {
        **KERNEL_CONSTRAINTS,
        **_PARTITION_CONSTRAINTS,
        **FEATURE_MAP_CONSTRAINTS,
        "alpha": [Interval(Real, 0, None, closed="left")],
        "block_rows": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        alpha=1.0,
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1.0,
        kernel_params=None,
        partition="values",
        partition_bounds=None,
        cells_per_axis=16,
        n_components=100,
        approximation="nystroem",
        random_state=None,
        block_rows=4096,
    ):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.partition = partition
        self.partition_bounds = partition_bounds
        self.cells_per_axis = cells_per_axis
        self.n_components = n_components
        self.approximation = approximation
        self.random_state = random_state
        self.block_rows = block_rows

    # -----------------------------------------------------------------------------------------
    # fitting

    def _reset(self):
        for name in [a for a in vars(self) if a.endswith("_") and not a.startswith("__")]:
            delattr(self, name)

    def _start(self, X, S, landmarks):
        """First block: fix the cells and draw the feature map."""
        self._validate_params()
        if isinstance(self.block_rows, bool):
            raise ValueError(f"block_rows must be a positive integer, got {self.block_rows!r}.")
        if S is None:
            self.partition_ = None
            n_cells = 1
        else:
            partition = make_partition(
                self.partition, bounds=self.partition_bounds, cells_per_axis=self.cells_per_axis
            )
            partition.fit(S)
            self.partition_ = partition
            n_cells = int(partition.n_cells)
        pool = X if landmarks is None else landmarks
        self.feature_map_ = KernelFeatureMap.like(self).fit(pool)
        D = self.n_components_ = self.feature_map_.n_components_
        self.n_samples_seen_ = 0
        self.sums_ = SimpleNamespace()
        # sums around shifts (the first block's means): centred sums are unchanged
        self.sums_.shift = None
        self.sums_.y_shift = 0.0
        self.sums_.gram = np.zeros((D, D), order="F")  # upper triangle of Σ φφᵀ
        self.sums_.feature_sum = np.zeros(D)
        self.sums_.cross = np.zeros(D)  # Σ φ y
        self.sums_.target_sum = 0.0
        self.sums_.cell_sums = np.zeros((n_cells, D))
        self.sums_.cell_counts = np.zeros(n_cells, dtype=np.int64)
        self.sums_.cell_targets = np.zeros(n_cells)

    def _cells(self, S, n):
        if self.partition_ is None:
            return np.zeros(n, dtype=np.intp)
        cells = np.asarray(self.partition_.assign(S), dtype=np.intp)
        if np.any(cells < 0):
            first = int(np.flatnonzero(cells < 0)[0])
            raise ValueError(
                f"sensitive_features: {int(np.sum(cells < 0))} row(s) fall in no cell of the "
                f"partition, e.g. row {first}: {S[first].tolist()}; every row of a streamed "
                "fit needs a cell."
            )
        return cells

    def _accumulate(self, X, y, S):
        try:
            with np.errstate(over="raise", invalid="raise"):
                self._add_blocks(X, y, S)
        except FloatingPointError as error:
            self._overflow(error)
        sums = self.sums_
        if not all(
            np.all(np.isfinite(v)) for v in (sums.gram, sums.cross, sums.cell_sums, sums.shift)
        ) or not np.isfinite(sums.target_sum + sums.y_shift):
            self._overflow("a sum is not finite")

    def _overflow(self, error):
        raise ValueError(
            f"X, y: the sums of the features of X and of their products with y leave the "
            f"float64 range ({error}); rescale X or y, or lower the kernel's degree, gamma or "
            "coef0. The sums of this model are no longer usable: refit it."
        ) from (error if isinstance(error, BaseException) else None)

    def _add_blocks(self, X, y, S):
        n = X.shape[0]
        cells = self._cells(S, n)
        if self.sums_.shift is None:
            first = self.feature_map_.transform(X[: self.block_rows])
            self.sums_.shift = first.mean(axis=0)
            self.sums_.y_shift = float(np.mean(y[: self.block_rows]))
        n_cells = self.sums_.cell_sums.shape[0]
        for start in range(0, n, self.block_rows):
            rows = slice(start, min(start + self.block_rows, n))
            features = self.feature_map_.transform(X[rows])
            features -= self.sums_.shift
            target = y[rows] - self.sums_.y_shift
            # Σ φφᵀ: a symmetric rank-k update of the upper triangle, in place
            self.sums_.gram = dsyrk(1.0, features.T, beta=1.0, c=self.sums_.gram, overwrite_c=1)
            self.sums_.feature_sum += features.sum(axis=0)
            self.sums_.cross += features.T @ target
            self.sums_.target_sum += float(target.sum())
            block_cells = cells[rows]
            m = len(block_cells)
            membership = sparse.csr_matrix(
                (np.ones(m), (block_cells, np.arange(m))), shape=(n_cells, m)
            )
            self.sums_.cell_sums += membership @ features
            self.sums_.cell_counts += np.bincount(block_cells, minlength=n_cells)
            self.sums_.cell_targets += np.bincount(block_cells, weights=target, minlength=n_cells)
        self.n_samples_seen_ += n

    def _solve(self):
        n = self.n_samples_seen_
        counts = self.sums_.cell_counts
        filled = counts > 0
        sums = self.sums_.cell_sums[filled]
        scaled = sums / counts[filled, None]
        scatter = np.triu(self.sums_.gram)
        scatter = scatter + np.triu(scatter, 1).T
        scatter -= sums.T @ scaled  # within-cell scatter Σ φφᵀ − Σ_a P_a P_aᵀ / n_a
        rhs = self.sums_.cross - scaled.T @ self.sums_.cell_targets[filled]
        scale = float(np.max(np.abs(np.diag(scatter)), initial=0.0))
        scatter[np.diag_indices_from(scatter)] += self.alpha
        with named_solves("alpha", "increase alpha."):
            try:
                coef = linalg.solve(scatter, rhs, assume_a="pos")
            except linalg.LinAlgError as error:
                if self.alpha == 0:
                    advice = "use alpha > 0 (or more rows than features)."
                else:
                    advice = (
                        f"alpha is below the round-off of the within-cell scatter of the "
                        f"features of X (largest diagonal entry {scale:.3g}); rescale X, "
                        "lower the kernel's degree, gamma or coef0, or increase alpha."
                    )
                raise ValueError(
                    "The ridge system of the oblivious features is singular at "
                    f"alpha={self.alpha!r}: {advice}"
                ) from error
        self.coef_ = coef
        mean_shifted = self.sums_.feature_sum / n
        self.mean_ = mean_shifted + self.sums_.shift
        self.intercept_ = float(self.sums_.target_sum / n + self.sums_.y_shift - self.mean_ @ coef)
        self.cell_means_ = np.zeros_like(self.sums_.cell_sums)
        self.cell_means_[filled] = scaled + self.sums_.shift
        self.cell_counts_ = counts.copy()

    def partial_fit(self, X, y, *, sensitive_features=None, landmarks=None):
        """Add a block of rows to the fit.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        y : array-like of shape (m,)
        sensitive_features : array-like of shape (m,) or (m, d), default=None
            Given in every block or in none (one group).
        landmarks : array-like of shape (p, n_features), default=None
            First block only: the pool the Nyström landmarks are drawn from (default: this
            block's ``X``).

        Returns
        -------
        self : StreamingObliviousRidge
        """
        first = not hasattr(self, "feature_map_")
        X, y = validate_data(self, X, y, dtype=float, y_numeric=True, reset=first)
        y = np.asarray(y, dtype=np.float64)  # float32 targets: sums in float64 all the same
        if first:
            S = (
                None
                if sensitive_features is None
                else check_sensitive_features(sensitive_features, X.shape[0])
            )
            if landmarks is not None:
                landmarks = np.asarray(landmarks, dtype=float)
                if landmarks.ndim != 2 or landmarks.shape[1] != X.shape[1]:
                    raise ValueError(
                        f"landmarks must be a 2-d array with {X.shape[1]} columns (the "
                        f"features of X), got shape {landmarks.shape}."
                    )
            self._start(X, S, landmarks)
        else:
            check_not_given(landmarks, "landmarks")
            S = self._check_sensitive(X, sensitive_features)
        self._accumulate(X, y, S)
        self._solve()
        return self

    def fit(self, X, y, *, sensitive_features=None):
        """Fit on all rows of ``X``, block by block (landmarks drawn from all of ``X``).

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        y : array-like of shape (n,)
        sensitive_features : array-like of shape (n,) or (n, d), default=None

        Returns
        -------
        self : StreamingObliviousRidge
        """
        self._reset()
        return self.partial_fit(X, y, sensitive_features=sensitive_features)

    # -----------------------------------------------------------------------------------------
    # prediction

    def _check_sensitive(self, X, sensitive_features):
        if self.partition_ is None:
            check_not_given(sensitive_features, "sensitive_features")
            return None
        if sensitive_features is None:
            raise ValueError(
                "sensitive_features are required: the model was fitted with sensitive "
                "features, so every row needs its own to form its oblivious feature."
            )
        return check_sensitive_features(sensitive_features, X.shape[0])

    def predict(self, X, *, sensitive_features=None):
        r"""Predict :math:`z(x, s)^\top w + b`, in blocks of rows.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        sensitive_features : array-like of shape (n,) or (n, d), default=None
            Required when fitted with sensitive features.

        Returns
        -------
        ndarray of shape (n,)
        """
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=float, reset=False)
        S = self._check_sensitive(X, sensitive_features)
        cells = (
            np.zeros(X.shape[0], dtype=np.intp)
            if S is None
            else np.asarray(self.partition_.assign(S), dtype=np.intp)
        )
        # zᵀw = φᵀw − c_{a(s)}ᵀw + meanᵀw: no n × D array of oblivious features
        out = np.empty(X.shape[0])
        with np.errstate(over="raise", invalid="raise"):
            try:
                cell_terms = np.append(self.cell_means_ @ self.coef_, 0.0)  # −1: no cell, 0
                offset = float(self.mean_ @ self.coef_) + self.intercept_
                for start in range(0, X.shape[0], self.block_rows):
                    rows = slice(start, min(start + self.block_rows, X.shape[0]))
                    out[rows] = self.feature_map_.transform(X[rows]) @ self.coef_
                return out - cell_terms[cells] + offset
            except FloatingPointError as error:
                raise ValueError(
                    f"X: the predictions leave the float64 range ({error}): the features of "
                    "X times the coefficients fitted to y overflow; rescale X or y."
                ) from error
