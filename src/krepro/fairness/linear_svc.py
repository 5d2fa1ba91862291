r"""Soft-margin SVM solved exactly in the primal, for low-rank (precomputed) kernels.

libsvm's C-SVM solves

.. math:: \min_{w, b}\ \tfrac12\lVert w\rVert^2
          + C \sum_{i=1}^n \max\bigl(0, 1 - y_i(\langle w, z_i\rangle + b)\bigr),
          \qquad y_i \in \{-1, 1\},

(the intercept is not penalised) through its n-variable dual, by SMO to a KKT tolerance of
1e-3. When the data overlap and C is large, SMO needs millions of iterations, and where it
stops its objective can be well above the optimum. The oblivious SVM of the students
experiment is such a case: its linear oblivious Gram matrix has rank ≤ d + 1 (d = 2), and at
the authors' C = 2¹⁶ libsvm takes 24 million iterations (≈ 8 CPU-s) and stops 3 % above the
optimum, with a non-constant classifier, while the optimum is the constant one
(:math:`w \approx 0`). With a factor :math:`K = ZZ^\top` of rank r the primal is a small
sparse QP in :math:`(w, b, \xi) \in \mathbb R^{r + 1 + n}`: objective
:math:`\tfrac{1}{2C}\lVert w\rVert^2 + \mathbf 1^\top\xi` (divided by C for scaling),
constraints :math:`y_i(\langle w, z_i\rangle + b) \ge 1 - \xi_i`, :math:`\xi \ge 0`, solved
by an interior-point method (PIQP, through :mod:`qpsolvers`) in milliseconds.

* :class:`LinearHingeSVC` — the estimator on explicit features.
* :func:`gram_factor` — the numerical-rank factor :math:`Z` of a precomputed Gram matrix and
  the matching features of the rows of a cross-Gram matrix, so that an SVM on
  ``(gram, cross_gram)`` equals :class:`LinearHingeSVC` on ``(Z, Z_cross)``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted

from krepro.fairness.slack_qp import solve_slack_qp
from krepro.spectral import top_eigh
from krepro.validation import (
    POSITIVE_FINITE,
    check_class_labels,
    errors_naming,
    validate_data,
)

__all__ = ["LinearHingeSVC", "gram_factor", "hinge_svm_objective"]


def hinge_svm_objective(w, b, Z, y_signed, C):
    r"""Primal objective :math:`\tfrac12\lVert w\rVert^2 + C\sum_i \max(0, 1 - y_i(\langle w,
    z_i\rangle + b))` with labels :math:`y_i \in \{-1, 1\}` (module docstring)."""
    margin = np.asarray(y_signed, dtype=float) * (np.asarray(Z, dtype=float) @ w + b)
    return 0.5 * float(w @ w) + C * float(np.maximum(1.0 - margin, 0.0).sum())


def gram_factor(gram, cross_gram=None, *, rank_tol=1e-10, max_rank=None):
    r"""Factor :math:`K = ZZ^\top` of a PSD Gram matrix at its numerical rank.

    Parameters
    ----------
    gram : ndarray of shape (n, n)
        Symmetric positive semi-definite kernel matrix of the training points.
    cross_gram : ndarray of shape (m, n), optional
        Kernel values between m further points and the training points; their features are
        :math:`K_{\times} U \Lambda^{-1/2}` (exact when they lie in the span of the training
        points' features, as for any finite-dimensional kernel).
    rank_tol : float, default=1e-10
        Eigenvalues at or below ``rank_tol`` times the largest are dropped.
    max_rank : int, optional
        Raise if the numerical rank exceeds this (the primal is then no longer small).

    Returns
    -------
    Z : ndarray of shape (n, r)
    Z_cross : ndarray of shape (m, r), only if ``cross_gram`` is given
    """
    values, vectors = top_eigh(np.asarray(gram, dtype=float), rank_tol)
    if max_rank is not None and len(values) > max_rank:
        raise ValueError(
            f"the Gram matrix has numerical rank {len(values)} > max_rank = {max_rank}."
        )
    root = np.sqrt(values)
    Z = vectors * root
    if cross_gram is None:
        return Z
    return Z, (np.asarray(cross_gram, dtype=float) @ vectors) / root


class LinearHingeSVC(ClassifierMixin, BaseEstimator):
    r"""Binary soft-margin linear SVM, solved exactly in the primal (module docstring).

    The problem of ``sklearn.svm.SVC(kernel="linear", C=C)`` (unpenalised intercept, no class
    weights); unlike ``LinearSVC`` it does not penalise the intercept.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the hinge loss (libsvm's ``C``), finite and > 0.
    tol : float, default=1e-9
        Absolute and relative residual tolerance of the interior-point solver, finite, > 0.
    solver : str, default="piqp"
        A sparse QP solver known to :mod:`qpsolvers`.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (n_features,)
        Decision function :math:`\langle w, x\rangle + b`; positive means ``classes_[1]``.
    intercept_ : float
    objective_ : float
        The primal objective at the solution.

    Examples
    --------
    >>> import numpy as np
    >>> from krepro import LinearHingeSVC
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 2)); y = (X[:, 0] - X[:, 1] > 0).astype(int)
    >>> clf = LinearHingeSVC(C=1.0).fit(X, y)
    >>> clf.score(X, y), clf.coef_.shape
    (1.0, (2,))
    """

    _parameter_constraints: ClassVar[dict] = {
        "C": [POSITIVE_FINITE],
        "tol": [POSITIVE_FINITE],
        "solver": [str],
    }

    def __init__(self, C=1.0, *, tol=1e-9, solver="piqp"):
        self.C = C
        self.tol = tol
        self.solver = solver

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Solve the primal QP on ``X`` (n_samples, n_features) and binary labels ``y``."""
        check_class_labels(y)  # before numpy turns 1 into '1'
        X, y = validate_data(self, X, y, dtype=float)
        with errors_naming("y"):  # scikit-learn's "Unknown label type: continuous"
            check_classification_targets(y)
            y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type != "binary":
            raise ValueError(
                f"y: Only binary classification is supported. The type of the target is {y_type}."
            )
        self.classes_, encoded = np.unique(y, return_inverse=True)
        if len(self.classes_) != 2:
            raise ValueError(f"LinearHingeSVC needs two classes; y has {len(self.classes_)} class.")
        signed = 2.0 * encoded - 1.0
        n, d = X.shape
        G = sparse.hstack(
            [sparse.csc_array(-signed[:, None] * X), -signed[:, None], -sparse.identity(n)],
            "csc",
        )
        self.coef_, self.intercept_ = solve_slack_qp(
            d,
            G,
            -np.ones(n),
            norm_divisor=self.C,
            slack_cost=1.0,
            solver=self.solver,
            tol=self.tol,
        )
        self.objective_ = hinge_svm_objective(self.coef_, self.intercept_, X, signed, self.C)
        return self

    def decision_function(self, X):
        r""":math:`\langle w, x\rangle + b` for each row of ``X``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=float, reset=False)
        return X @ self.coef_ + self.intercept_

    def predict(self, X):
        """``classes_[1]`` where the decision function is positive, else ``classes_[0]``."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]
