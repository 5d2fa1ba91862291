r"""Kernel ridge regression on oblivious features: ORR and M-ORR (paper §6.4, Appendix D).

* **KRR** — plain kernel ridge regression, :math:`\alpha = (K + \lambda I)^{-1} y`, identical
  to :class:`sklearn.kernel_ridge.KernelRidge` with ``alpha = λ`` (no intercept).
* **ORR** (Oblivious, §6.3 Case 2) — ridge regression on the oblivious features,
  :math:`\min_h \sum_i (\langle h, Z_i\rangle - y_i)^2 + \lambda\lVert h\rVert^2`, eq. (11),
  solved by :math:`\alpha = (O + \lambda I)^{-1} y` (Appendix D); prediction
  :math:`\sum_i \alpha_i \langle Z, Z_i\rangle`.
* **M-ORR** (M-Oblivious, §6.3 Case 1) — the KRR solution on the plain Gram applied to the
  oblivious feature of the query point, :math:`\sum_i \alpha_i \langle Z, \varphi(x_i)\rangle`.

:func:`ridge_path` solves for a whole grid of :math:`\lambda` with one eigendecomposition,
which is how the experiments select :math:`\lambda` on a validation set.
"""

from __future__ import annotations

import warnings
from numbers import Real
from typing import ClassVar

import numpy as np
import pandas as pd
from scipy import linalg
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from krepro.fairness.conditional import FiniteValuePartition
from krepro.fairness.oblivious import OBLIVIOUS_CONSTRAINTS, ObliviousKernel
from krepro.kernel_safety import named_solves
from krepro.validation import check_not_given, check_sensitive_features, stack_labels, validate_data

__all__ = ["MODES", "ObliviousRidge", "ridge_path", "select_by_validation"]

MODES = ("oblivious", "m-oblivious")


def ridge_path(gram_matrix, y, alphas):
    r"""Dual coefficients :math:`(K + \lambda I)^{-1} y` for every :math:`\lambda` in ``alphas``.

    One symmetric eigendecomposition :math:`K = V \operatorname{diag}(w) V^\top` serves all
    :math:`\lambda`: :math:`\alpha(\lambda) = V \operatorname{diag}(1/(w+\lambda)) V^\top y`.

    Parameters
    ----------
    gram_matrix : ndarray of shape (n, n)
        Symmetric positive semi-definite Gram matrix (plain or oblivious).
    y : ndarray of shape (n,)
    alphas : sequence of float
        Regularisation values :math:`\lambda > 0` (not scaled by n, as in the paper).

    Returns
    -------
    coefs : ndarray of shape (n, len(alphas))
    """
    alphas = np.asarray(alphas, dtype=float)
    if np.any(alphas <= 0):
        raise ValueError(f"Ridge regularisation values must be positive, got {alphas.tolist()}.")
    eigenvalues, eigenvectors = linalg.eigh(gram_matrix)
    eigenvalues = np.clip(eigenvalues, 0.0, None)  # remove negative round-off of a PSD matrix
    projected = eigenvectors.T @ np.asarray(y, dtype=float)
    return eigenvectors @ (projected[:, None] / (eigenvalues[:, None] + alphas[None, :]))


def select_by_validation(coefs, validation_gram, y_validation):
    """Index of the coefficient column with the smallest validation MSE, and all MSEs.

    Ties go to the first (smallest-λ when ``alphas`` is ascending) column, as ``argmin`` does.
    """
    residuals = validation_gram @ coefs - np.asarray(y_validation, dtype=float)[:, None]
    mse = np.mean(residuals**2, axis=0)
    return int(np.argmin(mse)), mse


def _check_estimation_sample(S, X_estimation, S_estimation):
    """An explicit estimation sample comes with its sensitive features exactly when X does."""
    if X_estimation is None:
        if S_estimation is not None:
            raise ValueError(
                "sensitive_features_estimation given without X_estimation: pass the estimation "
                "sample's points as X_estimation too, or leave both out."
            )
        return
    if S is not None and S_estimation is None:
        raise ValueError(
            "X_estimation given with sensitive_features but without "
            "sensitive_features_estimation: the conditional means E[φ(X)|S] are estimated "
            "on the estimation sample, which needs its own sensitive features."
        )
    if S is None and S_estimation is not None:
        raise ValueError(
            "sensitive_features_estimation given without sensitive_features: the training "
            "rows need their sensitive features too (or leave both out for one group)."
        )


def _warn_empty_cells(conditional_mean, S):
    """Warn when training rows hold sensitive values that no estimation point has."""
    cells = conditional_mean.cell_of(S)
    empty = conditional_mean.cell_counts_[cells] == 0
    if empty.any():
        values = pd.unique(pd.Series([tuple(row) for row in S[empty].tolist()], dtype=object))
        shown = [v[0] if len(v) == 1 else v for v in values[:10]]
        warnings.warn(
            f"sensitive_features value(s) {shown} of {int(empty.sum())} training row(s) have "
            "no estimation point: their conditional-mean estimate is 0 (an empty cell, "
            "Algorithm 1's convention), so no fairness correction is applied to them. Check "
            "that the training and estimation rows code the groups alike, or give more "
            "estimation rows.",
            UserWarning,
            stacklevel=3,
        )


class ObliviousRidge(RegressorMixin, BaseEstimator):
    r"""Oblivious ridge regression, ORR or M-ORR (paper §6.3–6.4, eq. (11)).

    The training data are split as in the paper: the last ``estimation_fraction`` of the rows
    estimate the conditional expectations, the first rows fit the ridge regression. The split
    can also be given explicitly with ``X_estimation`` / ``sensitive_features_estimation``.

    Parameters
    ----------
    alpha : float >= 0, default=1.0
        Ridge penalty :math:`\lambda` of eq. (11), not scaled by n.
    mode : {"oblivious", "m-oblivious"}, default="oblivious"
        ``"oblivious"`` (ORR) solves :math:`(O + \lambda I)\alpha = y` on the oblivious
        Gram; ``"m-oblivious"`` (M-ORR) solves the plain KRR system and predicts with
        oblivious features of the query points.
    kernel, gamma, degree, coef0, kernel_params, partition, partition_bounds, cells_per_axis
        Passed to :class:`~krepro.fairness.oblivious.ObliviousKernel` (``gamma`` finite and
        > 0, ``partition_bounds`` finite, at most 16 dyadic cells per estimation point).
    conditional_mean : estimator, default=None
        Estimator of :math:`E[\varphi(X)|S]` for :class:`~krepro.fairness.oblivious.ObliviousKernel`
        (``None``: the paper's partition plug-in; or :class:`krepro.cme.CMEConditionalMean`).
    estimation_fraction : float, default=0.5
        Share of the rows (taken from the end) used to estimate the conditional means when
        no explicit estimation sample is passed to :meth:`fit`.

    Attributes
    ----------
    oblivious_kernel_ : ObliviousKernel
        Fitted on the estimation sample.
    dual_coef_ : ndarray of shape (n_train,) or (n_train, n_targets)
    X_fit_ : ndarray of shape (n_train, n_features)
    sensitive_features_fit_ : ndarray of shape (n_train, d) or None
        Sensitive features of the training rows (None when fitted without them).

    References
    ----------
    S. Grünewälder and A. Khaleghi. Oblivious Data for Fairness with Kernels. JMLR 22(208),
    2021. §6.4, Appendix D.

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.fairness.ridge import ObliviousRidge
    >>> rng = np.random.default_rng(0)
    >>> S = rng.integers(0, 2, 200); X = S[:, None] + rng.normal(size=(200, 1))
    >>> y = X[:, 0] ** 2 + rng.normal(scale=0.1, size=200)
    >>> model = ObliviousRidge(gamma=1.0, alpha=0.1).fit(X, y, sensitive_features=S)
    >>> model.predict(X[:3], sensitive_features=S[:3]).shape
    (3,)
    """

    def __init__(
        self,
        alpha=1.0,
        mode="oblivious",
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1.0,
        kernel_params=None,
        partition="values",
        partition_bounds=None,
        cells_per_axis=16,
        conditional_mean=None,
        estimation_fraction=0.5,
    ):
        self.alpha = alpha
        self.mode = mode
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.partition = partition
        self.partition_bounds = partition_bounds
        self.cells_per_axis = cells_per_axis
        self.conditional_mean = conditional_mean
        self.estimation_fraction = estimation_fraction

    _parameter_constraints: ClassVar[dict] = {
        **OBLIVIOUS_CONSTRAINTS,
        "alpha": [Interval(Real, 0, None, closed="left")],
        "mode": [StrOptions(set(MODES))],
        "estimation_fraction": [Interval(Real, 0, 1, closed="neither")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def _split(self, X, y, S, X_estimation, S_estimation):
        if X_estimation is not None:
            X_estimation = validate_data(self, X_estimation, dtype=float, reset=False)
            if S is not None:
                S_estimation = check_sensitive_features(
                    S_estimation, X_estimation.shape[0], name="sensitive_features_estimation"
                )
            return X, y, S, X_estimation, S_estimation
        n_samples = X.shape[0]
        n_estimation = round(self.estimation_fraction * n_samples)
        if n_samples < 2:
            raise ValueError(
                f"ObliviousRidge needs at least 2 samples to split into training and "
                f"estimation rows, got n_samples = {n_samples}."
            )
        if not 0 < n_estimation < n_samples:
            raise ValueError(
                f"estimation_fraction = {self.estimation_fraction} of n_samples = "
                f"{n_samples} rounds to {n_estimation} estimation rows; ObliviousRidge "
                f"needs at least one training and one estimation row: choose "
                f"estimation_fraction above {0.5 / n_samples:.3g} and below "
                f"{1 - 0.5 / n_samples:.3g}, or pass X_estimation."
            )
        n_train = n_samples - n_estimation
        if S is None:
            return X[:n_train], y[:n_train], None, X[n_train:], None
        return X[:n_train], y[:n_train], S[:n_train], X[n_train:], S[n_train:]

    @_fit_context(prefer_skip_nested_validation=False)  # conditional_mean: a user estimator
    def fit(
        self,
        X,
        y,
        *,
        sensitive_features=None,
        X_estimation=None,
        sensitive_features_estimation=None,
    ):
        """Fit ORR / M-ORR.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
        sensitive_features : array-like of shape (n_samples,) or (n_samples, d), default=None
            ``None`` means a single group (then ORR = M-ORR = KRR). With
            ``partition="values"``, labels of any hashable type; every value seen here (in
            the training or the estimation rows) is a cell, and one without estimation
            points has conditional-mean estimate 0 (a ``UserWarning`` names such values).
        X_estimation, sensitive_features_estimation : array-like, default=None
            Explicit estimation sample. When omitted the last ``estimation_fraction`` of the
            rows of ``X`` are used for it. ``sensitive_features_estimation`` is required
            with ``X_estimation`` whenever ``sensitive_features`` is given (and not allowed
            otherwise).

        Returns
        -------
        self : ObliviousRidge
        """
        X, y = validate_data(self, X, y, dtype=float, multi_output=True, y_numeric=True)
        _check_estimation_sample(sensitive_features, X_estimation, sensitive_features_estimation)
        single_group = sensitive_features is None
        S = None if single_group else check_sensitive_features(sensitive_features, X.shape[0])
        X, y, S, X_est, S_est = self._split(X, y, S, X_estimation, sensitive_features_estimation)
        partition = self.partition
        value_cells = (
            not single_group
            and self.conditional_mean is None
            and isinstance(partition, str)
            and partition == "values"
        )
        if value_cells:
            # Every value seen in fit is a cell; one without estimation points is an empty
            # cell, whose conditional-mean estimate is 0 (Algorithm 1's convention).
            partition = FiniteValuePartition(values=stack_labels(S, S_est))
        self.oblivious_kernel_ = ObliviousKernel(
            kernel=self.kernel,
            gamma=self.gamma,
            degree=self.degree,
            coef0=self.coef0,
            kernel_params=self.kernel_params,
            partition=partition,
            partition_bounds=self.partition_bounds,
            cells_per_axis=self.cells_per_axis,
            conditional_mean=self.conditional_mean,
        ).fit(X_est, sensitive_features=S_est)
        if value_cells:
            _warn_empty_cells(self.oblivious_kernel_.conditional_mean_, S)
        if self.mode == "oblivious":
            train_gram = self.oblivious_kernel_.gram(X, S)
        else:
            train_gram = self.oblivious_kernel_.plain_gram(X)
            if S is not None:  # unused by the plain Gram, but predict takes S of this kind
                self.oblivious_kernel_._coefficients(S)
        gram_scale = float(np.max(np.abs(np.diag(train_gram)), initial=0.0))
        train_gram[np.diag_indices_from(train_gram)] += self.alpha
        with named_solves("alpha", "increase alpha."):  # ill-conditioned: a UserWarning
            try:
                self.dual_coef_ = linalg.solve(train_gram, y, assume_a="pos")
            except linalg.LinAlgError as error:
                if self.alpha == 0:
                    advice = (
                        "the Gram matrix of the training rows X is not positive definite "
                        "(e.g. a linear kernel with more rows than features); use alpha > 0."
                    )
                else:
                    advice = (
                        f"alpha is below the round-off of the Gram matrix of the training "
                        f"rows X (largest diagonal entry {gram_scale:.3g}); standardise X "
                        "or increase alpha."
                    )
                raise ValueError(
                    "The ridge system (Gram matrix + alpha I) is singular at "
                    f"alpha={self.alpha!r}: {advice}"
                ) from error
        self.X_fit_ = X
        self.sensitive_features_fit_ = S
        return self

    def predict(self, X, *, sensitive_features=None):
        r"""Predict :math:`\langle \hat h, Z\rangle` for new points (Appendix E.2).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        sensitive_features : array-like, default=None
            Required when fitted with sensitive features (a value never seen in :meth:`fit`
            is a ``ValueError``); not allowed when fitted without them.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,) or (n_samples, n_targets)
        """
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, dtype=float, reset=False)
        S = sensitive_features  # None is allowed only after fitting without sensitive features
        if self.sensitive_features_fit_ is None:
            check_not_given(S, "sensitive_features")
        if self.mode == "oblivious":
            cross = self.oblivious_kernel_.gram(X, S, self.X_fit_, self.sensitive_features_fit_)
        else:
            cross = self.oblivious_kernel_.mixed_gram(X, S, self.X_fit_)
        return cross @ self.dual_coef_
