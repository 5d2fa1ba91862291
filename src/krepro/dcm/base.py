"""Shared machinery of the domain-generalisation transformers (:mod:`krepro.dcm`): input and
label validation, the feature map and its cache, the projection, and the median heuristic."""

from __future__ import annotations

import time
import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.spatial.distance import pdist
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from krepro.dcm.core import (
    DEGENERACY_TOL,
    ExactFeatureMap,
    NystroemFeatureMap,
    output_factor,
    smoother_factor,
    smoother_gram,
)
from krepro.kernel_safety import named_solves
from krepro.spectral import EIGENSOLVERS
from krepro.validation import diagonal_load, encode_labels, label_codes, validate_data

__all__ = ["APPROXIMATIONS", "median_gamma"]

APPROXIMATIONS = ("exact", "nystroem")


SOLVE_ADVICE = "increase epsilon (or ridge), or check X for (nearly) coinciding points."


def median_gamma(values, max_points=2000):
    r"""Median heuristic :math:`\gamma = 1/(2\sigma^2)`, :math:`\sigma` = median distance.

    Uses the first ``max_points`` rows (deterministic) to bound the cost.
    """
    values = np.asarray(values, dtype=float)
    values = values[:, None] if values.ndim == 1 else values
    distances = pdist(values[:max_points])
    sigma = float(np.median(distances[distances > 0])) if np.any(distances > 0) else 1.0
    return 1.0 / (2.0 * sigma**2)


class _DomainProjection(TransformerMixin, BaseEstimator):
    """Shared fit/transform of the kernel domain-generalisation transformers."""

    _supervised = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = self._needs_y()
        return tags

    def _needs_y(self):
        return self._supervised

    # -- parameters -------------------------------------------------------------------
    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "gamma": [Interval(Real, 0, None, closed="neither"), StrOptions({"median"}), None],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "target_kernel": [StrOptions({"delta", "rbf"})],
        "target_gamma": [Interval(Real, 0, None, closed="neither"), None],
        "approximation": [StrOptions(set(APPROXIMATIONS))],
        "n_landmarks": [Interval(Integral, 1, None, closed="left")],
        "center": ["boolean"],
        "rank_tol": [Interval(Real, 0, 1, closed="left")],
        "eigensolver": [StrOptions(set(EIGENSOLVERS))],
        "pinv_tol": [Interval(Real, 0, 1, closed="left")],
        "random_state": ["random_state"],
    }

    def _gamma(self, X):
        if self.gamma == "median":
            return median_gamma(X)
        return 1.0 / X.shape[1] if self.gamma is None else float(self.gamma)

    def _map_key(self, X):
        landmarks = None
        if self.approximation == "nystroem":
            n_landmarks = min(int(self.n_landmarks), X.shape[0])
            rng = check_random_state(self.random_state)
            landmarks = np.sort(rng.permutation(X.shape[0])[:n_landmarks])
        key = (
            self.approximation,
            self._gamma(X),
            self.center,
            self.rank_tol,
            self.pinv_tol,
            None if landmarks is None else landmarks.tobytes(),
            self.eigensolver if self.approximation == "exact" else None,
        )
        return key, landmarks

    def _feature_map(self, X, landmarks, gamma):
        params = {"kernel": "rbf", "gamma": gamma}
        if self.approximation == "exact":
            return ExactFeatureMap(X, params, self.center, self.rank_tol, self.eigensolver)
        return NystroemFeatureMap(X, landmarks, params, self.center, self.rank_tol, self.pinv_tol)

    def _output(self, cache, name, values, kind, gamma, landmarks, F_key, F, part="gram"):
        """``T = Fᵀ S_v F`` for the target (``name="y"``) or domain kernel, cached;
        ``part="factor"``: its low-rank factor B (``T = BBᵀ``) or None
        (:func:`~krepro.dcm.core.smoother_factor`)."""
        key = (name, F_key, kind, gamma, values.tobytes(), self.epsilon)
        if key not in cache:
            factor = output_factor(values, kind, gamma, self.center, landmarks, self.pinv_tol)
            ridge = diagonal_load(F.shape[0], self.epsilon, "epsilon")
            cache[key] = {
                "gram": smoother_gram(F, factor, ridge),
                "factor": smoother_factor(F, factor, ridge),
            }
        return cache[key][part]

    # -- fit / transform --------------------------------------------------------------
    def fit(self, X, y=None, *, domains=None):
        """Fit the projection.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (``target_kernel="delta"``) or real targets (``"rbf"``).
        domains : array-like of shape (n_samples,), default=None
            Domain label of every sample, labels of any hashable type (a missing label is a
            ``ValueError``); ``None`` means one domain.

        Returns
        -------
        self
        """
        return self._fit(X, y, domains, {})

    def _fit(self, X, y, domains, cache):
        self._validate_params()  # here, not in fit: fit_shared calls _fit directly
        # float64, C order: the arithmetic (and so the result) is the same for any input
        # layout or dtype (float32 input enters as its exact float64 values).
        if self._needs_y():
            X, y = validate_data(self, X, y, dtype=np.float64, order="C", ensure_min_samples=2)
        else:
            X = validate_data(self, X, dtype=np.float64, order="C", ensure_min_samples=2)
        n = X.shape[0]
        domains = np.zeros(n, dtype=int) if domains is None else domains
        domains, encoder = encode_labels(domains, n, name="domains")  # codes 0..G-1
        self.n_domains_ = encoder.n_groups_
        key, landmarks = self._map_key(X)
        self.feature_map_key_ = key
        self.gamma_ = key[1]
        if key not in cache:
            start, wall = time.process_time(), time.perf_counter()
            with named_solves("X, epsilon", SOLVE_ADVICE):
                cache[key] = self._feature_map(X, landmarks, self.gamma_)
            cache[("time", key)] = time.process_time() - start
            cache[("wall", key)] = time.perf_counter() - wall
        self.feature_map_ = cache[key]
        self.landmarks_ = landmarks
        self.target_gamma_ = None
        if self._needs_y() and self.target_kernel == "rbf":
            self.target_gamma_ = (
                median_gamma(y) if self.target_gamma is None else float(self.target_gamma)
            )
        F = self.feature_map_.F
        m = min(int(self.n_components), F.shape[1])
        with named_solves("X, epsilon", SOLVE_ADVICE, overflow=True):
            values, W = self._solve(X, y, domains, cache, key, landmarks, m)
        if W.shape[1] < int(self.n_components):
            warnings.warn(
                f"{type(self).__name__}: n_components={self.n_components} but only"
                f" {W.shape[1]} component(s) have a non-degenerate eigenvalue (relative gap >"
                f" {DEGENERACY_TOL:g}; feature-map rank {F.shape[1]}); the rest would be"
                " arbitrary directions of a degenerate eigenspace and are not returned.",
                UserWarning,
                stacklevel=3,
            )
        self.eigenvalues_ = np.asarray(values, dtype=float)
        Z = self._training_projection(X, W)
        sd = Z.std(axis=0)
        sd[sd == 0] = 1.0
        W = W / sd
        Z = Z / sd
        signs = np.sign(Z[np.argmax(np.abs(Z), axis=0), np.arange(Z.shape[1])])
        signs[signs == 0] = 1.0
        self.components_ = W * signs
        self.n_components_ = W.shape[1]
        return self

    def _raw_transform(self, X, W):
        return self.feature_map_.features(X) @ W

    def _training_projection(self, X, W):
        r"""``_raw_transform(X, W)`` of the training points without the :math:`N \times N`
        kernel: ``F W``, as :math:`f(x_i) = F_i` (kernel PCA: :math:`\tilde K U_r
        \Lambda_r^{-1/2} = U_r \Lambda_r^{1/2}` up to round-off; Nyström: the same product).
        """
        return self.feature_map_.F @ W

    def transform(self, X):
        """Project ``X`` onto the learned directions, shape ``(n_samples, n_components_)``."""
        check_is_fitted(self, "components_")
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False)
        return self._raw_transform(X, self.components_)

    def _T_y(self, y, cache, key, landmarks, part="gram"):
        kind = self.target_kernel
        values = label_codes(y, name="y") if kind == "delta" else np.asarray(y, dtype=float)
        F = self.feature_map_.F
        return self._output(cache, "y", values, kind, self.target_gamma_, landmarks, key, F, part)

    def _T_d(self, domains, cache, key, landmarks, part="gram"):
        codes = label_codes(domains, name="domains")
        F = self.feature_map_.F
        return self._output(cache, "d", codes, "delta", None, landmarks, key, F, part)


_COMMON_DOC = """
    n_components : int, default=2
        Number of projection directions ``m``, an upper bound: capped at the rank of the
        feature map and at the informative rank (components with a non-degenerate
        eigenvalue; module docstring), with a warning when fewer are returned.
    gamma : float, "median" or None, default=None
        RBF parameter of the input kernel ``exp(-gamma |x - x'|^2)``; ``None`` means
        ``1 / n_features``, ``"median"`` the median heuristic ``1 / (2 median^2)``.
    epsilon : float, default=1e-3
        Regulariser ε of ``S_v = K_v (K_v + N ε I)^{-1}``.
    target_kernel : {"delta", "rbf"}, default="delta"
        Kernel on y: delta for class labels, RBF for real targets.
    target_gamma : float or None, default=None
        RBF parameter on y; ``None`` means the median heuristic on the training targets.
    approximation : {"exact", "nystroem"}
        Exact kernel PCA or Nyström landmarks (the "fast" versions).
    n_landmarks : int, default=5
        Nyström landmarks ``M``, drawn uniformly without replacement, shared by all kernels.
    center : bool, default=True
        Centre all kernels on the training set.
    rank_tol : float, default=1e-8
        Relative eigenvalue cut-off of the feature map (kernel PCA truncation).
    eigensolver : {"partial", "dense"}, default="partial"
        Kernel PCA (``approximation="exact"``): compute only the eigenvectors kept by
        ``rank_tol`` (:func:`krepro.spectral.top_eigh`) or all of them with one dense
        ``dsyevd`` (the reference path); the same projections up to round-off.
    pinv_tol : float, default=1e-10
        Relative cut-off of the pseudo-inverse of landmark blocks.
    random_state : int, RandomState or None, default=None
        Landmark draw.
"""
