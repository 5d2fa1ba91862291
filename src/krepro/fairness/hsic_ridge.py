r"""HSIC-penalised kernel ridge regression: fair kernel learning (Pérez-Suay et al., 2017).

Kernel ridge regression whose objective adds the dependence of the training predictions
:math:`f = K\alpha` on the sensitive features, measured by the biased empirical HSIC of
Gretton et al. (2005) with a linear kernel on the predictions and a kernel :math:`L` on S.
With :math:`H = I - \tfrac1n \mathbf 1\mathbf 1^\top`,

.. math::

    J(\alpha) = \frac1n\lVert y - K\alpha\rVert^2 + \lambda\,\alpha^\top K\alpha
        + \frac{\mu}{n^2}\operatorname{tr}\bigl(K\alpha\alpha^\top K\,H L H\bigr),

the last term being :math:`\mu\,\mathrm{HSIC}_b(f, S) = \frac{\mu}{n^2}
\operatorname{tr}(F H L H)` with the linear Gram matrix :math:`F = ff^\top` of the
predictions. :math:`J` is a convex quadratic; setting its gradient
:math:`\tfrac2n K\bigl[(K + n\lambda I + \tfrac{\mu}{n} H L H K)\alpha - y\bigr]` to zero gives
the closed form

.. math::

    \alpha = \Bigl(K + n\lambda I + \frac{\mu}{n} H L H K\Bigr)^{-1} y ,

the fair kernel learning solution. The matrix is invertible for :math:`\lambda > 0`: with
:math:`M = I + \tfrac{\mu}{n}HLH` symmetric positive definite, it is
:math:`n\lambda I + MK`, and :math:`MK` is similar to the positive semi-definite
:math:`M^{1/2} K M^{1/2}`. With :math:`\mu = 0` it is kernel ridge regression,
:class:`sklearn.kernel_ridge.KernelRidge` with ``alpha = n λ``. Predictions are
:math:`\hat f(x) = \sum_i \alpha_i k(x, x_i)`; they do not use S.

The penalty scales with the square of the predictions (a linear kernel on them), so ``mu``
is in units of 1/y²: standardise y to compare ``mu`` across data sets.
"""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from krepro.fairness.oblivious_features import KERNEL_CONSTRAINTS
from krepro.kernel_safety import named_solves
from krepro.kernels import gram, kernel_params
from krepro.validation import (
    POSITIVE_FINITE,
    check_continuous,
    check_kernel_params,
    diagonal_load,
    validate_data,
)

__all__ = ["SENSITIVE_KERNELS", "HSICRidge", "median_heuristic_gamma", "sensitive_gram"]

SENSITIVE_KERNELS = ("rbf", "linear")


def median_heuristic_gamma(S):
    r"""Gaussian kernel scale :math:`\gamma = 1/m` with m the median squared distance.

    The kernel is :math:`\exp(-\gamma\lVert s - s'\rVert^2)`, the convention of
    :func:`krepro.metrics.hsic`; the median is over distinct pairs. Returns 1.0 when the median
    is 0 (more than half the pairs coincide) or there is a single point.

    Parameters
    ----------
    S : ndarray of shape (n, d)

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Naming ``sensitive_features`` when the squared distances or their inverse median leave
        the float64 range (values beyond about 1e150 or below 1e-150 apart).
    """
    S = np.asarray(S, dtype=float).reshape(len(S), -1)
    if len(S) < 2:
        return 1.0
    with np.errstate(over="ignore", under="ignore"):
        squared = np.sum((S[:, None, :] - S[None, :, :]) ** 2, axis=2)
        median = float(np.median(squared[np.triu_indices(len(S), 1)]))
        gamma = 1.0 / median if median > 0 else 1.0
    if not (np.isfinite(median) and np.isfinite(gamma) and gamma > 0):
        raise ValueError(
            f"sensitive_features: the median squared distance ({median:.3g}) leaves the "
            "float64 range of the median heuristic; rescale the sensitive features or give "
            "sensitive_gamma."
        )
    return gamma


def sensitive_gram(S, kernel="rbf", gamma=None):
    """Gram matrix ``L`` of the sensitive features (RBF with the median heuristic, or linear).

    Parameters
    ----------
    S : ndarray of shape (n, d)
    kernel : {"rbf", "linear"}
    gamma : float or None
        RBF scale; ``None`` takes :func:`median_heuristic_gamma` of ``S``.

    Returns
    -------
    L : ndarray of shape (n, n)
    """
    if kernel == "linear":
        return gram(S, None, "linear")
    gamma = median_heuristic_gamma(S) if gamma is None else float(gamma)
    return gram(S, None, "rbf", gamma=gamma)


def _centred(L):
    """:math:`HLH` of a symmetric matrix."""
    means = L.mean(axis=0)
    return L - means[None, :] - means[:, None] + means.mean()


class HSICRidge(RegressorMixin, BaseEstimator):
    r"""Kernel ridge regression with an HSIC penalty on S: fair kernel learning (FKL).

    Minimises :math:`\frac1n\lVert y - K\alpha\rVert^2 + \lambda\alpha^\top K\alpha +
    \frac{\mu}{n^2}\operatorname{tr}(K\alpha\alpha^\top K H L H)` in closed form,
    :math:`\alpha = (K + n\lambda I + \frac{\mu}{n} H L H K)^{-1} y` (Pérez-Suay et al.
    2017, the FKL regression problem; derivation in :mod:`krepro.fairness.hsic_ridge`). The
    third term is ``mu`` times the biased HSIC between the training predictions (linear
    kernel) and the sensitive features (kernel ``L``).

    Parameters
    ----------
    alpha : float >= 0, default=1.0
        Ridge penalty :math:`\lambda` of the 1/n-scaled objective above: ``mu = 0`` equals
        :class:`sklearn.kernel_ridge.KernelRidge` with ``alpha = n λ``.
    mu : float >= 0, default=1.0
        Weight :math:`\mu` of the HSIC penalty (0: kernel ridge regression).
    kernel : str, default="rbf"
        Kernel on X understood by :func:`krepro.kernels.gram`.
    gamma : float, default=None
        Scale of the kernel on X, finite and > 0 (``None``: ``1 / n_features``).
    degree : int >= 0, default=3
    coef0 : float, default=1.0
    kernel_params : dict, default=None
        Further parameters of the kernel on X.
    sensitive_kernel : {"rbf", "linear"}, default="rbf"
        Kernel ``L`` on the sensitive features.
    sensitive_gamma : float, default=None
        Scale of the RBF kernel on S, :math:`\exp(-\gamma\lVert s - s'\rVert^2)`; ``None``:
        the median heuristic (:func:`median_heuristic_gamma`, one over the median squared
        distance of the training values, the convention of :func:`krepro.metrics.hsic`).

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        :math:`\alpha`.
    X_fit_ : ndarray of shape (n_samples, n_features)
    sensitive_gamma_ : float or None
        RBF scale used on S (None for the linear kernel or without sensitive features).
    single_group_ : bool
        Fitted without sensitive features: ``L`` is constant, :math:`HLH = 0`, the fit is KRR.
    n_features_in_ : int

    References
    ----------
    A. Pérez-Suay, V. Laparra, G. Mateo-García, J. Muñoz-Marí, L. Gómez-Chova and
    G. Camps-Valls. Fair kernel learning. ECML-PKDD 2017, LNCS 10534, 339–355.
    A. Gretton, O. Bousquet, A. Smola and B. Schölkopf. Measuring statistical dependence
    with Hilbert-Schmidt norms. ALT 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.fairness.hsic_ridge import HSICRidge
    >>> rng = np.random.default_rng(0)
    >>> S = rng.uniform(size=100)
    >>> X = np.column_stack([S + rng.normal(size=100), rng.normal(size=100)])
    >>> y = X[:, 0] + 0.1 * rng.normal(size=100)
    >>> model = HSICRidge(alpha=1e-3, mu=10.0, gamma=0.5).fit(X, y, sensitive_features=S)
    >>> model.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints: ClassVar[dict] = {
        **KERNEL_CONSTRAINTS,
        "alpha": [Interval(Real, 0, None, closed="left")],
        "mu": [Interval(Real, 0, None, closed="left")],
        "sensitive_kernel": [StrOptions(set(SENSITIVE_KERNELS))],
        "sensitive_gamma": [POSITIVE_FINITE, None],
    }

    def __init__(
        self,
        alpha=1.0,
        mu=1.0,
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1.0,
        kernel_params=None,
        sensitive_kernel="rbf",
        sensitive_gamma=None,
    ):
        self.alpha = alpha
        self.mu = mu
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.sensitive_kernel = sensitive_kernel
        self.sensitive_gamma = sensitive_gamma

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def _kernel(self, X, Y=None):
        extra = check_kernel_params(self.kernel_params)
        params = kernel_params(self.kernel, self.gamma, self.degree, self.coef0, extra)
        return gram(X, Y, self.kernel, **params)

    def _solve(self, K, y, S):
        r""":math:`\alpha = (K + n\lambda I + \frac{\mu}{n} HLHK)^{-1} y` by a symmetric system.

        With :math:`M = I + \frac{\mu}{n} HLH = V\operatorname{diag}(1 + \frac{\mu}{n}w)V^\top`
        (symmetric positive definite), the matrix is :math:`n\lambda I + MK =
        M^{1/2}(M^{1/2}KM^{1/2} + n\lambda I)M^{-1/2}`, so
        :math:`\alpha = M^{1/2}(M^{1/2}KM^{1/2} + n\lambda I)^{-1}M^{-1/2}y`: a Cholesky
        solve, which fails (naming ``alpha``) where the system is singular, instead of an LU
        solve of the non-symmetric matrix.
        """
        n = K.shape[0]
        load = diagonal_load(n, self.alpha, "alpha")
        root = inverse_root = None
        with np.errstate(over="raise", invalid="raise"):
            try:
                if S is not None and self.mu > 0:
                    L = sensitive_gram(S, self.sensitive_kernel, self.sensitive_gamma_)
                    w, V = linalg.eigh(_centred(L))
                    factors = np.sqrt(1.0 + (float(self.mu) / n) * np.clip(w, 0.0, None))
                    root = (V * factors) @ V.T
                    inverse_root = (V / factors) @ V.T
                    B = root @ K @ root
                    B = (B + B.T) / 2
                    y = inverse_root @ y
                else:
                    B = K.copy()
            except FloatingPointError as error:
                raise ValueError(
                    f"mu = {self.mu:g}: the HSIC term leaves the float64 range ({error}); "
                    "choose a smaller mu or rescale X."
                ) from error
        B[np.diag_indices(n)] += load
        with named_solves("alpha", "increase alpha."):
            try:
                coef = linalg.solve(B, y, assume_a="pos")
            except linalg.LinAlgError as error:
                if self.alpha == 0:
                    advice = (
                        "the Gram matrix of X is not positive definite (e.g. a linear kernel "
                        "with more rows than features, or repeated rows); use alpha > 0."
                    )
                else:
                    scale = float(np.max(np.abs(np.diag(B)), initial=0.0))
                    advice = (
                        f"n·alpha is below the round-off of the Gram matrix of X (largest "
                        f"diagonal entry {scale:.3g}); rescale X, lower the kernel's degree, gamma "
                        "or coef0, or increase alpha."
                    )
                raise ValueError(
                    "The FKL system K + n·alpha·I + (mu/n)·HLHK is singular at "
                    f"alpha={self.alpha!r}: {advice}"
                ) from error
        if root is not None:
            with np.errstate(over="raise", invalid="raise"):
                try:
                    coef = root @ coef
                except FloatingPointError as error:
                    raise ValueError(
                        f"mu = {self.mu:g}: the dual coefficients leave the float64 range "
                        f"({error}); choose a smaller mu or rescale y."
                    ) from error
        return coef

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, *, sensitive_features=None):
        """Fit the closed form.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
        sensitive_features : array-like of shape (n_samples,) or (n_samples, d), default=None
            Numeric (continuous or coded) sensitive features; ``None`` means one group, and
            the fit is kernel ridge regression.

        Returns
        -------
        self : HSICRidge
        """
        X, y = validate_data(self, X, y, dtype=float, multi_output=True, y_numeric=True)
        self.single_group_ = sensitive_features is None
        S = None
        self.sensitive_gamma_ = None
        if not self.single_group_:
            S = check_continuous(sensitive_features, X.shape[0])
            if self.sensitive_kernel == "rbf":
                self.sensitive_gamma_ = (
                    median_heuristic_gamma(S)
                    if self.sensitive_gamma is None
                    else float(self.sensitive_gamma)
                )
        self.dual_coef_ = self._solve(self._kernel(X), y, S)
        self.X_fit_ = X
        return self

    def predict(self, X):
        r"""Predict :math:`\sum_i \alpha_i k(x, x_i)`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_targets)
        """
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, dtype=float, reset=False)
        cross = self._kernel(X, self.X_fit_)
        with np.errstate(over="raise", invalid="raise"):
            try:
                return cross @ self.dual_coef_
            except FloatingPointError as error:
                raise ValueError(
                    f"X: the predictions leave the float64 range ({error}): the kernel values "
                    "of X times the dual coefficients fitted to y overflow; rescale X or y."
                ) from error

    def objective(self, dual_coef, X, y, sensitive_features=None):
        r"""The FKL objective :math:`J(\alpha)` at ``dual_coef`` on training data.

        :math:`\frac1n\lVert y - K\alpha\rVert^2 + \lambda\alpha^\top K\alpha +
        \frac{\mu}{n^2}\operatorname{tr}(K\alpha\alpha^\top K H L H)`, summed over targets;
        the kernel on S is the fitted one (its median-heuristic scale from :meth:`fit`).

        Returns
        -------
        float
        """
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, dtype=float, reset=False)
        y = np.asarray(y, dtype=float)
        K = self._kernel(X)
        n = K.shape[0]
        coef = np.asarray(dual_coef, dtype=float).reshape(n, -1)
        f = K @ coef
        value = np.sum((y.reshape(n, -1) - f) ** 2) / n + self.alpha * np.sum(coef * f)
        if sensitive_features is not None and self.mu > 0:
            S = check_continuous(sensitive_features, n)
            L = sensitive_gram(S, self.sensitive_kernel, self.sensitive_gamma_)
            value += self.mu / n**2 * np.sum(f * (_centred(L) @ f))
        return float(value)
