r"""Conditional mean embeddings: regression with values in a reproducing-kernel Hilbert space.

The conditional mean embedding of :math:`Y` given :math:`X = x` in the output RKHS
:math:`\mathcal H_l` (feature map :math:`\psi`, kernel :math:`l`) is estimated by the
regularised least-squares solution of the vector-valued regression of :math:`\psi(Y)` on
:math:`X` (operator-valued kernel :math:`k(x, x') I_{\mathcal H_l}`):

.. math::

    \hat\mu_{Y\mid x} = \sum_{i=1}^n \alpha_i(x)\, \psi(y_i), \qquad
    \alpha(x) = (K + n\lambda I_n)^{-1} k_x,

equivalently :math:`\hat C_{YX}(\hat C_{XX} + \lambda I)^{-1}\varphi(x)` with the empirical
covariance operators :math:`\hat C = \frac1n\sum_i \cdot\otimes\cdot`.

**Convention.** ``alpha`` is the :math:`\lambda` of these formulas: the linear system is
:math:`K + n\lambda I` (the factor :math:`n` comes from the :math:`1/n` of the empirical
covariances). :class:`sklearn.kernel_ridge.KernelRidge` solves :math:`K + \alpha' I`, so the
two agree for :math:`\alpha' = n\lambda`.

**Pitfall.** The weights :math:`\alpha_i(x)` are *not* probabilities: nothing makes them
non-negative or sum to one. Ridge shrinkage changes their sum and kernel interpolation can
make some of them negative; :meth:`ConditionalMeanEmbedding.category_scores` inherits both.

:class:`CMEConditionalMean` plugs the same estimator into :mod:`krepro.fairness.oblivious` as an
estimator of :math:`E[\varphi(X) \mid S = s] \approx \sum_v \alpha_v(s)\varphi(x_v)` for
continuous (and multi-dimensional) sensitive features, where partitions scale badly with
the dimension of S.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy import linalg, sparse
from scipy.linalg import lapack
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted

from krepro.kernels import KERNELS, gram, kernel_params
from krepro.validation import (
    POSITIVE_FINITE,
    check_continuous,
    check_kernel_params,
    check_sensitive_features,
    check_values,
    diagonal_load,
    encode_labels,
    errors_naming,
    validate_data,
)

_KERNEL = [StrOptions(set(KERNELS))]
_SCALE = [POSITIVE_FINITE, None]  # finite and > 0: inf, NaN, 0 are refused
_LAMBDA = [POSITIVE_FINITE]

__all__ = ["CMEConditionalMean", "ConditionalMeanEmbedding"]


class ConditionalMeanEmbedding(BaseEstimator):
    r"""Conditional mean embedding :math:`\hat\mu_{Y|x} = \sum_i \alpha_i(x)\psi(y_i)`.

    Parameters
    ----------
    kernel : str, default="rbf"
        Input kernel :math:`k` (any name of :func:`krepro.kernels.gram`).
    gamma, degree, coef0, kernel_params
        Input-kernel parameters, scikit-learn names (``gamma`` finite and > 0; the entries
        of ``kernel_params`` finite numbers).
    output_kernel : {"linear", "rbf", "delta", ...}, default="rbf"
        Output kernel :math:`l`. ``"linear"`` embeds only the mean of a real Y; ``"rbf"``
        (characteristic) embeds the whole law; ``"delta"`` on a finite Y gives category
        weights.
    output_gamma : float, default=None
        Output RBF/polynomial scale, finite and > 0.
    output_kernel_params : dict, default=None
        Further output-kernel parameters, finite numbers.
    alpha : float > 0, default=1.0
        :math:`\lambda` of :math:`\alpha(x) = (K + n\lambda I)^{-1}k_x` (so the diagonal load is
        ``n * alpha``; ``KernelRidge(alpha=n * alpha)`` solves the same system).

    Attributes
    ----------
    X_fit_ : ndarray of shape (n, n_features)
    Y_fit_ : ndarray of shape (n,) or (n, n_outputs)
        Observed responses (their feature vectors :math:`\psi(y_i)` carry the embedding).
    cholesky_ : tuple
        Cholesky factor of :math:`K + n\lambda I` (``scipy.linalg.cho_factor`` output).
    classes_ : ndarray
        Distinct responses, for :meth:`category_scores`.

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.cme import ConditionalMeanEmbedding
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(200, 1)); Y = rng.normal(size=200) * (1 + X[:, 0])
    >>> cme = ConditionalMeanEmbedding(gamma=10.0, output_gamma=1.0, alpha=1e-3).fit(X, Y)
    >>> cme.weights(X[:3]).shape
    (3, 200)
    """

    def __init__(
        self,
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1.0,
        kernel_params=None,
        output_kernel="rbf",
        output_gamma=None,
        output_kernel_params=None,
        alpha=1.0,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.output_kernel = output_kernel
        self.output_gamma = output_gamma
        self.output_kernel_params = output_kernel_params
        self.alpha = alpha

    _parameter_constraints: ClassVar[dict] = {
        "kernel": _KERNEL,
        "gamma": _SCALE,
        "degree": [Interval(Integral, 0, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "kernel_params": [dict, None],
        "output_kernel": _KERNEL,
        "output_gamma": _SCALE,
        "output_kernel_params": [dict, None],
        "alpha": _LAMBDA,
    }

    def _input_kernel(self, A, B=None):
        extra = check_kernel_params(self.kernel_params)
        params = kernel_params(self.kernel, self.gamma, self.degree, self.coef0, extra)
        return gram(A, B, self.kernel, **params)

    def _output_kernel(self, A, B=None):
        params = kernel_params(
            self.output_kernel,
            self.output_gamma,
            self.degree,
            self.coef0,
            check_kernel_params(self.output_kernel_params, name="output_kernel_params"),
        )
        return gram(A, B, self.output_kernel, **params)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Factorise :math:`K + n\\lambda I` for the training inputs ``X``; keep ``y``.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
        y : array-like of shape (n,) or (n, n_outputs)
            Responses; any values the output kernel accepts (labels of the delta kernel may
            be strings or objects; a missing one, NaN or None, is a ``ValueError``).

        Returns
        -------
        self : ConditionalMeanEmbedding
        """
        X, y = validate_data(self, X, y, multi_output=True)
        check_kernel_params(self.output_kernel_params, name="output_kernel_params")
        n = X.shape[0]
        if self.output_kernel != "delta" and y.dtype.kind not in "biuf":
            with errors_naming("y"):  # numbers for the output kernel, checked here
                check_array(y, ensure_2d=False, dtype=np.float64, input_name="y")
        if y.dtype.kind == "O":
            # Labels (e.g. for the delta output kernel): a missing one is an error naming y,
            # and mixed numbers and strings are ordered as the group encoder orders them.
            check_sensitive_features(y, n, name="y")
            groups = encode_labels(y, n, name="y")[1].groups_
            classes = groups if y.ndim > 1 else groups[:, 0]
        else:
            classes = np.unique(y, axis=0) if y.ndim > 1 else np.unique(y)
        system = self._input_kernel(X)
        system[np.diag_indices_from(system)] += diagonal_load(n, self.alpha, "alpha")
        try:
            self.cholesky_ = linalg.cho_factor(system, lower=True)
        except linalg.LinAlgError as error:
            raise ValueError(
                f"K(X, X) + n * alpha * I is not positive definite in floating point (alpha = "
                f"{self.alpha:g}): increase alpha, or check the kernel on X (the scale of X, "
                f"coef0 >= 0 for 'poly')."
            ) from error
        self.X_fit_ = X
        self.Y_fit_ = y
        self.classes_ = classes
        return self

    def weights(self, X):
        r"""Weights :math:`\alpha(x) = (K + n\lambda I)^{-1}k_x`, one row per query point.

        Returns
        -------
        W : ndarray of shape (n_queries, n)
            Not constrained to be non-negative or to sum to one.
        """
        check_is_fitted(self, "cholesky_")
        X = validate_data(self, X, reset=False)
        return _finite(linalg.cho_solve(self.cholesky_, self._input_kernel(self.X_fit_, X)).T)

    def embedding(self, X, Y_eval):
        r"""Predicted embedding evaluated at output points, :math:`\hat\mu_{Y|x}(y')`.

        :math:`\hat\mu_{Y|x}(y') = \langle \hat\mu_{Y|x}, \psi(y')\rangle =
        \sum_i \alpha_i(x)\, l(y_i, y')`.

        Returns
        -------
        values : ndarray of shape (n_queries, n_eval)
        """
        weights = self.weights(X)
        with np.errstate(over="ignore", invalid="ignore"):
            return _finite(weights @ self._output_kernel(self.Y_fit_, Y_eval))

    def embedding_inner(self, X_a, X_b):
        r""":math:`\langle \hat\mu_{Y|a_i}, \hat\mu_{Y|b_j}\rangle = \alpha(a_i)^\top L\,
        \alpha(b_j)`, with :math:`L` the output Gram matrix of the training responses."""
        L = self._output_kernel(self.Y_fit_)
        weights_a, weights_b = self.weights(X_a), self.weights(X_b)
        with np.errstate(over="ignore", invalid="ignore"):
            return _finite(weights_a @ L @ weights_b.T)

    def predict_mean(self, X):
        r"""Conditional mean :math:`\sum_i \alpha_i(x) y_i` (the embedding under ``"linear"``).

        Equals ``KernelRidge(alpha=n * self.alpha)`` fitted on the same data.
        """
        if self.output_kernel != "linear":
            raise ValueError(
                f'predict_mean needs output_kernel="linear" (the embedding of the mean); '
                f"got {self.output_kernel!r}."
            )
        weights = self.weights(X)
        with np.errstate(over="ignore", invalid="ignore"):
            return _finite(weights @ np.asarray(self.Y_fit_, dtype=float))

    def category_scores(self, X):
        r"""Category weights :math:`\sum_i \alpha_i(x)\,1\{y_i = c\}` for each class ``c``.

        This is the embedding under the delta output kernel, evaluated at each class.
        **These scores are not probabilities**: they can be negative and need not sum to
        one (their sum is :math:`\sum_i \alpha_i(x)`, which tends to 1 only as
        :math:`\lambda \to 0` for points well inside the data, and to 0 as
        :math:`\lambda \to \infty`).

        Returns
        -------
        scores : ndarray of shape (n_queries, n_classes)
            Columns follow ``classes_``.
        """
        weights = self.weights(X)
        y = self.Y_fit_
        with np.errstate(over="ignore", invalid="ignore"):
            return _finite(weights @ gram(y, self.classes_, "delta"))


def _finite(values):
    """``values``, or a ``ValueError`` where the result has left the float64 range."""
    if not np.all(np.isfinite(values)):
        raise ValueError(
            "X, y: the result leaves the float64 range at this scale of X and y (the weights "
            "(K + n alpha I)^-1 k_x or their products with y overflow); rescale X and y, or "
            "increase alpha."
        )
    return values


def _range_eigenpairs(K):
    r"""Eigenvalues (clipped at 0) and eigenvectors of the numerical range of a PSD matrix.

    Smooth kernels on low-dimensional inputs have a numerical rank :math:`r` far below
    :math:`m` (an RBF Gram of 1600 points on :math:`[0, 1]` has :math:`r \approx 30`). A
    pivoted Cholesky factorisation (LAPACK ``dpstrf``) stopped when every remaining pivot is
    below one rounding unit of the largest diagonal entry gives :math:`K = F F^\top + R`
    with :math:`\operatorname{tr} R \le m\,\epsilon \max_i K_{ii}`, below the rounding
    error of a full eigendecomposition; the thin SVD of :math:`F` gives the :math:`r`
    eigenpairs, in :math:`O(m r^2)` instead of :math:`O(m^3)`. The other eigenvalues are 0.
    When :math:`r > m / 2` the full ``eigh`` is used (all :math:`m` pairs).

    Returns
    -------
    eigenvalues : ndarray of shape (r,)
    eigenvectors : ndarray of shape (m, r)
        Orthonormal columns.
    """
    m = len(K)
    tol = np.finfo(float).eps * max(float(np.max(np.diag(K), initial=0.0)), 0.0)
    factor, pivots, rank, info = lapack.dpstrf(K, lower=1, tol=tol)
    if info < 0 or rank > m // 2:
        eigenvalues, eigenvectors = linalg.eigh(K)
        return np.clip(eigenvalues, 0.0, None), eigenvectors
    F = np.empty((m, rank))
    F[pivots - 1] = np.tril(factor[:, :rank])  # Pᵀ K P = L Lᵀ (pivots are 1-based)
    vectors, singular, _ = linalg.svd(F, full_matrices=False)
    return singular**2, vectors


class CMEConditionalMean(BaseEstimator):
    r"""Kernel (CME) estimator of :math:`E[\varphi(X) \mid S]` for :mod:`krepro.fairness.oblivious`.

    :math:`E[\varphi(X)\mid S = s] \approx \sum_{v=1}^m \alpha_v(s)\varphi(x_v)` with
    :math:`\alpha(s) = (K_S + m\lambda I)^{-1} k_S(s)` computed on the sensitive features of
    the estimation sample. In the factorisation used by
    :class:`~krepro.fairness.oblivious.ObliviousKernel` the "cells" are the estimation points
    themselves: ``weights_`` is the identity and ``membership(S)`` returns
    :math:`\alpha(s)^\top`, so the oblivious Gram is still formed from kernel evaluations only.

    Parameters
    ----------
    kernel : str, default="rbf"
        Kernel on the sensitive features.
    gamma : float, default=None
        Its scale (scikit-learn convention), finite and > 0.
    alpha : float > 0, default=1e-3
        :math:`\lambda` (diagonal load :math:`m\lambda`), used when ``alphas`` is None.
    alphas : sequence of float, default=None
        Grid of finite :math:`\lambda > 0` to choose from by generalised cross-validation of the
        vector-valued regression of :math:`\varphi(X)` on S,
        :math:`\mathrm{GCV}(\lambda) = m\,\lVert (I - H_\lambda)\Phi\rVert^2 /
        \operatorname{tr}(I - H_\lambda)^2` with :math:`H_\lambda = K_S(K_S + m\lambda I)^{-1}`;
        the residual norm needs only the Gram matrix of the :math:`\varphi(x_v)`, which
        :class:`~krepro.fairness.oblivious.ObliviousKernel` passes as ``output_gram``.
    kernel_params : dict, default=None
        Further kernel parameters, finite numbers.

    Attributes
    ----------
    alpha_ : float
        The :math:`\lambda` used (selected, or ``alpha``).
    gcv_scores_ : ndarray of shape (len(alphas),)
        GCV criterion per grid value (only with ``alphas``).

    Examples
    --------
    Oblivious Gram matrices for a continuous sensitive feature:

    >>> import numpy as np
    >>> from krepro import CMEConditionalMean, ObliviousKernel
    >>> rng = np.random.default_rng(0)
    >>> S = rng.uniform(-1, 1, 300); X = (S + rng.normal(scale=0.5, size=300))[:, None]
    >>> cme = CMEConditionalMean(gamma=2.0, alpha=1e-2)
    >>> ok = ObliviousKernel(kernel="rbf", gamma=1.0, conditional_mean=cme)
    >>> ok = ok.fit(X[150:], sensitive_features=S[150:])
    >>> ok.gram(X[:150], S[:150]).shape
    (150, 150)
    """

    needs_output_gram = True  # ObliviousKernel passes K(est, est) to fit

    def __init__(self, kernel="rbf", gamma=None, alpha=1e-3, alphas=None, kernel_params=None):
        self.kernel = kernel
        self.gamma = gamma
        self.alpha = alpha
        self.alphas = alphas
        self.kernel_params = kernel_params

    _parameter_constraints: ClassVar[dict] = {
        "kernel": _KERNEL,
        "gamma": _SCALE,
        "alpha": _LAMBDA,
        "alphas": ["array-like", None],
        "kernel_params": [dict, None],
    }

    def _embedding(self, alpha):
        return ConditionalMeanEmbedding(
            kernel=self.kernel,
            gamma=self.gamma,
            kernel_params=self.kernel_params,
            output_kernel="linear",
            alpha=alpha,
        )

    def _select_alpha(self, S, output_gram):
        """λ minimising GCV, from the eigenpairs of :math:`K_S` (:func:`_range_eigenpairs`)."""
        try:
            grid = np.asarray(self.alphas, dtype=float)
        except (TypeError, ValueError):
            grid = np.empty(0)  # not numbers: refused below
        if grid.ndim != 1 or len(grid) == 0 or not np.all(np.isfinite(grid) & (grid > 0)):
            raise ValueError(
                f"alphas must be a non-empty 1-d grid of finite positive values, got "
                f"{self.alphas!r}."
            )
        embedding = self._embedding(grid[0])
        K = embedding._input_kernel(S)
        eigenvalues, eigenvectors = _range_eigenpairs(K)
        m = len(S)
        # ‖(I − H)Φ‖²_F = Σ_i d_i² (Vᵀ K_Φ V)_ii with d_i = mλ / (w_i + mλ); on the null
        # space of K_S (w_i = 0) d_i = 1, so those eigenvectors enter only through
        # Σ_null (Vᵀ K_Φ V)_ii = tr K_Φ − Σ_range (Vᵀ K_Φ V)_ii and their number.
        rotated = np.einsum("ij,ij->j", eigenvectors, output_gram @ eigenvectors)
        n_null = m - len(eigenvalues)
        null = float(np.trace(output_gram) - rotated.sum()) if n_null else 0.0
        with np.errstate(under="ignore", invalid="ignore", divide="ignore", over="ignore"):
            shrink = m * grid[:, None] / (eigenvalues[None, :] + m * grid[:, None])
            residual = (shrink**2) @ rotated + null
            scores = m * residual / (shrink.sum(axis=1) + n_null) ** 2
            if n_null == 0:  # where mλ ≪ every eigenvalue the sums underflow (0 / 0):
                share = shrink / shrink.sum(axis=1, keepdims=True)  # the same ratio, scaled
                scores = np.where(np.isfinite(scores), scores, m * (share**2) @ rotated)
        if not np.any(np.isfinite(scores)):
            raise ValueError(
                f"alphas: the GCV criterion is not a number for any value of {self.alphas!r} "
                f"(they are too extreme against the kernel matrix of S)."
            )
        self.gcv_scores_ = scores
        return float(grid[int(np.argmin(np.where(np.isfinite(scores), scores, np.inf)))])

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, S, output_gram=None):
        r"""Factorise the regularised Gram matrix of the estimation sample's S.

        ``output_gram`` (the Gram matrix of :math:`\varphi(x_v)`) is needed only to select
        λ from ``alphas``.
        """
        S = check_continuous(S)
        check_kernel_params(self.kernel_params)
        if self.alphas is not None:
            if output_gram is None:
                raise ValueError("Selecting alpha from alphas needs output_gram (K of the X).")
            output_gram = np.asarray(output_gram, dtype=np.float64)
            if output_gram.shape != (len(S), len(S)):
                raise ValueError(
                    f"output_gram must be the ({len(S)}, {len(S)}) Gram matrix of the rows of "
                    f"sensitive_features (S), got shape {output_gram.shape}."
                )
            self.alpha_ = self._select_alpha(S, output_gram)
        else:
            self.alpha_ = float(self.alpha)
        try:
            self.embedding_ = self._embedding(self.alpha_).fit(S, np.zeros(len(S)))
        except ValueError as error:
            if self.alphas is None:
                raise
            raise ValueError(
                f"alphas: the value selected by GCV, alpha = {self.alpha_:g}, fails: {error}"
            ) from error
        m = len(S)
        self.weights_ = sparse.identity(m, format="csr")
        self.mean_weights_ = np.full(m, 1.0 / m)
        self.n_cells_ = m
        return self

    def membership(self, S):
        r""":math:`\alpha(s)^\top` for each query, shape (n, m)."""
        check_is_fitted(self, "embedding_")
        return self.embedding_.weights(check_continuous(S))

    def conditional_mean(self, values, S):
        r"""Kernel estimate :math:`\sum_v \alpha_v(s) h(x_v)` of :math:`E[h(X)\mid S = s]`."""
        return self.membership(S) @ check_values(values, self.n_cells_)
