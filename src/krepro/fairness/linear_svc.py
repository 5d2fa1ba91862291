r"""Soft-margin SVM solved exactly in the primal, for low-rank (precomputed) kernels.

libsvm's C-SVM solves

.. math:: \min_{w, b}\ \tfrac12\lVert w\rVert^2
          + C \sum_{i=1}^n \max\bigl(0, 1 - y_i(\langle w, z_i\rangle + b)\bigr),
          \qquad y_i \in \{-1, 1\},

(the intercept is not penalised) through its n-variable dual, by SMO to a KKT tolerance of
1e-3. When the data overlap and C is large, SMO needs millions of iterations, and where it
stops its objective can be well above the optimum. The oblivious SVM on the synthetic
students data (:mod:`krepro.data.students`, §7.1) is such a case: its linear oblivious Gram
matrix has rank ≤ d + 1 (d = 2), and at the authors' C = 2¹⁶ libsvm takes 24 million
iterations (≈ 8 CPU-s) and stops 3 % above the optimum, with a non-constant classifier,
while the optimum is the constant one (:math:`w \approx 0`). With a factor
:math:`K = ZZ^\top` of rank r the primal is a small sparse QP in
:math:`(w, b, \xi) \in \mathbb R^{r + 1 + n}`: objective
:math:`\tfrac{1}{2C}\lVert w\rVert^2 + \mathbf 1^\top\xi` (divided by C for scaling),
constraints :math:`y_i(\langle w, z_i\rangle + b) \ge 1 - \xi_i`, :math:`\xi \ge 0`, solved
by an interior-point method (PIQP, through :mod:`qpsolvers`) in milliseconds. With tens of
features the sparse factorisation of PIQP's KKT system costs O(n r²) scalar operations per
iteration (≈ 0.35 s per fit for n = 1300, r = 93): ``solver="ipm"`` solves the same problem by
a primal-dual interior-point method on the dual whose Newton systems are reduced to
(r + 1)-square ones formed by one BLAS product (:func:`solve_hinge_ipm`, ≈ 0.03 s there).

* :class:`LinearHingeSVC` — the estimator on explicit features.
* :func:`solve_hinge_ipm` — the dedicated interior-point method (``solver="ipm"``).
* :func:`gram_factor` — the numerical-rank factor :math:`Z` of a precomputed Gram matrix and
  the matching features of the rows of a cross-Gram matrix, so that an SVM on
  ``(gram, cross_gram)`` equals :class:`LinearHingeSVC` on ``(Z, Z_cross)``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from scipy import linalg, sparse
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

__all__ = ["LinearHingeSVC", "gram_factor", "hinge_svm_objective", "solve_hinge_ipm"]


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


def _max_step(x, dx):
    """Largest t with x + t·dx ≥ 0 componentwise (inf where no entry of dx is negative)."""
    falling = dx < 0
    return float(np.min(-x[falling] / dx[falling], initial=np.inf))


def solve_hinge_ipm(X, y_signed, C, *, tol=1e-9, max_iter=100):
    r"""The C-SVM of the module docstring by a primal-dual interior-point method on its dual.

    The dual, scaled by :math:`\alpha = C a` and divided by C,

    .. math:: \min_a\ \tfrac12 a^\top H H^\top a - \mathbf 1^\top a
              \quad\text{s.t.}\quad y^\top a = 0,\ 0 \le a \le 1,
              \qquad H = \sqrt C\,\mathrm{diag}(y)\,X,

    is solved by Mehrotra's predictor-corrector method. Each Newton system of the KKT
    conditions :math:`HH^\top a - \mathbf 1 + yb - z + u = 0`, :math:`y^\top a = 0`,
    :math:`a \circ z = \sigma\mu`, :math:`(1 - a) \circ u = \sigma\mu` reduces, with
    :math:`D = z/a + u/(1 - a)` and :math:`A = [H, y]`, to the (d + 1)-square system
    :math:`(\mathrm{diag}(\mathbf 1_d, 0) + A^\top D^{-1} A)\,(\Delta w, \Delta b) = \dots`
    (the low-rank linear algebra of Ferris & Munson 2003; O(n d²) per iteration, a BLAS
    product), or, when n < d + 1, to the n-square system :math:`D + HH^\top`. At the
    solution :math:`w = \sqrt C H^\top a` and b is the multiplier of :math:`y^\top a = 0`
    (:math:`y_i(\langle w, x_i\rangle + b) = 1` on the free support vectors).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y_signed : ndarray of shape (n,)
        Labels in {-1, 1}, both present.
    C : float
    tol : float, default=1e-9
        Stop when the residuals of the stationarity rows (relative to
        :math:`1 + \lVert HH^\top a\rVert_\infty`), of :math:`y^\top a = 0` (relative to
        :math:`1 + \lVert a\rVert_1`) and the duality gap :math:`a^\top z + (1-a)^\top u`
        (relative to the dual objective, positive at the solution) are all below ``tol``.
    max_iter : int, default=100

    Returns
    -------
    (w, b, n_iter) : (ndarray of shape (d,), float, int), or None
        The solution, polished onto the active set of the last iterate (``_polish``), or
        None when the method did not converge in ``max_iter`` iterations or met a number that
        is not finite: near a hard margin (C‖x‖² ≳ 1e4 with overlapping classes, where the
        multipliers span many orders of magnitude) or with inputs at extreme scales. The
        caller then solves the primal QP with a general solver.

    References
    ----------
    M. C. Ferris, T. S. Munson. Interior-point methods for massive support vector machines.
    SIAM J. Optim. 13(3), 783-804, 2003. S. Mehrotra. On the implementation of a primal-dual
    interior point method. SIAM J. Optim. 2(4), 575-601, 1992.
    """
    with np.errstate(all="ignore"):
        return _hinge_dual_ipm(X, y_signed, C, tol, max_iter)


def _newton_solver(H, y, d_inv, refinements=1):
    r"""Solve :math:`(D + HH^\top)\Delta a + y\Delta b = r`, :math:`y^\top\Delta a = e`.

    Returns ``solve(r, e) -> (Δa, Δb)``, or None when the factorisation fails. Reduced to the
    (d + 1)-square system of :func:`solve_hinge_ipm` when d + 1 ≤ n, else the n-square
    :math:`D + HH^\top`; ``refinements`` steps of iterative refinement on the unreduced
    equations recover the accuracy that the large entries of :math:`D^{-1}` near the solution
    cost the reduction.
    """
    n, d = H.shape
    if d + 1 <= n:
        scaled = np.column_stack([H, y]) * np.sqrt(d_inv)[:, None]
        system = scaled.T @ scaled
        system[np.arange(d), np.arange(d)] += 1.0
    else:
        system = H @ H.T + np.diag(1.0 / d_inv)
    try:
        factor = linalg.cho_factor(system, check_finite=False)
    except linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(factor[0])):
        return None

    def reduced(r, e):
        if d + 1 <= n:
            rhs = np.append(H.T @ (d_inv * r), y @ (d_inv * r) - e)
            step = linalg.cho_solve(factor, rhs, check_finite=False)
            return d_inv * (r - y * step[d] - H @ step[:d]), step[d]
        k_r, k_y = linalg.cho_solve(factor, np.column_stack([r, y]), check_finite=False).T
        db = (y @ k_r - e) / (y @ k_y)
        return k_r - db * k_y, db

    def solve(r, e):
        da, db = reduced(r, e)
        for _ in range(refinements):
            residual = r - H @ (H.T @ da) - da / d_inv - y * db
            correction = reduced(residual, e - y @ da)
            da, db = da + correction[0], db + correction[1]
        return da, db

    return solve


def _scaled_primal(H, y, w, b):
    """Objective of the module docstring divided by C, in the scaled variables."""
    return 0.5 * float(w @ w) + float(np.maximum(1.0 - (H @ w + y * b), 0.0).sum())


def _polish(H, y, a, z, u, w, b, slack=1e-9, rounds=10):
    r"""The solution of the KKT equations on the active set of the interior-point iterate.

    The iterate says which rows are at :math:`a_i = 0` (:math:`a_i < z_i`, set L), at
    :math:`a_i = 1` (:math:`1 - a_i < u_i`, set U) and free (F). With those fixed, the
    optimality conditions are linear: :math:`y_i(\langle w, x_i\rangle + b) = 1` on F and
    :math:`y^\top a = 0`, with :math:`w = H_F^\top a_F + H_U^\top \mathbf 1`. Their solution is
    the exact optimum when the sets are right: :math:`0 \le a_F \le 1`, margins ≥ 1 on L and
    ≤ 1 on U (up to ``slack``). Rows that break this change set (a free row leaving its box to
    the bound it crossed, a bound row on the wrong side of the margin to F) for up to
    ``rounds`` rounds, as in a primal-dual active-set method started from the iterate; the
    result is kept only when it passes and its primal objective is not above the iterate's
    (up to a relative 1e-12, the round-off of the sums). An interior-point iterate pins w only
    to the square root of its duality gap; the polished one to round-off.
    """
    upper = (1.0 - a) < u
    free = ~upper & ~(a < z)
    objective = _scaled_primal(H, y, w, b)
    for _ in range(rounds):
        if not free.any():  # b is not fixed by an equation: keep the iterate's
            return w, b
        H_free, y_free = H[free], y[free]
        w_upper = H[upper].sum(axis=0)
        k = int(free.sum())
        system = np.empty((k + 1, k + 1))
        system[:k, :k] = H_free @ H_free.T
        system[:k, k] = system[k, :k] = y_free
        system[k, k] = 0.0
        rhs = np.append(1.0 - H_free @ w_upper, -y[upper].sum())
        solution = linalg.lstsq(system, rhs, check_finite=False)[0]
        if not np.all(np.isfinite(solution)):
            return w, b
        a_free, b_new = solution[:k], float(solution[k])
        w_new = H_free.T @ a_free + w_upper
        margin = H @ w_new + y * b_new
        lower = ~upper & ~free
        a_full = np.where(upper, 1.0, 0.0)
        a_full[free] = a_free
        to_lower = free & (a_full < -slack)
        to_upper = free & (a_full > 1.0 + slack)
        to_free = (lower & (margin < 1.0 - slack)) | (upper & (margin > 1.0 + slack))
        if not (to_lower.any() or to_upper.any() or to_free.any()):
            # not above the iterate's objective, up to the round-off of the two sums
            if _scaled_primal(H, y, w_new, b_new) <= objective * (1.0 + 1e-12):
                return w_new, b_new
            return w, b
        free = (free & ~to_lower & ~to_upper) | to_free
        upper = (upper & ~to_free) | to_upper
    return w, b


def _hinge_dual_ipm(X, y, C, tol, max_iter):
    """:func:`solve_hinge_ipm` (``y`` in {-1, 1}), without the floating-point error state."""
    n = X.shape[0]
    root = np.sqrt(float(C))
    H = (root * y)[:, None] * X
    if not (np.isfinite(root) and np.all(np.isfinite(H))):
        return None
    a, z, u, b = np.full(n, 0.5), np.ones(n), np.ones(n), 0.0
    for iteration in range(max_iter + 1):
        s = 1.0 - a
        w = H.T @ a
        Hw = H @ w
        r_d = Hw - 1.0 + y * b - z + u
        r_e = float(y @ a)
        gap = float(a @ z + s @ u)
        dual = float(a.sum() - 0.5 * (w @ w))
        if not (np.isfinite(gap) and np.isfinite(dual) and np.all(np.isfinite(r_d))):
            return None
        if (
            np.max(np.abs(r_d)) <= tol * (1.0 + np.max(np.abs(Hw)))
            and abs(r_e) <= tol * (1.0 + a.sum())
            and gap <= tol * dual
        ):
            w, b = _polish(H, y, a, z, u, w, b)
            return root * w, b, iteration
        if iteration == max_iter:
            return None
        solve = _newton_solver(H, y, 1.0 / (z / a + u / s))
        if solve is None:
            return None
        # predictor (affine scaling), then the centring-corrector step (Mehrotra). With
        # complementarity residuals r_z (of a∘z) and r_u (of s∘u): Δz = -(r_z + zΔa)/a,
        # Δu = (uΔa - r_u)/s, and (D + HHᵀ)Δa + yΔb = -r_d - r_z/a + r_u/s, yᵀΔa = -r_e.
        r_z, r_u = a * z, s * u
        da, db = solve(-r_d - r_z / a + r_u / s, -r_e)
        dz, du = -(r_z + z * da) / a, (u * da - r_u) / s
        t = min(1.0, _max_step(a, da), _max_step(s, -da), _max_step(z, dz), _max_step(u, du))
        gap_affine = (a + t * da) @ (z + t * dz) + (s - t * da) @ (u + t * du)
        sigma_mu = (gap_affine / gap) ** 3 * gap / (2 * n)
        r_z, r_u = a * z + da * dz - sigma_mu, s * u - da * du - sigma_mu
        da, db = solve(-r_d - r_z / a + r_u / s, -r_e)
        dz, du = -(r_z + z * da) / a, (u * da - r_u) / s
        limit = min(_max_step(a, da), _max_step(s, -da), _max_step(z, dz), _max_step(u, du))
        t = min(1.0, 0.99 * limit)
        a, b, z, u = a + t * da, b + t * db, z + t * dz, u + t * du
    return None


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
        A sparse QP solver known to :mod:`qpsolvers` for the primal QP, or ``"ipm"``: the
        dedicated interior-point method :func:`solve_hinge_ipm` on the dual (O(n d²) BLAS
        work per iteration; far faster than a sparse solver with tens of features), with
        the same tolerance and its solution polished onto its active set; where it does not
        converge (near a hard margin, C‖x‖² ≳ 1e4 with overlapping classes, or inputs at
        extreme scales) the primal QP is solved by PIQP instead.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (n_features,)
        Decision function :math:`\langle w, x\rangle + b`; positive means ``classes_[1]``.
    intercept_ : float
    objective_ : float
        The primal objective at the solution.
    n_iter_ : int or None
        Iterations of :func:`solve_hinge_ipm` (``solver="ipm"``); None where a
        :mod:`qpsolvers` backend solved the primal QP.

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
        solution = None
        if self.solver == "ipm":
            solution = solve_hinge_ipm(X, signed, self.C, tol=self.tol)
        if solution is None:
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
                solver="piqp" if self.solver == "ipm" else self.solver,
                tol=self.tol,
            )
            self.n_iter_ = None
        else:
            self.coef_, self.intercept_, self.n_iter_ = solution
            self.intercept_ = float(self.intercept_)
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
