"""The baselines of DCM (:mod:`krepro.dcm`): DICA (Muandet et al. 2013) and COIR."""

from __future__ import annotations

from numbers import Real
from typing import ClassVar

from sklearn.utils._param_validation import Interval

from krepro.dcm.base import _COMMON_DOC, _DomainProjection
from krepro.dcm.core import (
    between_domain_covariance,
    coir_solve,
    dica_solve,
)
from krepro.validation import diagonal_load

__all__ = ["COIR", "DICA"]


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

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.dcm import DICA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); d = np.arange(60) % 3
    >>> y = np.digitize(X[:, 0], [-0.5, 0.5])
    >>> DICA(gamma=0.5).fit(X, y, domains=d).transform(X[:4]).shape
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
        self.eigensolver = eigensolver
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
        lam = diagonal_load(n, self.epsilon, "epsilon") if self.ridge is None else float(self.ridge)
        T_q = between_domain_covariance(fmap.F, domains)
        T_y = B_y = None
        if self.supervised:
            T_y = self._T_y(y, cache, key, landmarks)
            B_y = self._T_y(y, cache, key, landmarks, part="factor")
        return dica_solve(fmap.eigenvalues, T_y, T_q, m, lam, n, self.supervised, factor=B_y)


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
        + r"""
    Examples
    --------
    >>> import numpy as np
    >>> from krepro.dcm import COIR
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); d = np.arange(60) % 3
    >>> y = np.digitize(X[:, 0], [-0.5, 0.5])
    >>> COIR(gamma=0.5).fit(X, y, domains=d).transform(X[:4]).shape
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

    def _solve(self, X, y, domains, cache, key, landmarks, m):
        fmap = self.feature_map_
        T_y = self._T_y(y, cache, key, landmarks)
        B_y = self._T_y(y, cache, key, landmarks, part="factor")
        ridge = diagonal_load(X.shape[0], self.epsilon, "epsilon")
        return coir_solve(fmap.eigenvalues, T_y, m, ridge, factor=B_y)
