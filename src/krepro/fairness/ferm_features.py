r"""FERM on explicit kernel features: a projection, then any linear SVM.

Kernel FERM (Donini et al. 2018; :class:`krepro.fairness.ferm.FERMClassifier`) is the SVM
with the ε = 0 constraint :math:`\langle w, u\rangle = 0`, where

.. math::

    u = \frac1{|A_1|}\sum_{i\in A_1}\varphi(x_i) - \frac1{|A_0|}\sum_{i\in A_0}\varphi(x_i),
    \qquad A_g = \{i : y_i = +1,\ s_i = g\}

is the gap between the mean features of the positives of the two groups. With explicit
features :math:`\tilde\varphi` (Nyström or random Fourier features) the constraint is a
projection: for :math:`P = I - uu^\top/\lVert u\rVert^2`, :math:`\langle w, P\tilde\varphi(x)
\rangle = \langle Pw, \tilde\varphi(x)\rangle` and :math:`\lVert Pw\rVert \le \lVert w\rVert`,
so the SVM on the projected features :math:`P\tilde\varphi(x)` solves the SVM under the
constraint :math:`\langle w, u\rangle = 0` with the same regulariser :math:`\lVert w\rVert^2`.
(:class:`krepro.fairness.ferm.LinearFERM` instead eliminates one coordinate, which changes the
regulariser.) With every training point a Nyström landmark, a linear SVM
(``SVC(kernel="linear")``) on :class:`FERMFeatures` solves this constrained SVM exactly, i.e.
the SVM on the projected kernel of :func:`ferm_projected_gram`, which is what
``FERMClassifier(formulation="exact")`` solves (:mod:`krepro.fairness.ferm_dual`).

This is not quite the QP of Donini et al.'s eq. (14) (``FERMClassifier(formulation="donini")``):
that QP keeps the SVM dual's parametrisation :math:`w = \sum_i \alpha_i y_i \varphi(x_i)` with
:math:`0 \le \alpha_i \le C` and adds :math:`\langle w, u\rangle = 0` as a row, which is not
the Lagrangian dual of the constrained primal (the constraint's multiplier adds a multiple of
:math:`u` to :math:`w`). Both satisfy the constraint; the projection reaches the lower primal
objective :math:`\tfrac12\lVert w\rVert^2 + C\sum_i \max(0, 1 - y_i f(x_i))`, and the
predictions of the two mostly agree (``tests/fairness/test_ferm_features.py``).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from scipy.linalg import blas
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import check_is_fitted, column_or_1d

from krepro.fairness.ferm import _binary_targets, _groups, _positive_groups
from krepro.fairness.ferm_dual import fairness_direction, project_gram
from krepro.fairness.oblivious_features import (
    FEATURE_MAP_CONSTRAINTS,
    KERNEL_CONSTRAINTS,
    KernelFeatureMap,
)
from krepro.validation import check_class_labels, validate_data

__all__ = ["FERMFeatures", "ferm_projected_gram", "project_out"]


def project_out(features, direction, out=None):
    r"""Orthogonal projection of the rows of ``features`` onto :math:`u^\perp`.

    Parameters
    ----------
    features : ndarray of shape (n, D)
    direction : ndarray of shape (D,)
        :math:`u`; a zero vector leaves the features unchanged.
    out : ndarray, optional
        Output array (may be ``features`` itself).
    """
    norm2 = float(direction @ direction)
    out = np.array(features, dtype=float, copy=True) if out is None else out
    if norm2 == 0.0:
        if out is not features:
            out[...] = features
        return out
    coefficients = features @ direction / norm2
    if out is not features:
        out[...] = features
    out -= np.outer(coefficients, direction)
    return out


def ferm_projected_gram(K, y, sensitive_features, K_cross=None):
    r"""Kernel form of the projection: Gram matrices of :math:`P\varphi(x)` (exact FERM primal).

    With :math:`v = 1_{A_1}/|A_1| - 1_{A_0}/|A_0|` (so :math:`u = \sum_i v_i\varphi(x_i)`),
    :math:`\tau = Kv` (:math:`\tau_j = \langle\varphi(x_j), u\rangle`, the FERM reference's
    τ) and :math:`\lVert u\rVert^2 = v^\top K v`,
    :math:`\langle P\varphi(a), P\varphi(b)\rangle = k(a, b) - \tau_a\tau_b/\lVert u\rVert^2`.
    ``SVC(kernel="precomputed")`` on these matrices solves the SVM under
    :math:`\langle w, u\rangle = 0` exactly; :class:`FERMFeatures` with every training point
    a landmark reproduces it. Memory: the returned matrices only (two matrix-vector products
    and BLAS rank-one updates of the copies, :func:`krepro.fairness.ferm_dual.project_gram`).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Training Gram matrix (symmetric).
    y : array-like of shape (n,)
        Binary target; the larger label is the positive class.
    sensitive_features : array-like of shape (n,)
        Binary groups, labels of any type (ordered by value, as the FERM estimators).
    K_cross : ndarray of shape (m, n), default=None
        Kernel between new points and the training points.

    Returns
    -------
    K_projected : ndarray of shape (n, n)
    K_cross_projected : ndarray of shape (m, n), only when ``K_cross`` is given
    """
    y = np.asarray(y)
    if sensitive_features is None:
        raise ValueError("ferm_projected_gram needs sensitive_features (two groups).")
    s = _groups(sensitive_features, len(y))
    positives = y == unique_labels(y)[-1]
    high, low = positives & (s == 1), positives & (s == 0)
    if not (high.any() and low.any()):
        raise ValueError(
            "Both sensitive groups need positive examples: the FERM direction is the gap "
            "between their mean features."
        )
    v = high / high.sum() - low / low.sum()
    tau, norm2 = fairness_direction(K, v)
    projected = project_gram(np.array(K, dtype=np.float64, order="C"), tau, norm2)
    if K_cross is None:
        return projected
    K_cross = np.array(K_cross, dtype=np.float64, order="C")
    # K_crossᵀ (Fortran-ordered view, n × m) gets -τ τ_crossᵀ/‖u‖²: K_cross gets -τ_cross τᵀ/‖u‖².
    updated = blas.dger(-1.0 / norm2, tau, K_cross @ v, a=K_cross.T, overwrite_a=True)
    return projected, updated.T


class FERMFeatures(TransformerMixin, BaseEstimator):
    r"""Explicit kernel features projected onto :math:`u^\perp` (FERM, ε = 0).

    Followed by a linear SVM this is FERM with the kernel approximated by ``n_components``
    features (Donini et al. 2018, eq. (14); Grünewälder & Khaleghi 2021, §6.5, eq. (12)).
    ``fit`` needs ``y`` and ``sensitive_features`` (requested by default under metadata
    routing); ``transform`` does not: the projection is fixed at fit time.

    Parameters
    ----------
    kernel, gamma, degree, coef0, kernel_params
        As :class:`~krepro.fairness.oblivious.ObliviousFeatures` (``gamma``: finite, > 0;
        anything else is an ``InvalidParameterError``).
    n_components : int >= 1, default=100
        Landmarks (Nyström) or random features (RFF).
    approximation : {"nystroem", "rff"}, default="nystroem"
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    feature_map_ : KernelFeatureMap
    n_components_ : int
    direction_ : ndarray of shape ``(n_components_,)`` or None
        :math:`u`: mean feature of the positives of the higher sensitive value minus that of
        the lower one (groups ordered by value, as :class:`~krepro.fairness.ferm.FERMClassifier`:
        numbers first, then strings); ``None`` without sensitive features, or when only one
        group has positives (then a ``UserWarning`` says the constraint is dropped and the
        features are not projected).
    classes_ : ndarray or None
        Classes of ``y``; ``classes_[-1]`` is the positive class of the constraint.
    n_features_in_ : int

    References
    ----------
    M. Donini, L. Oneto, S. Ben-David, J. Shawe-Taylor, M. Pontil. Empirical Risk Minimization
    Under Fairness Constraints. NeurIPS 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.svm import LinearSVC
    >>> from krepro.fairness.ferm_features import FERMFeatures
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 300); X = rng.normal(size=(300, 2)) + s[:, None]
    >>> y = (X[:, 0] > 0.5).astype(int)
    >>> ferm = FERMFeatures(gamma=0.5, n_components=100, random_state=0)
    >>> F = ferm.fit_transform(X, y, sensitive_features=s)
    >>> bool(abs(F[(y == 1) & (s == 1)].mean(0) @ ferm.direction_
    ...          - F[(y == 1) & (s == 0)].mean(0) @ ferm.direction_) < 1e-9)
    True
    """

    __metadata_request__fit = {"sensitive_features": True}  # noqa: RUF012

    _parameter_constraints: ClassVar[dict] = {**KERNEL_CONSTRAINTS, **FEATURE_MAP_CONSTRAINTS}

    def __init__(
        self,
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1.0,
        kernel_params=None,
        n_components=100,
        approximation="nystroem",
        random_state=None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.n_components = n_components
        self.approximation = approximation
        self.random_state = random_state

    def _fit_features(self, X, y, sensitive_features):
        X = validate_data(self, X, dtype=float)
        n = X.shape[0]
        # The groups through the one path of the FERM estimators (labels of any type, a
        # missing value is an error), checked before the feature map is computed.
        s = _groups(sensitive_features, n)
        self.direction_, self.classes_ = None, None
        groups = None
        if s is not None:
            if y is None:
                raise ValueError(
                    "sensitive_features given without y: the FERM direction is the gap between "
                    "the mean features of the positives of the two groups, which needs y."
                )
            check_class_labels(y)  # before numpy turns 1 into '1'
            y = column_or_1d(y, warn=True)
            if y.shape[0] != n:
                raise ValueError(f"y must have one entry per sample ({n}), got shape {y.shape}.")
            y_signed = _binary_targets(self, y)
            groups = _positive_groups(y_signed, s)
        self.feature_map_ = KernelFeatureMap.like(self).fit(X)
        self.n_components_ = self.feature_map_.n_components_
        features = self.feature_map_.transform(X)
        if groups is not None:
            low, high = groups
            self.direction_ = features[high].mean(axis=0) - features[low].mean(axis=0)
        return features

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, *, sensitive_features=None):
        """Draw the feature map from ``X`` and compute the direction :math:`u`.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        y : array-like of shape (n,), default=None
            Binary target; ``classes_[1]`` is the positive class. Required with
            ``sensitive_features``.
        sensitive_features : array-like of shape (n,), default=None
            Binary group of every sample, labels of any type (e.g. ``"Female"``/``"Male"``,
            ordered by value; NaN or None is a ``ValueError``); ``None`` means one group (no
            projection).

        Returns
        -------
        self : FERMFeatures
        """
        self._fit_features(X, y, sensitive_features)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None, *, sensitive_features=None):
        """``fit`` then the projected features of ``X`` (one pass over the feature map)."""
        features = self._fit_features(X, y, sensitive_features)
        if self.direction_ is None:
            return features
        return project_out(features, self.direction_, out=features)

    def transform(self, X):
        """Projected features :math:`P\\tilde\\varphi(x)`, shape ``(n, n_components_)``."""
        check_is_fitted(self, "feature_map_")
        X = validate_data(self, X, dtype=float, reset=False)
        features = self.feature_map_.transform(X)
        if self.direction_ is None:
            return features
        return project_out(features, self.direction_, out=features)
