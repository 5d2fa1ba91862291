r"""Explicit oblivious features: a scikit-learn transformer for large samples.

:class:`~krepro.fairness.oblivious.ObliviousKernel` returns Gram matrices, which cost
:math:`O(n^2)` memory. With an explicit approximate feature map
:math:`\tilde\varphi : \mathcal X \to \mathbb R^D` (Nyström with ``D`` landmarks, Williams &
Seeger 2001, or random Fourier features, Rahimi & Recht 2007) the oblivious feature of the
paper's eq. (9) becomes a vector,

.. math::

    z(x, s) = \tilde\varphi(x) - \hat E[\tilde\varphi(X) \mid S = s] + \hat E[\tilde\varphi(X)],

with the plug-in estimates of §6.1 computed on the fit sample: the cell means
:math:`\hat E[\tilde\varphi(X)|S \in A_a] = \sum_v W_{va}\tilde\varphi(x_v)` (``W`` averages the
fit points of each cell; an empty cell gives 0) and the overall mean. Everything is linear in
:math:`\tilde\varphi`, so :math:`\langle z_i, z_j\rangle` is Algorithm 1's
:math:`O_{ij}` with :math:`k` replaced by :math:`\langle\tilde\varphi(x), \tilde\varphi(x')\rangle`.
With every fit point as a Nyström landmark, :math:`\langle\tilde\varphi(x_u),
\tilde\varphi(x_v)\rangle = k(x_u, x_v)` on the fit points, and the inner products of the fit
points' features equal ``ObliviousKernel(...).fit(X, sensitive_features=S).gram(X, S)``.

Cost: the feature map (``n × D`` kernel evaluations and one ``n × D`` by ``D × D`` product, as
:class:`sklearn.kernel_approximation.Nystroem`) plus :math:`O(nD)` for the cell means; memory
is the ``n × D`` output plus one block of rows.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy import linalg, sparse
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context, clone
from sklearn.kernel_approximation import RBFSampler
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted

from krepro.fairness.conditional import PartitionConditionalMean, make_partition
from krepro.kernel_safety import check_finite
from krepro.kernels import KERNELS, gram, kernel_params
from krepro.validation import (
    POSITIVE_FINITE,
    check_kernel_params,
    check_not_given,
    check_sensitive_features,
    errors_naming,
    validate_data,
)

__all__ = [
    "APPROXIMATIONS",
    "KERNEL_CONSTRAINTS",
    "PARTITION_CONSTRAINTS",
    "VARIANTS",
    "KernelFeatureMap",
    "ObliviousFeatures",
]

APPROXIMATIONS = ("nystroem", "rff")
VARIANTS = ("oblivious", "m_oblivious")

# Constraints of the kernel parameters (the sklearn names), shared by every estimator of
# krepro.fairness built on krepro.kernels.gram. gamma: finite and > 0 (POSITIVE_FINITE).
KERNEL_CONSTRAINTS = {
    "kernel": [StrOptions(set(KERNELS))],
    "gamma": [POSITIVE_FINITE, None],
    "degree": [Interval(Integral, 0, None, closed="left")],  # x**2.5 is NaN for x < 0
    "coef0": [Interval(Real, None, None, closed="neither")],
    "kernel_params": [dict, None],
}
# ... and of the conditional mean of the oblivious estimators. The box and the number of
# cells of a dyadic partition are checked against the data in fit
# (krepro.fairness.conditional.check_partition_bounds, DyadicPartition.fit).
PARTITION_CONSTRAINTS = {
    "partition": [StrOptions({"values", "dyadic"}), HasMethods(["fit", "assign"])],
    "partition_bounds": ["array-like", None],
    "cells_per_axis": [Interval(Integral, 1, None, closed="left")],
    "conditional_mean": [HasMethods(["fit", "membership"]), None],
}
FEATURE_MAP_CONSTRAINTS = {
    "n_components": [Interval(Integral, 1, None, closed="left")],
    "approximation": [StrOptions(set(APPROXIMATIONS))],
    "random_state": ["random_state"],
}
# Rows per block of the feature map: bounds the kernel block in memory (BLOCK_ROWS × D).
BLOCK_ROWS = 4096
# Singular values of the landmark Gram below this are clipped (as sklearn's Nystroem does).
_EIGEN_FLOOR = 1e-12
_HALF_MAX = float(np.finfo(np.float64).max) / 2.0


class KernelFeatureMap(BaseEstimator):
    r"""Approximate feature map :math:`\tilde\varphi` of a kernel (Nyström or RFF).

    Nyström: :math:`\tilde\varphi(x) = K(x, L)\, K(L, L)^{-1/2}` with landmarks ``L`` drawn
    without replacement from the fit points (all of them, in their order, when
    ``n_components >= n``); ``K(L, L)^{-1/2}`` from the SVD with singular values clipped at
    1e-12, as :class:`sklearn.kernel_approximation.Nystroem`. The kernel goes through
    :func:`krepro.kernels.gram`, so every kernel of the project is available. RFF:
    :class:`sklearn.kernel_approximation.RBFSampler` (RBF kernel only).

    Parameters
    ----------
    kernel, gamma, degree, coef0, kernel_params
        As :class:`~krepro.fairness.oblivious.ObliviousKernel` (``gamma``: finite, > 0).
    n_components : int >= 1
        Number of landmarks / random features ``D``.
    approximation : {"nystroem", "rff"}
    random_state : int, RandomState or None

    Attributes
    ----------
    n_components_ : int
        Number of features (Nyström: at most the number of fit points).
    n_features_in_ : int
    landmarks_, landmark_indices_, normalization_ : ndarray
        Nyström: the landmarks, their rows in ``X`` and :math:`K(L, L)^{-1/2}`.
    sampler_ : RBFSampler
        RFF only.
    """

    _parameter_constraints: ClassVar[dict] = {**KERNEL_CONSTRAINTS, **FEATURE_MAP_CONSTRAINTS}

    @classmethod
    def like(cls, estimator):
        """Unfitted feature map with the parameters of ``estimator``.

        ``estimator`` has this map's parameters (``kernel``, ``gamma``, ``degree``,
        ``coef0``, ``kernel_params``, ``n_components``, ``approximation``,
        ``random_state``), as the estimators built on the map do.
        """
        return cls(**{name: getattr(estimator, name) for name in cls._get_param_names()})

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

    def _kernel(self, X, Y=None):
        extra = check_kernel_params(self.kernel_params)
        params = kernel_params(self.kernel, self.gamma, self.degree, self.coef0, extra)
        return gram(X, Y, self.kernel, **params)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw the landmarks (Nyström) or the random frequencies (RFF) from ``X``."""
        n_components = self.n_components
        if isinstance(n_components, bool):
            raise ValueError(f"n_components must be a positive integer, got {n_components!r}.")
        check_kernel_params(self.kernel_params)
        # float64 whatever the input dtype: the frequencies of RBFSampler take X's dtype, and
        # sqrt(2 gamma) overflows float32 long before float64
        with errors_naming("X"):  # numpy's "could not convert string to float"
            X = check_array(X, dtype=np.float64, input_name="X")
        self.n_features_in_ = X.shape[1]
        rng = check_random_state(self.random_state)
        n = X.shape[0]
        if self.approximation == "rff":
            if self.kernel != "rbf":
                raise ValueError(
                    f'approximation="rff" needs kernel="rbf" (random Fourier features of a '
                    f"shift-invariant kernel), got kernel={self.kernel!r}."
                )
            gamma = 1.0 / X.shape[1] if self.gamma is None else self.gamma
            # RBFSampler draws its frequencies as sqrt(2 gamma) N(0, 1); for gamma above half
            # the float64 maximum 2 gamma overflows (infinite frequencies, NaN features), so
            # they are drawn as sqrt(2 gamma / 4) N(0, 1) and doubled (the same law).
            halved = float(gamma) > _HALF_MAX
            self.sampler_ = RBFSampler(
                gamma=gamma / 4.0 if halved else gamma,
                n_components=int(n_components),
                random_state=rng,
            ).fit(X)
            if halved:
                self.sampler_.random_weights_ *= 2.0
            self.n_components_ = int(n_components)
            return self
        if n_components >= n:
            if n_components > n:
                warnings.warn(
                    f"n_components = {n_components} > n_samples = {n}: using every fit point "
                    f"as a landmark (n_components_ = {n}).",
                    UserWarning,
                    stacklevel=3,
                )
            indices = np.arange(n)
        else:
            indices = rng.permutation(n)[:n_components]
        self.landmarks_ = X[indices]
        self.landmark_indices_ = indices
        landmark_gram = self._kernel(self.landmarks_)
        U, singular, Vt = linalg.svd(landmark_gram)
        singular = np.maximum(singular, _EIGEN_FLOOR)
        self.normalization_ = np.dot(U / np.sqrt(singular), Vt).T  # K(L, L)^{-1/2}, symmetric
        self.n_components_ = len(indices)
        return self

    def transform(self, X, out=None):
        r"""Features of ``X``, shape ``(n, n_components_)``, computed in blocks of rows.

        Nyström features are finite for finite inputs of any scale (the kernel values are,
        :mod:`krepro.kernels`). Random Fourier features are :math:`\cos(\omega^\top x + b)`:
        where the projection :math:`\omega^\top x` overflows (inputs or ``gamma`` so large
        that it exceeds ~1.8e308) they do not exist, and a ``ValueError`` names ``X``.
        """
        check_is_fitted(self, "n_components_")
        # float64 whatever the input dtype: the frequencies of RBFSampler take X's dtype, and
        # sqrt(2 gamma) overflows float32 long before float64
        with errors_naming("X"):  # numpy's "could not convert string to float"
            X = check_array(X, dtype=np.float64, input_name="X")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but the feature map was fitted with "
                f"{self.n_features_in_}."
            )
        n = X.shape[0]
        out = np.empty((n, self.n_components_)) if out is None else out
        for start in range(0, n, BLOCK_ROWS):
            rows = slice(start, min(start + BLOCK_ROWS, n))
            if self.approximation == "rff":
                with np.errstate(over="ignore", invalid="ignore"):  # checked below
                    out[rows] = self.sampler_.transform(X[rows])
                check_finite(
                    out[rows],
                    "the random Fourier features of X",
                    ": the projections of X on the random frequencies overflow float64 "
                    f"(largest |X| = {float(np.abs(X[rows]).max()):.3g}); rescale the "
                    "features or lower gamma",
                )
            else:
                np.dot(self._kernel(X[rows], self.landmarks_), self.normalization_, out=out[rows])
        return out


class ObliviousFeatures(TransformerMixin, BaseEstimator):
    r"""Oblivious features :math:`z = \tilde\varphi(x) - \hat E[\tilde\varphi(X)|S=s] +
    \hat E[\tilde\varphi(X)]` in an explicit kernel feature space (paper eq. (9), §6.1).

    ``fit`` estimates the conditional means on the fit sample (the estimation half of the
    paper's Algorithm 1); ``transform`` maps any points with their sensitive features.
    The sensitive features are keyword-only data of ``fit``, ``transform`` and
    ``fit_transform``; with ``sklearn.set_config(enable_metadata_routing=True)`` they are
    requested by default, so a :class:`~sklearn.pipeline.Pipeline` routes them to this step
    in ``fit`` and ``predict``.

    Parameters
    ----------
    kernel : str, default="rbf"
        Kernel name understood by :func:`krepro.kernels.gram`.
    gamma : float, default=None
        RBF / polynomial scale, finite and > 0 (``None``: ``1 / n_features``); 0, negative,
        infinite, NaN or non-numeric values are an ``InvalidParameterError``.
    degree : int >= 0, default=3
    coef0 : float, default=1.0
        Finite.
    kernel_params : dict, default=None
        Further kernel parameters, finite numbers (``gamma``, ``length_scale`` > 0).
    partition : {"values", "dyadic"} or partition object, default="values"
        Cells of the plug-in conditional mean, as
        :class:`~krepro.fairness.oblivious.ObliviousKernel`.
    partition_bounds : (low, high), default=None
        Finite box of the dyadic partition (required with ``partition="dyadic"``).
    cells_per_axis : int >= 1, default=16
        Cells per axis of the dyadic partition; at most 16 cells per fit point in all
        (:data:`krepro.fairness.conditional.MAX_CELLS_PER_SAMPLE`), else ``ValueError``.
    conditional_mean : estimator, default=None
        Estimator of the conditional mean (``fit(S)``, ``weights_``, ``membership``), as
        :class:`~krepro.fairness.oblivious.ObliviousKernel`; one that needs the output Gram
        receives :math:`\tilde\Phi\tilde\Phi^\top` (``m × m``: only for moderate ``m``).
    n_components : int >= 1, default=100
        Landmarks (Nyström) or random features (RFF) ``D``; at most the number of fit points
        for Nyström.
    approximation : {"nystroem", "rff"}, default="nystroem"
    variant : {"oblivious", "m_oblivious"}, default="oblivious"
        What ``fit_transform`` returns: the oblivious features of the fit points
        (``"oblivious"``: a downstream estimator is trained on :math:`z`, the paper's
        oblivious SVM / ORR), or their plain features :math:`\tilde\varphi(x)`
        (``"m_oblivious"``: the estimator is trained on the plain features and applied to
        oblivious features of new points, the M-oblivious predictor of §6.3).
        ``transform`` always returns :math:`z`.
    random_state : int, RandomState or None, default=None
        Landmark / frequency draws.

    Attributes
    ----------
    feature_map_ : KernelFeatureMap
    n_components_ : int
        Dimension ``D`` of the features.
    conditional_mean_ : fitted conditional-mean estimator
    cell_means_ : ndarray of shape ``(n_cells, n_components_)``
        :math:`\hat E[\tilde\varphi(X)|S\in A_a]` (zero row for an empty cell).
    mean_ : ndarray of shape ``(n_components_,)``
        :math:`\hat E[\tilde\varphi(X)]`.
    single_group_ : bool
        Fitted without sensitive features (``z`` = plain features).
    n_features_in_ : int

    References
    ----------
    S. Grünewälder and A. Khaleghi. Oblivious Data for Fairness with Kernels. JMLR 22(208),
    2021, eq. (9), §6.1, §6.3, Algorithm 1. C. Williams and M. Seeger. Using the Nyström
    method to speed up kernel machines. NIPS 2001. A. Rahimi and B. Recht. Random features for
    large-scale kernel machines. NIPS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.fairness.oblivious import ObliviousFeatures
    >>> rng = np.random.default_rng(0)
    >>> S = rng.integers(0, 2, 200); X = S[:, None] + rng.normal(size=(200, 2))
    >>> features = ObliviousFeatures(gamma=0.5, n_components=50, random_state=0)
    >>> Z = features.fit_transform(X, sensitive_features=S)
    >>> Z.shape
    (200, 50)
    >>> bool(np.allclose(Z[S == 0].mean(axis=0), Z[S == 1].mean(axis=0)))
    True
    """

    __metadata_request__fit = {"sensitive_features": True}  # noqa: RUF012
    __metadata_request__transform = {"sensitive_features": True}  # noqa: RUF012

    _parameter_constraints: ClassVar[dict] = {
        **KERNEL_CONSTRAINTS,
        **PARTITION_CONSTRAINTS,
        **FEATURE_MAP_CONSTRAINTS,
        "variant": [StrOptions(set(VARIANTS))],
    }

    def __init__(
        self,
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1.0,
        kernel_params=None,
        partition="values",
        partition_bounds=None,
        cells_per_axis=16,
        conditional_mean=None,
        n_components=100,
        approximation="nystroem",
        variant="oblivious",
        random_state=None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.partition = partition
        self.partition_bounds = partition_bounds
        self.cells_per_axis = cells_per_axis
        self.conditional_mean = conditional_mean
        self.n_components = n_components
        self.approximation = approximation
        self.variant = variant
        self.random_state = random_state

    def _fit_features(self, X, sensitive_features, landmarks):
        """Fit the map and the conditional means; return the plain features of ``X``."""
        X = validate_data(self, X, dtype=float)
        S = check_sensitive_features(sensitive_features, X.shape[0], none_is_one_group=True)
        pool = X
        if landmarks is not None:
            pool = check_array(landmarks, dtype=float, input_name="landmarks", ensure_2d=False)
            if pool.ndim != 2 or pool.shape[1] != X.shape[1]:
                raise ValueError(
                    f"landmarks must be a 2-d array with {X.shape[1]} columns (the features "
                    f"of X), got shape {pool.shape}."
                )
        self.single_group_ = sensitive_features is None
        if self.conditional_mean is None:
            partition = make_partition(
                self.partition, bounds=self.partition_bounds, cells_per_axis=self.cells_per_axis
            )
            estimator = PartitionConditionalMean(partition)
        else:
            estimator = clone(self.conditional_mean)
        if not getattr(estimator, "needs_output_gram", False):
            # the cells first: a bad partition fails before the feature map is computed
            self.conditional_mean_ = estimator.fit(S)
        self.feature_map_ = KernelFeatureMap.like(self).fit(pool)
        self.n_components_ = self.feature_map_.n_components_
        features = self.feature_map_.transform(X)
        if getattr(estimator, "needs_output_gram", False):
            with np.errstate(over="raise", invalid="raise"):
                try:
                    output_gram = features @ features.T
                except FloatingPointError as error:
                    raise ValueError(
                        "X, gamma, coef0: the Gram matrix of the features of X leaves the "
                        f"float64 range ({error}); rescale X or choose a smaller gamma or "
                        "coef0."
                    ) from error
            self.conditional_mean_ = estimator.fit(S, output_gram=output_gram)
        weights = self.conditional_mean_.weights_
        self.cell_means_ = np.asarray(weights.T @ features)  # sparse-aware
        self.mean_ = features.mean(axis=0)
        return features, S

    def _oblivious(self, features, S):
        """In place: ``features − membership(S) · cell_means + mean``."""
        membership = self.conditional_mean_.membership(S)
        if sparse.issparse(membership):
            membership = membership.tocsr()
        # In blocks of rows: no second n × D array.
        for start in range(0, features.shape[0], BLOCK_ROWS):
            rows = slice(start, start + BLOCK_ROWS)
            features[rows] -= membership[rows] @ self.cell_means_
        features += self.mean_
        return features

    @_fit_context(prefer_skip_nested_validation=False)  # conditional_mean: a user estimator
    def fit(self, X, y=None, *, sensitive_features=None, landmarks=None):
        """Draw the feature map and estimate the conditional means on ``X``.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
            Fit (estimation) points; also the landmark pool of the Nyström map unless
            ``landmarks`` is given.
        y : ignored
        sensitive_features : array-like of shape (m,) or (m, d), default=None
            ``None`` means one group (``z`` = plain features).
        landmarks : array-like of shape (p, n_features), default=None
            Pool the Nyström landmarks (RFF: the feature dimension) are drawn from, e.g. the
            learner's and the estimation points together: with every point of the pool a
            landmark, inner products of features of pool points are exact kernel values.

        Returns
        -------
        self : ObliviousFeatures
        """
        self._fit_features(X, sensitive_features, landmarks)
        return self

    @_fit_context(prefer_skip_nested_validation=False)
    def fit_transform(self, X, y=None, *, sensitive_features=None, landmarks=None):
        """``fit`` then the features of the fit points (one pass over the feature map).

        Returns the oblivious features ``z`` (``variant="oblivious"``) or the plain features
        (``variant="m_oblivious"``), shape ``(m, n_components_)``.
        """
        features, S = self._fit_features(X, sensitive_features, landmarks)
        if self.variant == "m_oblivious":
            return features
        return self._oblivious(features, S)

    def _check_sensitive(self, X, sensitive_features):
        if self.single_group_:
            check_not_given(sensitive_features, "sensitive_features")
        elif sensitive_features is None:
            raise ValueError(
                "sensitive_features are required: the transformer was fitted with sensitive "
                "features, so every point needs its own to form its oblivious feature (in a "
                "Pipeline, enable metadata routing and pass sensitive_features to predict)."
            )
        return check_sensitive_features(sensitive_features, X.shape[0], none_is_one_group=True)

    def transform(self, X, *, sensitive_features=None):
        """Oblivious features :math:`z(x, s)` of new points.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        sensitive_features : array-like of shape (n,) or (n, d), default=None
            Required when the transformer was fitted with sensitive features (a value never
            seen in :meth:`fit` is a ``ValueError``); not allowed when it was fitted without
            them.

        Returns
        -------
        Z : ndarray of shape ``(n, n_components_)``
        """
        check_is_fitted(self, "cell_means_")
        X = validate_data(self, X, dtype=float, reset=False)
        S = self._check_sensitive(X, sensitive_features)
        return self._oblivious(self.feature_map_.transform(X), S)

    def plain_transform(self, X):
        r"""Plain approximate features :math:`\tilde\varphi(x)` (no sensitive features)."""
        check_is_fitted(self, "cell_means_")
        X = validate_data(self, X, dtype=float, reset=False)
        return self.feature_map_.transform(X)
