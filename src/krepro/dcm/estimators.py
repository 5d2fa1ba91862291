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
(:mod:`krepro.dcm.core`): kernel PCA of the centred Gram matrix (``approximation="exact"``:
one Householder tridiagonalisation of the :math:`N\times N` matrix and only the eigenvectors
kept by ``rank_tol``, :func:`krepro.spectral.top_eigh`; ``eigensolver="dense"`` is one full
``dsyevd``; no dense non-symmetric eigensolver) or Nyström with ``n_landmarks`` landmarks
(``approximation="nystroem"``).

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
  (:func:`krepro.dcm.core.informative_top`: the leading eigenvalues separated from their
  neighbours by more than :data:`~krepro.dcm.core.DEGENERACY_TOL` = 1e-6 times the largest).
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
from typing import ClassVar

import numpy as np
from sklearn.utils._param_validation import StrOptions

from krepro.dcm.base import _COMMON_DOC, APPROXIMATIONS, _DomainProjection, median_gamma
from krepro.dcm.baselines import COIR, DICA
from krepro.dcm.core import (
    dcm_solve,
    fastdcm_paper,
    kernel_block,
)
from krepro.validation import diagonal_load, label_codes

__all__ = ["APPROXIMATIONS", "COIR", "DCM", "DICA", "FastDCM", "fit_shared", "median_gamma"]


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
    components_ : ndarray of shape ``(r, n_components_)``
        ``z(x) = f(x) @ components_`` with the feature map's ``f``.
    eigenvalues_ : ndarray of shape ``(n_components_,)``
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
    >>> X = rng.normal(size=(60, 3)); d = np.arange(60) % 3
    >>> y = np.digitize(X[:, 0], [-0.5, 0.5])  # three classes: up to two components
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
        eigensolver="partial",
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
        self.eigensolver = eigensolver
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
        rho = diagonal_load(n, self.epsilon, "epsilon") if self.regularize else 0.0
        factors = (
            self._T_y(y, cache, key, landmarks, part="factor"),
            self._T_d(domains, cache, key, landmarks, part="factor"),
        )
        return dcm_solve(fmap.eigenvalues, T_y, T_d, m, a=a, rho=rho, factors=factors)

    def _solve_paper(self, y, domains, fmap, m, omega_ridge=True):
        L = fmap.landmarks

        def blocks(values, params):
            values = values[:, None] if values.ndim == 1 else values
            C = kernel_block(values, values[L], **params)
            W = C[L]
            return (C - C.mean(axis=0) if self.center else C), W

        Cx = fmap.C - fmap.column_mean
        if self.target_kernel == "delta":
            Cy, Wy = blocks(label_codes(y, name="y").astype(float), {"kernel": "delta"})
        else:
            Cy, Wy = blocks(np.asarray(y, float), {"kernel": "rbf", "gamma": self.target_gamma_})
        Cd, Wd = blocks(label_codes(domains, name="domains").astype(float), {"kernel": "delta"})
        m = min(m, len(L))
        values, projection = fastdcm_paper(
            Cx, fmap.W, Cy, Wy, Cd, Wd, self.epsilon, m, omega_ridge, self.pinv_tol
        )
        return values, projection

    def _raw_transform(self, X, W):
        if self.solver == "paper":
            return self.feature_map_.landmark_columns(X) @ W
        return super()._raw_transform(X, W)

    def _training_projection(self, X, W):
        if self.solver == "paper":
            return self._raw_transform(X, W)
        return super()._training_projection(X, W)


class FastDCM(DCM):
    __doc__ = r"""FastDCM: DCM on Nyström kernels with ``n_landmarks`` landmarks (eqs. (13)–(21)).

    Identical to ``DCM(approximation="nystroem")``; ``solver="paper"`` runs the paper's
    eqs. (16)–(21) literally. See :class:`DCM` for the parameters.

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.dcm import FastDCM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); d = np.arange(60) % 3
    >>> y = np.digitize(X[:, 0], [-0.5, 0.5])
    >>> fast = FastDCM(n_landmarks=30, gamma=0.5, random_state=0)
    >>> fast.fit(X, y, domains=d).transform(X[:4]).shape
    (4, 2)
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
        eigensolver="partial",
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
            eigensolver=eigensolver,
            pinv_tol=pinv_tol,
            random_state=random_state,
            regularize=regularize,
            scale_n=scale_n,
            solver=solver,
        )


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
