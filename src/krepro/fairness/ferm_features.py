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
predictions of the two mostly agree (``tests/test_oblivious_features.py``).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import blas
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import check_is_fitted, validate_data

from krepro.fairness.ferm_dual import fairness_direction, project_gram
from krepro.fairness.oblivious_features import KernelFeatureMap

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
        Binary groups.
    K_cross : ndarray of shape (m, n), default=None
        Kernel between new points and the training points.

    Returns
    -------
    K_projected : ndarray of shape (n, n)
    K_cross_projected : ndarray of shape (m, n), only when ``K_cross`` is given
    """
    y, s = np.asarray(y), np.asarray(sensitive_features)
    positives = y == unique_labels(y)[-1]
    groups = np.unique(s)
    high, low = positives & (s == groups.max()), positives & (s == groups.min())
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
        As :class:`~krepro.fairness.oblivious.ObliviousFeatures`.
    n_components : int, default=100
        Landmarks (Nyström) or random features (RFF).
    approximation : {"nystroem", "rff"}, default="nystroem"
    random_state : int, RandomState or None, default=None

    Attributes
    ----------
    feature_map_ : KernelFeatureMap
    n_components_ : int
    direction_ : ndarray of shape (n_components_,) or None
        :math:`u`: mean feature of the positives of the higher sensitive value minus that of
        the lower one; ``None`` without ``y``, without sensitive features, or when a group
        has no positives (then the features are not projected).
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
        self.feature_map_ = KernelFeatureMap(
            kernel=self.kernel,
            gamma=self.gamma,
            degree=self.degree,
            coef0=self.coef0,
            kernel_params=self.kernel_params,
            n_components=self.n_components,
            approximation=self.approximation,
            random_state=self.random_state,
        ).fit(X)
        self.n_components_ = self.feature_map_.n_components_
        features = self.feature_map_.transform(X)
        self.direction_, self.classes_ = None, None
        if y is None or sensitive_features is None:
            return features
        y = np.asarray(y)
        s = np.asarray(sensitive_features)
        if s.ndim == 2 and s.shape[1] == 1:
            s = s[:, 0]
        if y.shape != (X.shape[0],) or s.shape != (X.shape[0],):
            raise ValueError(
                f"y and sensitive_features must be 1-d with one entry per sample "
                f"({X.shape[0]}), got shapes {y.shape} and {s.shape}."
            )
        self.classes_ = unique_labels(y)
        if len(self.classes_) != 2:
            raise ValueError(
                f"FERM needs a binary target; got {len(self.classes_)} classes "
                f"{self.classes_.tolist()}."
            )
        positives = y == self.classes_[1]
        groups = np.unique(s)
        if len(groups) > 2:
            raise ValueError(
                f"FERM needs a binary sensitive feature; got {len(groups)} distinct values."
            )
        high, low = positives & (s == groups.max()), positives & (s == groups.min())
        if len(groups) == 2 and high.any() and low.any():
            self.direction_ = features[high].mean(axis=0) - features[low].mean(axis=0)
        return features

    def fit(self, X, y=None, *, sensitive_features=None):
        """Draw the feature map from ``X`` and compute the direction :math:`u`.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        y : array-like of shape (n,), default=None
            Binary target; ``classes_[1]`` is the positive class.
        sensitive_features : array-like of shape (n,), default=None
            Binary group of every sample.

        Returns
        -------
        self : FERMFeatures
        """
        self._fit_features(X, y, sensitive_features)
        return self

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
