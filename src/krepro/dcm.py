r"""Domain generalisation by kernel dimension reduction: DCM, FastDCM, DICA, COIR.

scikit-learn transformers that learn a projection :math:`z(x) \in \mathbb R^m` from training
data pooled over several domains, for any downstream estimator
(``make_pipeline(DCM(), StandardScaler(), SVC(kernel="linear"))``).

* :class:`DCM` — Domain-based Covariance Minimization (A. Wu, arXiv:2110.06298, eq. (12)):
  the :math:`m` largest generalised eigenvectors of
  :math:`(S_y K_x^2 + K_x)\mathcal B = (S_d K_x^2 + K_x)\mathcal B\Gamma`,
  :math:`S_v = K_v (K_v + N\varepsilon I)^{-1}`. ``regularize=False`` is eq. (12) as printed;
  ``regularize=True`` (default) replaces the implicit :math:`\Sigma_{xx}^{-1}` by
  :math:`(\Sigma_{xx} + \varepsilon I)^{-1}`, i.e. adds :math:`N\varepsilon I` to both sides
  (eq. (12) is ill-posed as printed).
* :class:`FastDCM` — the same problem on Nyström kernels (eqs. (13)–(21)) with ``M``
  landmarks shared by the x, y and domain kernels; ``solver="paper"`` runs eqs. (16)–(21)
  literally (Ω with its extra :math:`+N\varepsilon I_M`), ``solver="reduced"`` the reduced
  form, which equals the paper's steps without that ridge.
* :class:`DICA` — Domain-Invariant Component Analysis (Muandet, Balduzzi & Schölkopf, ICML
  2013), supervised as in ``dica.m``; ``supervised=False`` is unsupervised DICA (``udica.m``).
* :class:`COIR` — Covariance Operator Inverse Regression (Kim & Pavlovic 2008/2011),
  **reconstructed** (no reference code or full text was available; note §5).

All four solve an :math:`r \times r` problem in the coordinates of a feature map
(:mod:`krepro.dcm_core`): kernel PCA of the centred Gram matrix (``approximation="exact"``,
one symmetric eigendecomposition of the :math:`N\times N` matrix, no dense non-symmetric
eigensolver) or Nyström with ``n_landmarks`` landmarks (``approximation="nystroem"``).

Domains
-------
``fit(X, y, *, domains=None)``: ``domains=None`` means a single domain (then the domain term
vanishes: DCM reduces to an inverse-regression problem, DICA to COIR with the ``+K_x`` term).
In a :class:`~sklearn.pipeline.Pipeline`, route the domains either with fit parameters,
``pipe.fit(X, y, dcm__domains=d)``, or with scikit-learn metadata routing
(``sklearn.set_config(enable_metadata_routing=True)``, ``DCM().set_fit_request(domains=True)``,
then ``pipe.fit(X, y, domains=d)``). ``transform`` needs no domains.

Conventions
-------------------------------------
* Kernels are centred on the training set; new points are centred with the *training*
  means (``dica.m`` uses test-batch means, which is transductive).
* Informative rank: only components with a non-degenerate eigenvalue are returned
  (:func:`krepro.dcm_core.informative_top`: the leading eigenvalues separated from their
  neighbours by more than :data:`~krepro.dcm_core.DEGENERACY_TOL` = 1e-6 times the largest).
  Directions inside a degenerate eigenspace are arbitrary (with binary labels and centred
  kernels DCM's second eigenvalue lies in a cluster at 1 of the size of the kernel-PCA rank,
  COIR's in a cluster at 0), so ``n_components_`` can be below ``n_components`` (with a
  warning); DICA keeps at most :math:`\mathrm{rank}(T_y)` components in the same spirit.
  With this rule ``fit``/``transform`` do not depend on the memory layout or dtype of the
  input or on the number of BLAS threads beyond round-off.
* Eigenvector scale is arbitrary: each direction is scaled to unit variance on the training
  set and its sign fixed (largest training projection positive), which makes ``dica.m``'s
  division by :math:`\sqrt{\gamma_l}` unnecessary.
* Pseudo-inverses (rank-:math:`k` :math:`W_k^+`, eq. (14)) for singular landmark blocks.
"""

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
from sklearn.utils.validation import check_is_fitted, validate_data

from krepro.dcm_core import (
    DEGENERACY_TOL,
    ExactFeatureMap,
    NystroemFeatureMap,
    between_domain_covariance,
    coir_solve,
    dcm_solve,
    dica_solve,
    fastdcm_paper,
    output_factor,
    smoother_gram,
)
from krepro.kernels import gram
from krepro.validation import encode_labels, label_codes

__all__ = ["COIR", "DCM", "DICA", "FastDCM", "fit_shared", "median_gamma"]

APPROXIMATIONS = ("exact", "nystroem")


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
        )
        return key, landmarks

    def _feature_map(self, X, landmarks, gamma):
        params = {"kernel": "rbf", "gamma": gamma}
        if self.approximation == "exact":
            return ExactFeatureMap(X, params, self.center, self.rank_tol)
        return NystroemFeatureMap(X, landmarks, params, self.center, self.rank_tol, self.pinv_tol)

    def _output(self, cache, name, values, kind, gamma, landmarks, F_key, F):
        """``T = Fᵀ S_v F`` for the target (``name="y"``) or domain kernel, cached."""
        key = (name, F_key, kind, gamma, values.tobytes(), self.epsilon)
        if key not in cache:
            factor = output_factor(values, kind, gamma, self.center, landmarks, self.pinv_tol)
            cache[key] = smoother_gram(F, factor, F.shape[0] * self.epsilon)
        return cache[key]

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
        Z = self._raw_transform(X, W)
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

    def transform(self, X):
        """Project ``X`` onto the learned directions, shape (n_samples, n_components_)."""
        check_is_fitted(self, "components_")
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False)
        return self._raw_transform(X, self.components_)

    def _T_y(self, y, cache, key, landmarks):
        kind = self.target_kernel
        values = label_codes(y, name="y") if kind == "delta" else np.asarray(y, dtype=float)
        return self._output(
            cache, "y", values, kind, self.target_gamma_, landmarks, key, self.feature_map_.F
        )

    def _T_d(self, domains, cache, key, landmarks):
        codes = label_codes(domains)
        return self._output(cache, "d", codes, "delta", None, landmarks, key, self.feature_map_.F)


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
    pinv_tol : float, default=1e-10
        Relative cut-off of the pseudo-inverse of landmark blocks.
    random_state : int, RandomState or None, default=None
        Landmark draw.
"""


class DCM(_DomainProjection):
    __doc__ = (
        r"""Domain-based Covariance Minimization (Wu 2021, eq. (12)); exact by default.

    Parameters
    ----------"""
        + _COMMON_DOC
        + r"""    regularize : bool, default=True
        ``True``: :math:`(S_y K_x^2 + K_x + N\varepsilon I)\mathcal B =
        \Gamma (S_d K_x^2 + K_x + N\varepsilon I)\mathcal B` (recommended); ``False``:
        eq. (12) exactly as printed.
    scale_n : bool, default=False
        Keep the :math:`1/N` of eq. (10) in front of the S-terms (dropped in eqs. (11)–(12)).
    solver : {"reduced", "paper"}, default="reduced"
        ``"paper"`` (Nyström only): eqs. (16)–(21) literally, Ω including its
        :math:`+N\varepsilon I_M`; ``regularize`` and ``scale_n`` do not apply.

    Attributes
    ----------
    components_ : ndarray of shape (r, n_components_)
        ``z(x) = f(x) @ components_`` with the feature map's ``f``.
    eigenvalues_ : ndarray of shape (n_components_,)
        Largest generalised eigenvalues Γ.
    feature_map_ : ExactFeatureMap or NystroemFeatureMap
    gamma_, target_gamma_ : float
    n_domains_ : int
    landmarks_ : ndarray of int or None
    feature_map_key_ : tuple
        Identifies the feature map (approximation, γ, tolerances, landmarks);
        :func:`fit_shared` shares one map between estimators with the same key.

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.dcm import DCM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); y = (X[:, 0] > 0).astype(int); d = np.arange(60) % 3
    >>> DCM(gamma=0.5).fit(X, y, domains=d).transform(X[:4]).shape
    (4, 2)
    """
    )

    def __init__(
        self,
        n_components=2,
        *,
        gamma=None,
        epsilon=1e-3,
        target_kernel="delta",
        target_gamma=None,
        approximation="exact",
        n_landmarks=5,
        center=True,
        rank_tol=1e-8,
        pinv_tol=1e-10,
        random_state=None,
        regularize=True,
        scale_n=False,
        solver="reduced",
    ):
        self.n_components = n_components
        self.gamma = gamma
        self.epsilon = epsilon
        self.target_kernel = target_kernel
        self.target_gamma = target_gamma
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.center = center
        self.rank_tol = rank_tol
        self.pinv_tol = pinv_tol
        self.random_state = random_state
        self.regularize = regularize
        self.scale_n = scale_n
        self.solver = solver

    _parameter_constraints: ClassVar[dict] = {
        **_DomainProjection._parameter_constraints,
        "regularize": ["boolean"],
        "scale_n": ["boolean"],
        "solver": [StrOptions({"reduced", "paper"})],
    }

    def _solve(self, X, y, domains, cache, key, landmarks, m):
        if self.solver not in ("reduced", "paper"):
            raise ValueError(f"solver must be 'reduced' or 'paper', got {self.solver!r}.")
        fmap = self.feature_map_
        n = X.shape[0]
        if self.solver == "paper":
            if self.approximation != "nystroem":
                raise ValueError("solver='paper' (eqs. 16-21) needs approximation='nystroem'.")
            return self._solve_paper(y, domains, fmap, m)
        T_y = self._T_y(y, cache, key, landmarks)
        T_d = self._T_d(domains, cache, key, landmarks)
        a = 1.0 / n if self.scale_n else 1.0
        rho = n * self.epsilon if self.regularize else 0.0
        return dcm_solve(fmap.eigenvalues, T_y, T_d, m, a=a, rho=rho)

    def _solve_paper(self, y, domains, fmap, m, omega_ridge=True):
        L = fmap.landmarks

        def blocks(values, params):
            values = values[:, None] if values.ndim == 1 else values
            C = gram(values, values[L], **params)
            W = C[L]
            return (C - C.mean(axis=0) if self.center else C), W

        Cx = fmap.C - fmap.column_mean
        if self.target_kernel == "delta":
            Cy, Wy = blocks(label_codes(y).astype(float), {"kernel": "delta"})
        else:
            Cy, Wy = blocks(np.asarray(y, float), {"kernel": "rbf", "gamma": self.target_gamma_})
        Cd, Wd = blocks(label_codes(domains).astype(float), {"kernel": "delta"})
        m = min(m, len(L))
        values, projection = fastdcm_paper(
            Cx, fmap.W, Cy, Wy, Cd, Wd, self.epsilon, m, omega_ridge, self.pinv_tol
        )
        return values, projection

    def _raw_transform(self, X, W):
        if self.solver == "paper":
            return self.feature_map_.landmark_columns(X) @ W
        return super()._raw_transform(X, W)


class FastDCM(DCM):
    __doc__ = r"""FastDCM: DCM on Nyström kernels with ``n_landmarks`` landmarks (eqs. (13)–(21)).

    Identical to ``DCM(approximation="nystroem")``; ``solver="paper"`` runs the paper's
    eqs. (16)–(21) literally. See :class:`DCM` for the parameters.
    """

    def __init__(
        self,
        n_components=2,
        *,
        gamma=None,
        epsilon=1e-3,
        target_kernel="delta",
        target_gamma=None,
        approximation="nystroem",
        n_landmarks=5,
        center=True,
        rank_tol=1e-8,
        pinv_tol=1e-10,
        random_state=None,
        regularize=True,
        scale_n=False,
        solver="reduced",
    ):
        super().__init__(
            n_components,
            gamma=gamma,
            epsilon=epsilon,
            target_kernel=target_kernel,
            target_gamma=target_gamma,
            approximation=approximation,
            n_landmarks=n_landmarks,
            center=center,
            rank_tol=rank_tol,
            pinv_tol=pinv_tol,
            random_state=random_state,
            regularize=regularize,
            scale_n=scale_n,
            solver=solver,
        )


class DICA(_DomainProjection):
    __doc__ = (
        r"""Domain-Invariant Component Analysis (Muandet et al. 2013; ``dica.m``/``udica.m``).

    Supervised: :math:`\tfrac1N S_y K_x^2\mathcal B = (K_xQK_x + K_x + \lambda I)\mathcal B\Gamma`;
    unsupervised: :math:`K_x^2\mathcal B = (K_xQK_x + K_x + \lambda I)\mathcal B\Gamma`, with
    :math:`Q` the distributional-variance matrix (:math:`\mathrm{tr}(KQ)` = variance of the
    domain mean embeddings).

    Parameters
    ----------"""
        + _COMMON_DOC
        + r"""    supervised : bool, default=True
    ridge : float or None, default=None
        λ; ``None`` means :math:`N\varepsilon` (λ = ε under-regularises; note §4).
    """
    )

    def __init__(
        self,
        n_components=2,
        *,
        gamma=None,
        epsilon=1e-3,
        target_kernel="delta",
        target_gamma=None,
        approximation="exact",
        n_landmarks=5,
        center=True,
        rank_tol=1e-8,
        pinv_tol=1e-10,
        random_state=None,
        supervised=True,
        ridge=None,
    ):
        self.n_components = n_components
        self.gamma = gamma
        self.epsilon = epsilon
        self.target_kernel = target_kernel
        self.target_gamma = target_gamma
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.center = center
        self.rank_tol = rank_tol
        self.pinv_tol = pinv_tol
        self.random_state = random_state
        self.supervised = supervised
        self.ridge = ridge

    _parameter_constraints: ClassVar[dict] = {
        **_DomainProjection._parameter_constraints,
        "supervised": ["boolean"],
        "ridge": [Interval(Real, 0, None, closed="left"), None],
    }

    def _needs_y(self):
        return bool(self.supervised)

    def _solve(self, X, y, domains, cache, key, landmarks, m):
        fmap = self.feature_map_
        n = X.shape[0]
        lam = n * self.epsilon if self.ridge is None else float(self.ridge)
        T_q = between_domain_covariance(fmap.F, domains)
        T_y = self._T_y(y, cache, key, landmarks) if self.supervised else None
        return dica_solve(fmap.eigenvalues, T_y, T_q, m, lam, n, self.supervised)


class COIR(_DomainProjection):
    __doc__ = (
        r"""Covariance Operator Inverse Regression (Kim & Pavlovic) — **reconstructed**.

    :math:`(K_x + N\varepsilon I)^{-1} S_y K_x\beta = \lambda\beta`: the
    kernel inverse-regression eigenproblem without slicing. No reference implementation or
    full text was available to check the placement of the regulariser; domains are ignored
    (COIR is DICA's single-domain special case).

    Parameters
    ----------"""
        + _COMMON_DOC
    )

    def __init__(
        self,
        n_components=2,
        *,
        gamma=None,
        epsilon=1e-3,
        target_kernel="delta",
        target_gamma=None,
        approximation="exact",
        n_landmarks=5,
        center=True,
        rank_tol=1e-8,
        pinv_tol=1e-10,
        random_state=None,
    ):
        self.n_components = n_components
        self.gamma = gamma
        self.epsilon = epsilon
        self.target_kernel = target_kernel
        self.target_gamma = target_gamma
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.center = center
        self.rank_tol = rank_tol
        self.pinv_tol = pinv_tol
        self.random_state = random_state

    def _solve(self, X, y, domains, cache, key, landmarks, m):
        fmap = self.feature_map_
        T_y = self._T_y(y, cache, key, landmarks)
        return coir_solve(fmap.eigenvalues, T_y, m, X.shape[0] * self.epsilon)


def fit_shared(estimators, X, y=None, *, domains=None, cache=None):
    """Fit several transformers on the same data, sharing feature maps and smoother Grams.

    Estimators with the same input kernel, approximation and landmarks share one feature
    map (one kernel PCA); those with the same target kernel share :math:`T_y`. Pass the same
    ``cache`` dict to several calls on the same ``X`` (e.g. two targets) to share across them.

    Returns
    -------
    list of (estimator, cpu_seconds, wall_seconds)
        Process and wall time of the estimator's own fit **plus** the full cost of a shared
        feature map computed earlier — what a stand-alone ``fit`` costs, up to the (small)
        cached smoother Gram.
    """
    cache = {} if cache is None else cache
    out = []
    for estimator in estimators:
        before = {k for k in cache if isinstance(k, tuple) and k and k[0] in ("time", "wall")}
        start, wall = time.process_time(), time.perf_counter()
        estimator._fit(X, y, domains, cache)
        cpu, wall = time.process_time() - start, time.perf_counter() - wall
        key = estimator.feature_map_key_
        if ("time", key) in before:
            cpu += cache[("time", key)]
            wall += cache[("wall", key)]
        out.append((estimator, cpu, wall))
    return out
