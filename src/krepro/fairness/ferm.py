r"""Fair empirical risk minimisation (FERM; Donini, Oneto, Ben-David, Shawe-Taylor, Pontil 2018).

Equal opportunity asks that the true-positive rate be the same in both sensitive groups.
FERM relaxes it to the linear loss: the mean decision value over the positives of each group,

.. math::

    \Bigl|\frac1{|A_1|}\sum_{i\in A_1} f(x_i) - \frac1{|A_0|}\sum_{i\in A_0} f(x_i)\Bigr|
    \le \varepsilon, \qquad A_g = \{i : y_i = +1,\ s_i = g\},

and adds it to the SVM (the constraint discussed in §6.5 of Grünewälder & Khaleghi 2021,
their eq. (12)). Two estimators:

:class:`FERMClassifier` (kernel FERM), two formulations of the same constraint
    ``formulation="exact"`` (default) solves the Lagrangian dual of the constrained SVM
    primal, :math:`\min \tfrac12\lVert w\rVert^2 + C\sum_i \max(0, 1 - y_i f(x_i))` s.t.
    :math:`|\langle w, u\rangle| \le \varepsilon` (:mod:`krepro.fairness.ferm_dual`; for ε = 0
    the SVM dual on the projected kernel :math:`K - \tau\tau^\top/\lVert u\rVert^2`, solved by
    libsvm). ``formulation="donini"`` is Donini et al.'s eq. (14), the plain SVM dual with
    the fairness row added: with :math:`f(x) = \sum_j \alpha_j y_j k(x_j, x) + b` and
    :math:`\tau_j = \mathrm{mean}_{i\in A_1} k(x_i, x_j) - \mathrm{mean}_{i\in A_0} k(x_i, x_j)`,

    .. math::

        \min_\alpha\ \tfrac12 \alpha^\top (yy^\top\circ K)\alpha - 1^\top\alpha
        \quad\text{s.t.}\quad 0\le\alpha\le C,\quad y^\top\alpha = 0,\quad
        \Bigl|\sum_j \alpha_j y_j \tau_j\Bigr| \le \varepsilon .

    This restricts the true dual (the constraint's multiplier is missing), so its primal
    objective is never lower than the exact one; it is what the paper's Table 1 ran.
    ``epsilon=0`` (the reference's choice) is an equality row. The dense QP is solved by
    PIQP's dense interior-point backend through :mod:`qpsolvers` (``benchmarks/ferm.py``
    compares it with the reference's cvxopt formulation and the exact formulation).
:class:`LinearFERM`
    The closed form for the linear kernel: with
    :math:`u = \mathrm{mean}(x\,|\,y=+1, s=s_{\min}) - \mathrm{mean}(x\,|\,y=+1, s=s_{\max})`
    and a coordinate :math:`k` with :math:`u_k \ne 0`, map :math:`x \mapsto x - (x_k/u_k)u`,
    delete coordinate :math:`k` and fit a linear SVM; the resulting weight vector is
    orthogonal to :math:`u` (ε = 0). The SVM is libsvm's (``solver="libsvm"``) or the same
    problem solved to optimality in the primal
    (``solver="exact"``, :class:`~krepro.fairness.linear_svc.LinearHingeSVC`).

Both take the sensitive feature in ``fit(X, y, *, sensitive_features=...)``, so cross-
validation (sklearn metadata routing, or a manual split) slices it per fold — the FERM
reference passes it to the constructor and misaligns it inside ``GridSearchCV``.
``sensitive_features=None`` means one group: no constraint, the plain SVM.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted

from krepro.fairness.ferm_dual import solve_exact_dual, solve_ferm_dual, svm_intercept
from krepro.fairness.linear_svc import LinearHingeSVC
from krepro.kernels import gram, kernel_params
from krepro.validation import (
    POSITIVE_FINITE,
    check_class_labels,
    check_sensitive_features,
    encode_labels,
    errors_naming,
    validate_data,
)

__all__ = ["FERMClassifier", "LinearFERM", "equal_opportunity_gap", "solve_ferm_dual"]

INTERCEPTS = ("free", "all_support")
FORMULATIONS = ("exact", "donini")
SELECTIONS = ("argmax_abs", "argmax")
LINEAR_SOLVERS = ("libsvm", "exact")


def _binary_targets(estimator, y):
    """Set ``classes_`` and return y as ±1 (+1 = ``classes_[1]``, the positive class)."""
    y = np.asarray(y)
    if y.dtype.kind == "O":
        check_sensitive_features(y, name="y")  # None / NaN: "y contains missing values"
        if len({isinstance(label, str) for label in y.ravel().tolist()}) > 1:
            raise ValueError(
                "y mixes strings and numbers (e.g. 0 and 'yes'): the two classes must be of "
                "one type, as in scikit-learn."
            )
    with errors_naming("y"):  # scikit-learn's "Unknown label type: continuous"
        check_classification_targets(y)
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
    classes = np.unique(y)
    if len(classes) < 2:
        raise ValueError(
            f"y: the number of classes has to be greater than one; got {len(classes)} class."
        )
    if y_type != "binary":
        raise ValueError(
            f"y: Only binary classification is supported. The type of the target is {y_type}."
        )
    estimator.classes_ = classes
    return np.where(y == classes[1], 1.0, -1.0)


def _groups(sensitive_features, n_samples):
    """Codes 0/1 of a binary group label of any type (sorted by value), or None for one group.

    The one input path of the FERM estimators' groups (:class:`FERMClassifier`,
    :class:`LinearFERM`, :class:`~krepro.fairness.ferm_features.FERMFeatures`): a
    :class:`krepro.validation.GroupEncoder`, so strings, mixed numbers and strings, pandas
    columns are labels, and NaN or None is an error naming ``sensitive_features``.
    """
    if sensitive_features is None:
        return None
    codes, encoder = encode_labels(
        sensitive_features, n_samples, name="sensitive_features", multi_column=False
    )
    if encoder.n_groups_ > 2:
        raise ValueError(
            f"sensitive_features: FERM needs a binary sensitive feature; got "
            f"{encoder.n_groups_} distinct values "
            f"{encoder.categories_[0].tolist()[:10]}."
        )
    return codes


def _positive_groups(y_signed, s):
    """Masks of the positives of the lower and the higher sensitive value, or None."""
    if s is None:
        return None
    positives = y_signed > 0
    values = np.unique(s[positives])
    if len(values) < 2:
        warnings.warn(
            "Only one sensitive group has positive examples: the fairness constraint is "
            "undefined and is dropped (plain SVM).",
            UserWarning,
            stacklevel=3,
        )
        return None
    low, high = values.min(), values.max()
    return positives & (s == low), positives & (s == high)


def equal_opportunity_gap(decision, y_true, sensitive_features, pos_label=1):
    """Donini's linear-loss gap: mean decision value on the positives, group high − group low.

    This is what the FERM constraint bounds by ε on the training set. Groups are ordered by
    value (numbers by value, strings alphabetically), as in the estimators.
    """
    decision = np.asarray(decision, dtype=float)
    y_true = np.asarray(y_true)
    s = encode_labels(sensitive_features, len(y_true), name="sensitive_features")[0]
    positives = y_true == pos_label
    values = np.unique(s[positives])
    if len(values) < 2:
        raise ValueError("Both sensitive groups need positive examples.")
    low, high = values.min(), values.max()
    return float(decision[positives & (s == high)].mean() - decision[positives & (s == low)].mean())


class _BinaryClassifierMixin(ClassifierMixin):
    """``predict`` from the sign of ``decision_function``; binary problems only."""

    def predict(self, X):
        """Class labels."""
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class FERMClassifier(_BinaryClassifierMixin, BaseEstimator):
    r"""Kernel FERM: the SVM with Donini et al.'s equal-opportunity constraint.

    Parameters
    ----------
    kernel : {"rbf", "linear", "poly", "precomputed"}, default="rbf"
        Kernel, with :class:`sklearn.svm.SVC`'s parametrisation
        (RBF :math:`k(x,y)=\exp(-\gamma\lVert x-y\rVert^2)`). ``"precomputed"`` (as
        ``SVC``): :meth:`fit` takes the training Gram matrix :math:`K_{ij} = k(x_i, x_j)` of
        shape (n_samples, n_samples) as ``X``, and :meth:`decision_function` /
        :meth:`predict` the cross-Gram matrix :math:`k(x'_t, x_j)` of shape
        (n_test, n_samples) against all training rows; ``gamma``, ``degree`` and ``coef0``
        are then ignored. A study can so compute the Gram matrix once per kernel scale and
        slice it per fold (``K[np.ix_(train, train)]``, ``K[np.ix_(test, train)]``).
    C : float, default=1.0
        SVM regularisation (box bound of the dual), finite and > 0.
    gamma : float or {"scale", "auto"}, default="scale"
        Kernel scale, as in :class:`~sklearn.svm.SVC`; a number must be finite and > 0.
        Ignored by ``kernel="linear"`` and ``"precomputed"``.
    degree : int, default=3
        Polynomial degree (``kernel="poly"`` only).
    coef0 : float, default=0.0
        Polynomial offset (``kernel="poly"`` only).
    epsilon : float, default=0.0
        Bound on the gap of mean decision values over the positives of the two groups
        (training set); 0 (the reference) is an equality constraint.
    intercept : {"free", "all_support"}, default="free"
        ``"free"`` averages :math:`y_i - f_0(x_i)` over the free support vectors
        (:math:`0<\alpha_i<C`, the KKT conditions; libsvm's rule); ``"all_support"`` averages
        it over all support vectors including bound ones, as the FERM reference does.
    solver : str, default="piqp"
        :mod:`qpsolvers` backend of the ``"donini"`` QP (and of the exact dual with an
        active ε > 0 constraint).
    sv_tol : float, default=1e-6
        α below ``sv_tol * C`` is zero; above ``(1 - sv_tol) * C`` it is at the bound.
    formulation : {"exact", "donini"}, default="exact"
        ``"exact"``: the Lagrangian dual of the constrained SVM primal
        (:mod:`krepro.fairness.ferm_dual`; ε = 0: libsvm on the projected kernel
        :math:`K - \tau\tau^\top/\lVert u\rVert^2`). ``"donini"``: Donini et al.'s eq. (14),
        the SVM dual with the fairness row (a restriction of the exact dual; the paper's
        Table 1).
    tol : float, default=1e-3
        libsvm's stopping tolerance (``"exact"`` formulation; as :class:`~sklearn.svm.SVC`),
        finite and > 0. A tolerance so loose that every α stays 0 leaves no support vector:
        the decision function is then the constant ``intercept_``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class (y = +1 of the constraint).
    support_ : ndarray of shape (n_SV,)
        Training rows of the kernel expansion of the decision function; with
        ``kernel="precomputed"`` the columns of the cross-Gram matrix that it reads.
    support_vectors_ : ndarray of shape (n_SV, n_features) or (0, 0)
        The training rows ``X[support_]``. With ``kernel="precomputed"`` an empty array of
        shape (0, 0), as ``SVC(kernel="precomputed")`` stores (rows of a Gram matrix are
        no input points).
    dual_coef_ : ndarray of shape (1, n_SV)
        Coefficients :math:`\beta_i` of :math:`f(x) = \sum_i \beta_i k(x_i, x) + b` (as in
        ``SVC``): :math:`\alpha_i y_i` for ``"donini"``; :math:`\alpha_i y_i - \mu v_i` for
        ``"exact"``, where :math:`-\mu u` with :math:`u = \sum_i v_i \varphi(x_i)` spreads over
        the positives of both groups (so they are in ``support_`` too).
    intercept_ : ndarray of shape (1,)
    alpha_ : ndarray of shape (n_samples,)
        Dual variables :math:`\alpha` of the margin constraints.
    direction_coef_ : float
        :math:`\mu`, the multiplier of the fairness constraint (0 for ``"donini"``, without a
        constraint, or when it is inactive).
    fairness_gap_ : float or None
        Mean decision value over the training positives of the higher sensitive value minus
        that of the lower one; ``|fairness_gap_| <= epsilon`` up to solver tolerance. None
        without a constraint.
    gamma_ : float or None
        Kernel scale used (``gamma`` resolved as ``SVC`` does). None with
        ``kernel="precomputed"``: no scale is used (``SVC`` keeps no public resolved
        ``gamma`` and stores an unused placeholder 0.0 in its private ``_gamma`` there).
    objective_ : float
        Dual objective in minimisation form at the solution: ``"donini"``
        :math:`\tfrac12\alpha^\top Q\alpha - 1^\top\alpha`; ``"exact"``
        :math:`\tfrac12\lVert w\rVert^2 - 1^\top\alpha + \varepsilon|\mu|` (at convergence
        minus ``primal_objective_``).
    primal_objective_ : float
        :math:`\tfrac12\lVert w\rVert^2 + C\sum_i \max(0, 1 - y_i f(x_i))` on the training set,
        comparable across formulations (both satisfy the constraint).
    n_features_in_ : int
        Number of columns of ``X`` at fit: the number of training samples with
        ``kernel="precomputed"`` (as ``SVC``).

    References
    ----------
    M. Donini, L. Oneto, S. Ben-David, J. Shawe-Taylor, M. Pontil. Empirical Risk Minimization
    Under Fairness Constraints. NeurIPS 2018, §3 and eq. (14).

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.fairness.ferm import FERMClassifier
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 200); X = rng.normal(size=(200, 2)) + s[:, None]
    >>> y = (X[:, 0] + 0.3 * rng.normal(size=200) > 0.5).astype(int)
    >>> clf = FERMClassifier(kernel="rbf", C=1.0, gamma=0.5).fit(X, y, sensitive_features=s)
    >>> abs(clf.fairness_gap_) < 1e-10
    True
    """

    def __init__(
        self,
        kernel="rbf",
        C=1.0,
        gamma="scale",
        degree=3,
        coef0=0.0,
        epsilon=0.0,
        intercept="free",
        solver="piqp",
        sv_tol=1e-6,
        formulation="exact",
        tol=1e-3,
    ):
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.epsilon = epsilon
        self.intercept = intercept
        self.solver = solver
        self.sv_tol = sv_tol
        self.formulation = formulation
        self.tol = tol

    _parameter_constraints: ClassVar[dict] = {
        "kernel": [StrOptions({"rbf", "linear", "poly", "precomputed"})],
        "C": [POSITIVE_FINITE],
        "gamma": [StrOptions({"scale", "auto"}), POSITIVE_FINITE],
        "degree": [Interval(Integral, 0, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "intercept": [StrOptions(set(INTERCEPTS))],
        "solver": [str],
        "sv_tol": [Interval(Real, 0, 1, closed="left")],
        "formulation": [StrOptions(set(FORMULATIONS))],
        "tol": [POSITIVE_FINITE],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # X is a Gram matrix: cross-validation slices its columns too (as SVC)
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def _kernel(self, X, Y=None):
        params = kernel_params(self.kernel, self.gamma_, self.degree, self.coef0)
        return gram(X, Y, self.kernel, **params)

    def _resolve_gamma(self, X):
        if self.gamma == "scale":
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                variance = X.var()  # SVC's formula, bit for bit where it is a number
                gamma = 1.0 / (X.shape[1] * variance) if variance != 0 else 1.0
            if 0.0 < gamma < np.inf:
                return gamma
            # var(X) = s² var(X / s), s = max |X|: the squares left the float64 range
            largest = float(np.max(np.abs(X)))
            gamma = 1.0 / (X.shape[1] * float((X / largest).var())) / largest / largest
            if not 0.0 < gamma < np.inf:
                raise ValueError(
                    f"X: gamma='scale' = 1 / (n_features * X.var()) is not a float64 number at "
                    f"this scale of X (largest |X| = {largest:.3g}); rescale X or give gamma."
                )
            return gamma
        if self.gamma == "auto":
            return 1.0 / X.shape[1]
        return float(self.gamma)

    def _solve_donini(self, K, y_signed, groups, X):
        """Eq. (14): α, the training decision values without b, the dual objective.

        With the linear kernel and fewer features than samples, the QP is solved in its
        lifted form on X (:func:`krepro.fairness.ferm_dual.solve_ferm_dual`'s ``features``);
        never with ``kernel="precomputed"``, where X is the Gram matrix itself.
        """
        fairness_row = None
        if groups is not None:
            low, high = groups
            tau = K[high].mean(axis=0) - K[low].mean(axis=0)
            fairness_row = y_signed * tau
        lifted = self.kernel == "linear" and X.shape[1] < X.shape[0]  # not "precomputed"
        features = X if lifted else None
        alpha = solve_ferm_dual(
            K,
            y_signed,
            self.C,
            fairness_row,
            self.epsilon,
            self.solver,
            overwrite_kernel=True,
            features=features,
        )
        if lifted:
            f0 = K @ (y_signed * alpha)  # the lifted solve leaves K as it is
        else:
            f0 = y_signed * (K @ alpha)  # K holds yyᵀ∘K now
        return alpha, f0, float(0.5 * alpha @ (y_signed * f0) - alpha.sum())

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, *, sensitive_features=None):
        r"""Solve the fair SVM dual of the chosen ``formulation``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Training points; with ``kernel="precomputed"`` the square training Gram matrix
            :math:`K_{ij} = k(x_i, x_j)` (a non-square ``X`` is a ``ValueError``). The
            solvers overwrite their kernel matrix: a precomputed ``X`` is copied first and
            never modified. The fairness direction
            :math:`\tau_j = \mathrm{mean}_{i\in A_1} K_{ij} - \mathrm{mean}_{i\in A_0} K_{ij}`
            is computed from it as from a computed kernel.
        y : array-like of shape (n_samples,)
            Two classes of one type (numbers or strings; a missing label is a
            ``ValueError``); ``classes_[1]`` is the positive class of the constraint.
        sensitive_features : array-like of shape (n_samples,), default=None
            Binary group of every sample, labels of any type (e.g. ``"Female"``/``"Male"``,
            ordered by value); ``None`` means one group (plain SVM).

        Returns
        -------
        self : FERMClassifier
        """
        check_class_labels(y)  # before numpy turns 1 into '1'
        precomputed = self.kernel == "precomputed"
        if precomputed:
            # the solvers overwrite K: a private C-contiguous float64 copy, never the caller's
            X, y = validate_data(self, X, y, dtype=np.float64, order="C", copy=True)
        else:
            X, y = validate_data(self, X, y, dtype=float)
        y_signed = _binary_targets(self, y)  # a multiclass y is refused first, as in SVC
        if precomputed and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"X: kernel='precomputed' needs the square training Gram matrix "
                f"k(X_train, X_train) of shape (n_samples, n_samples); got a "
                f"{X.shape[0]}x{X.shape[1]} matrix."
            )
        s = _groups(sensitive_features, X.shape[0])
        if precomputed:
            self.gamma_ = None  # gamma, degree, coef0 are not used
            K = X  # the copy made above
        else:
            self.gamma_ = self._resolve_gamma(X)
            K = self._kernel(X)  # the only n × n array; both solvers overwrite it
        groups = _positive_groups(y_signed, s)
        v = None if groups is None else groups[1] / groups[1].sum() - groups[0] / groups[0].sum()
        if self.formulation == "donini":
            alpha, f0, self.objective_ = self._solve_donini(K, y_signed, groups, X)
            mu, weights = 0.0, alpha * y_signed
            coef = np.where(alpha > self.sv_tol * self.C, weights, 0.0)
        else:
            dual = solve_exact_dual(
                K,
                y_signed,
                self.C,
                v,
                self.epsilon,
                tol=self.tol,
                solver=self.solver,
                sv_tol=self.sv_tol,
            )
            alpha, mu, f0, self.objective_ = dual
            weights = alpha * y_signed - (0.0 if v is None else mu * v)
            coef = weights
        del K  # with kernel="precomputed" also X, which is overwritten
        b = svm_intercept(alpha, y_signed, f0, self.C, self.intercept, self.sv_tol)
        self.primal_objective_ = float(
            0.5 * weights @ f0 + self.C * np.maximum(0.0, 1.0 - y_signed * (f0 + b)).sum()
        )
        support = np.flatnonzero(coef)
        self.alpha_, self.direction_coef_ = alpha, float(mu)
        self.support_ = support
        # SVC(kernel="precomputed") stores no support vectors either: shape (0, 0)
        self.support_vectors_ = np.empty((0, 0)) if precomputed else X[support]
        self.dual_coef_ = coef[support][None, :]
        self.intercept_ = np.array([b])
        self.fairness_gap_ = None if v is None else float(v @ f0)
        return self

    def decision_function(self, X):
        r"""Signed distance-like score; positive means ``classes_[1]`` (as ``SVC``).

        :math:`f(x) = \sum_{i\in\text{support\_}} \beta_i k(x_i, x) + b` with
        :math:`\beta` = ``dual_coef_`` and :math:`b` = ``intercept_``.

        Parameters
        ----------
        X : array-like of shape (n_test, n_features) or (n_test, n_samples_fit)
            Points to score; with ``kernel="precomputed"`` the cross-Gram matrix
            :math:`k(x'_t, x_j)` against all training rows, of which the columns
            ``support_`` are read (another number of columns is a ``ValueError``).

        Returns
        -------
        decision : ndarray of shape (n_test,)
        """
        check_is_fitted(self, "dual_coef_")
        precomputed = self.kernel == "precomputed"
        try:
            X = validate_data(self, X, dtype=float, reset=False)
        except ValueError as error:
            if not (precomputed and "features, but" in str(error)):
                raise
            # sklearn's wording ("X has 5 features, but ... expecting 30"), then the cause
            raise ValueError(
                f"{error} kernel='precomputed' needs the cross-Gram matrix "
                f"k(X_test, X_train) with one column per training sample "
                f"({self.n_features_in_})."
            ) from error
        if len(self.support_) == 0:  # every α is 0 (e.g. a loose tol): f is the constant b
            return np.full(X.shape[0], self.intercept_[0])
        if precomputed:
            return X[:, self.support_] @ self.dual_coef_[0] + self.intercept_[0]
        return self._kernel(X, self.support_vectors_) @ self.dual_coef_[0] + self.intercept_[0]


class LinearFERM(_BinaryClassifierMixin, BaseEstimator):
    r"""Linear FERM: project the data orthogonally to the group gap, then a linear SVM.

    Parameters
    ----------
    C : float, default=1.0
        Linear SVM regularisation, finite and > 0.
    selection : {"argmax_abs", "argmax"}, default="argmax_abs"
        Coordinate :math:`k` that is eliminated: the largest :math:`|u_k|` (numerically the
        safest; what the FERM reference's commit message describes) or the largest
        :math:`u_k`, which is what the reference code does (``linear_ferm.py`` line 48).
        The constraint holds either way, but the SVM regularises the reduced weights, so the
        choice changes the solution.
    tol : float, default=1e-3
        Tolerance of the linear SVM (``SVC(kernel="linear")``); ``solver="libsvm"`` only.
    max_iter : int, default=-1
        Iteration cap of the linear SVM (−1: none); ``solver="libsvm"`` only.
    solver : {"libsvm", "exact"}, default="libsvm"
        Solver of the linear SVM on the reduced features :math:`z`,
        :math:`\min_{w, b} \tfrac12\lVert w\rVert^2 + C\sum_i \max(0, 1 - y_i(\langle w,
        z_i\rangle + b))`: ``"libsvm"`` is ``SVC(kernel="linear")`` (SMO, stopped at the
        KKT tolerance ``tol``; slow at large C when the classes overlap), ``"exact"`` is
        ``LinearHingeSVC(solver="ipm")`` (:class:`~krepro.fairness.linear_svc.LinearHingeSVC`),
        the same problem solved to optimality (relative duality gap 1e-10) by an
        interior-point method; its objective is never above libsvm's beyond that gap.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    u_ : ndarray of shape (n_features,) or None
        Mean of the positives of the lowest sensitive value minus that of the highest.
    feature_index_ : int or None
        Eliminated coordinate :math:`k`.
    svc_ : SVC or LinearHingeSVC
        The linear SVM on the reduced features (``SVC`` for ``solver="libsvm"``,
        :class:`~krepro.fairness.linear_svc.LinearHingeSVC` for ``"exact"``).
    coef_ : ndarray of shape (1, n_features)
        Weight vector in the original coordinates (orthogonal to ``u_``).
    intercept_ : ndarray of shape (1,)
    n_iter_ : int or None
        Iterations of the linear SVM: libsvm's, or those of the interior-point method of
        ``solver="exact"`` (None where it handed the problem to PIQP, see
        :class:`~krepro.fairness.linear_svc.LinearHingeSVC`).
    n_features_in_ : int

    References
    ----------
    Donini et al., NeurIPS 2018, §4 (linear case).

    Examples
    --------
    >>> import numpy as np
    >>> from krepro import LinearFERM
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 200); X = rng.normal(size=(200, 3)) + s[:, None]
    >>> y = (X[:, 0] + 0.3 * rng.normal(size=200) > 0.5).astype(int)
    >>> clf = LinearFERM(C=1.0).fit(X, y, sensitive_features=s)
    >>> bool(abs(clf.coef_[0] @ clf.u_) < 1e-10)  # w is orthogonal to the group gap u
    True
    """

    def __init__(self, C=1.0, selection="argmax_abs", tol=1e-3, max_iter=-1, solver="libsvm"):
        self.C = C
        self.selection = selection
        self.tol = tol
        self.max_iter = max_iter
        self.solver = solver

    _parameter_constraints: ClassVar[dict] = {
        "C": [POSITIVE_FINITE],
        "selection": [StrOptions(set(SELECTIONS))],
        "tol": [POSITIVE_FINITE],
        "max_iter": [Interval(Integral, -1, None, closed="left")],
        "solver": [StrOptions(set(LINEAR_SOLVERS))],
    }

    def _reduce(self, X):
        if self.u_ is None:
            return X
        k, u = self.feature_index_, self.u_
        Z = X - np.outer(X[:, k] / u[k], u)
        return np.delete(Z, k, axis=1)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, *, sensitive_features=None):
        """Fit the linear SVM on the projected features.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two classes of one type, as :meth:`FERMClassifier.fit`.
        sensitive_features : array-like of shape (n_samples,), default=None
            Binary group of every sample, labels of any type (ordered by value); ``None``
            means one group (plain linear SVM).

        Returns
        -------
        self : LinearFERM
        """
        check_class_labels(y)  # before numpy turns 1 into '1'
        X, y = validate_data(self, X, y, dtype=float)
        y_signed = _binary_targets(self, y)
        s = _groups(sensitive_features, X.shape[0])
        groups = _positive_groups(y_signed, s)
        self.u_, self.feature_index_ = None, None
        if groups is not None:
            low, high = groups
            u = X[low].mean(axis=0) - X[high].mean(axis=0)
            k = int(np.argmax(np.abs(u) if self.selection == "argmax_abs" else u))
            if u[k] != 0:  # u = 0: the constraint already holds for every w
                self.u_, self.feature_index_ = u, k
        Z = self._reduce(X)
        degenerate = Z.shape[1] == 0  # one feature: only w = 0 is orthogonal to u
        if degenerate:
            Z = np.zeros((X.shape[0], 1))
        if self.solver == "exact":
            self.svc_ = LinearHingeSVC(C=self.C, solver="ipm", tol=1e-10).fit(Z, y_signed)
            w, b = self.svc_.coef_, self.svc_.intercept_
            self.n_iter_ = self.svc_.n_iter_
        else:
            # gamma is unused by the linear kernel; "scale" would compute X.var(), which
            # overflows at 1e300
            self.svc_ = SVC(
                kernel="linear", C=self.C, gamma=1.0, tol=self.tol, max_iter=self.max_iter
            )
            with errors_naming("X"):  # libsvm: "The dual coefficients ... are not finite"
                self.svc_.fit(Z, y_signed)
            w, b = self.svc_.coef_[0], self.svc_.intercept_[0]
            self.n_iter_ = int(np.max(self.svc_.n_iter_))
        if degenerate:
            coef = np.zeros(X.shape[1])
        elif self.u_ is None:
            coef = w.copy()
        else:
            # f(x) = wᵀD(x − (x_k/u_k)u): coef = Dᵀw − e_k (uᵀDᵀw)/u_k, orthogonal to u.
            k, u = self.feature_index_, self.u_
            coef = np.insert(w, k, 0.0)
            coef[k] = -(u @ coef) / u[k]
        self.coef_ = coef[None, :]
        self.intercept_ = np.array([float(b)])
        return self

    def decision_function(self, X):
        """Score; positive means ``classes_[1]``."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=float, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]
