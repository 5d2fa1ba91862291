r"""Duals of kernel FERM: Donini et al.'s eq. (14) and the exact Lagrangian dual.

FERM (Donini et al. 2018) adds to the SVM the linear constraint
:math:`|\langle w, u\rangle| \le \varepsilon` with

.. math::

    u = \frac1{|A_1|}\sum_{i\in A_1}\varphi(x_i) - \frac1{|A_0|}\sum_{i\in A_0}\varphi(x_i)
      = \sum_i v_i\,\varphi(x_i), \qquad
    v = \frac{1_{A_1}}{|A_1|} - \frac{1_{A_0}}{|A_0|},

where :math:`A_g` are the positives of group g. Donini et al.'s eq. (14) keeps the plain SVM
dual, :math:`w = \sum_i \alpha_i y_i \varphi(x_i)` with :math:`0 \le \alpha \le C`, and adds
the constraint as one more row (:func:`solve_ferm_dual`): a restriction of the true dual.
The Lagrangian dual of the constrained primal has one
more multiplier :math:`\mu` for the constraint:

.. math::

    w = \sum_i \alpha_i y_i \varphi(x_i) - \mu u, \qquad
    \max_{0\le\alpha\le C,\ y^\top\alpha = 0,\ \mu}\;
    1^\top\alpha - \tfrac12\lVert w\rVert^2 - \varepsilon|\mu| .

With :math:`\tau = Kv` (:math:`\tau_i = \langle\varphi(x_i), u\rangle`) and
:math:`\lVert u\rVert^2 = v^\top K v`:

* **ε = 0** (the reference's choice). The optimal :math:`\mu = \tau^\top(\alpha\circ y)/
  \lVert u\rVert^2` makes :math:`w` the projection of :math:`\sum_i\alpha_i y_i\varphi(x_i)`
  onto :math:`u^\perp`, and the dual is the ordinary SVM dual on the rank-one-corrected kernel
  :math:`K' = K - \tau\tau^\top/\lVert u\rVert^2` (the Gram matrix of :math:`P\varphi(x)`,
  :math:`P = I - uu^\top/\lVert u\rVert^2`). It is solved by libsvm
  (``SVC(kernel="precomputed")``) on K corrected in place: no n × n array besides K, and
  libsvm reads K through row pointers without copying it.
* **ε > 0**. If the plain SVM (libsvm on K) satisfies the constraint, it is the solution
  (μ = 0). Otherwise the constraint is active on the side the SVM violates it,
  :math:`\langle w, u\rangle = e = \pm\varepsilon` (the objective is convex and the feasible set
  a slab), so :math:`w = Pw + e\,u/\lVert u\rVert^2`: the SVM on :math:`K'` with the fixed
  offset :math:`o = e\,\tau/\lVert u\rVert^2` in every decision value, whose dual is the SVM
  dual with linear term :math:`o\circ y - 1` (a dense QP through :mod:`qpsolvers`; libsvm
  does not take a linear term).

In both cases :math:`\mu = (\tau^\top(\alpha\circ y) - e)/\lVert u\rVert^2` (e = 0 for ε = 0)
and :math:`f(x) = \sum_i \beta_i k(x_i, x) + b` with :math:`\beta = \alpha\circ y - \mu v`,
i.e. :math:`f(x) = \sum_i \alpha_i y_i K'(x_i, x) + e\,\tau(x)/\lVert u\rVert^2 + b`,
:math:`K'(x_i, x) = k(x_i, x) - \tau_i\tau(x)/\lVert u\rVert^2`
(:func:`solve_exact_dual`). Every :math:`w` of eq. (14) satisfies the constraint, so the exact
primal objective is never higher than eq. (14)'s.

References
----------
M. Donini, L. Oneto, S. Ben-David, J. Shawe-Taylor, M. Pontil. Empirical Risk Minimization
Under Fairness Constraints. NeurIPS 2018, eqs. (13)–(14).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import qpsolvers
from scipy import linalg, sparse
from scipy.linalg import blas
from sklearn.svm import SVC

from krepro.validation import errors_naming

__all__ = [
    "ExactDual",
    "fairness_direction",
    "project_gram",
    "solve_exact_dual",
    "solve_ferm_dual",
    "svm_intercept",
]

# ‖u‖² at or below this fraction of the largest kernel diagonal counts as u = 0 (the
# constraint then holds for every w): round-off of block means of K is ~1e-16 relative.
_ZERO_DIRECTION = 1e-14


class ExactDual(NamedTuple):
    r"""Solution of the exact FERM dual.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        Dual variables of the margin constraints, in [0, C].
    mu : float
        Multiplier of the fairness constraint (0 when it is inactive or absent).
    decision : ndarray of shape (n,)
        :math:`f(x_i) - b = (K\beta)_i` on the training points.
    objective : float
        Dual objective in minimisation form, :math:`\tfrac12\lVert w\rVert^2 - 1^\top\alpha
        + \varepsilon|\mu|` (minus the primal optimum at convergence).
    """

    alpha: np.ndarray
    mu: float
    decision: np.ndarray
    objective: float


def fairness_direction(K, v):
    r""":math:`\tau = Kv` and :math:`\lVert u\rVert^2 = v^\top K v` (one matrix-vector product).

    Parameters
    ----------
    K : ndarray of shape (n, n)
    v : ndarray of shape (n,)
        :math:`1_{A_1}/|A_1| - 1_{A_0}/|A_0|`, so that :math:`u = \sum_i v_i\varphi(x_i)`.
    """
    tau = K @ v
    return tau, float(v @ tau)


def project_gram(K, tau, norm2):
    r"""Overwrite K with :math:`K' = K - \tau\tau^\top/\lVert u\rVert^2` and return it.

    A BLAS symmetric rank-one update (``dsyr``) of one triangle on K's memory, then that
    triangle mirrored onto the other, block by block: no n × n temporary, and K' is exactly
    symmetric whatever the BLAS kernel (a general rank-one update ``dger`` is not: kernels
    that fuse multiply-adds in vector lanes and not in the tail round entries (i, j) and
    (j, i) differently). With :math:`t = \tau/\lVert u\rVert`, entry (i, j) becomes
    :math:`K_{ij} - t_i t_j`.
    """
    if not (K.flags.c_contiguous and K.dtype == np.float64):
        raise ValueError("project_gram needs a C-contiguous float64 kernel matrix.")
    t = tau / np.sqrt(norm2)
    # K.T is the Fortran-ordered view BLAS wants; its upper triangle is K's lower triangle.
    updated = blas.dsyr(-1.0, t, a=K.T, lower=0, overwrite_a=True)
    if not np.shares_memory(updated, K):  # pragma: no cover - BLAS wrappers always update
        K[...] = updated.T
    _mirror_lower_triangle(K)
    return K


def _mirror_lower_triangle(K, block=128):
    """Copy the strict lower triangle of square K onto its upper triangle, in place.

    Tile by tile, so that the temporaries stay ``block × block`` whatever n.
    """
    n = K.shape[0]
    for row in range(0, n, block):
        rows = slice(row, min(row + block, n))
        diagonal = K[rows, rows]
        upper = np.triu_indices(diagonal.shape[0], 1)
        diagonal[upper] = diagonal.T[upper]
        for col in range(rows.stop, n, block):
            cols = slice(col, min(col + block, n))
            K[rows, cols] = K[cols, rows].T


def solve_ferm_dual(
    K,
    y_signed,
    C,
    fairness_row=None,
    epsilon=0.0,
    solver="piqp",
    *,
    overwrite_kernel=False,
    features=None,
    working_set=True,
    **options,
):
    r"""Solve Donini et al.'s eq. (14) (the SVM dual plus the fairness row); return α.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Kernel matrix.
    y_signed : ndarray of shape (n,)
        Labels in {−1, +1}.
    C : float
        Box bound.
    fairness_row : ndarray of shape (n,), default=None
        :math:`y\circ\tau`; ``None`` solves the plain SVM dual.
    epsilon : float, default=0
        Bound on ``|fairness_row @ α|``; 0 gives an equality row.
    solver : str, default="piqp"
        Any :mod:`qpsolvers` solver; PIQP and ProxQP use their dense backends.
    overwrite_kernel : bool, default=False
        Turn K into the QP's Hessian :math:`yy^\top\circ K` in place instead of allocating
        it (bit for bit the same matrix: y is ±1).
    features : ndarray of shape (n, p), default=None
        Explicit features with :math:`K = \Phi\Phi^\top` (the linear kernel): the QP is
        then solved in its lifted form (:func:`_lifted_box_qp`), the same α at
        :math:`O(np^2)` per interior-point step instead of :math:`O(n^3)` (worth it for
        :math:`p < n`), and K is left untouched.
    working_set : bool, default=True
        Start from libsvm's plain SVM and solve the dense problem without one
        interior-point QP over all n variables: with ε = 0 and a quarter of the rows or
        more free in the plain SVM, by the primal-dual active-set method
        (:func:`_active_set_qp`: a few Cholesky factorisations of the free block); otherwise,
        or should it not finish, by decomposition (:func:`_working_set_box_qp`: the QP
        restricted to the candidate free support vectors, grown by the variables that
        violate the full problem's KKT conditions until none does). The same optimum to the
        solvers' tolerance (Adult's 1302 training rows: 0.03-0.25 s per fit instead of
        ~0.4 s). ``False`` solves the full QP at once.
    **options
        Passed to the solver.
    """
    n = len(y_signed)
    A, b, G, h = _constraint_rows(y_signed, fairness_row, epsilon)
    if features is not None:
        return _lifted_box_qp(features, y_signed, A, b, C, solver, G=G, h=h, **options)
    start = _plain_svm_start(K, y_signed, C) if working_set else None
    P = K if overwrite_kernel else K * y_signed[:, None]
    if overwrite_kernel:
        P *= y_signed[:, None]
    P *= y_signed
    q = -np.ones(n)
    if start is not None and G is None and 4 * start.n_free >= n:
        alpha = _active_set_qp(P, q, A, b, C, start.alpha)
        if alpha is not None:
            return alpha
    if start is not None and 3 * start.size <= 2 * n:
        return _working_set_box_qp(P, q, A, b, C, solver, start, G=G, h=h, **options)
    return _box_qp(P, q, A, b, C, solver, G=G, h=h, **options)


class _Start(NamedTuple):
    """First iterate of the decomposition (:func:`_plain_svm_start`)."""

    alpha: np.ndarray  # in the box, yᵀα = 0: libsvm's plain SVM
    order: np.ndarray  # rows by the distance of their margin from 1, likeliest free first
    size: int  # size of the first working set
    n_free: int  # libsvm's free support vectors


# Below this many rows one QP over all of them is as fast as a decomposition.
_MIN_DECOMPOSED = 200
_MIN_WORKING_SET = 100
# Decomposition rounds before falling back to one QP over all rows.
_MAX_ROUNDS = 50
# A held variable violates the KKT conditions when its reduced gradient has the wrong sign by
# more than this times (1 + max|q|): well above the restricted QPs' residual tolerance
# (1e-10), so that round-off in the multipliers adds no variable.
_KKT_TOL = 1e-7
# A working variable within this fraction of C of a bound whose reduced gradient exceeds
# _FIRMLY in magnitude leaves the working set: it stays at the bound in the next rounds.
_AT_BOUND = 1e-6
_FIRMLY = 1e-2


def _plain_svm_start(K, y_signed, C):
    """libsvm's plain SVM on K: the first iterate of the active-set method and of the
    decomposition, and the decomposition's first working set.

    ``None`` below ``_MIN_DECOMPOSED`` rows (one QP over all rows is as fast). A working
    set of more than two thirds of the rows (``size``) means one QP over all rows is
    cheaper than the decomposition. With a quarter of the rows or more free (``n_free``),
    the active-set method (:func:`_active_set_qp`) is tried first: its sets then change
    little, while from a start with few free variables they can oscillate.
    """
    n = len(y_signed)
    if n < _MIN_DECOMPOSED:
        return None
    with errors_naming("X"):  # libsvm: "The dual coefficients ... are not finite"
        svc = SVC(kernel="precomputed", C=C).fit(K, y_signed)
    alpha = np.zeros(n)
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    free = int(np.count_nonzero((alpha > 0) & (alpha < C)))
    size = max(_MIN_WORKING_SET, free + free // 5)
    margin = y_signed * (K @ (alpha * y_signed) + svc.intercept_[0])
    return _Start(alpha, np.argsort(np.abs(margin - 1.0), kind="stable"), size, free)


# Iterations of the primal-dual active-set method before the decomposition takes over.
_MAX_ACTIVE_SET_ITERATIONS = 30


def _active_set_qp(P, q, A, b, C, alpha):
    r"""Primal-dual active-set method for the box QP with equality rows only.

    Solves :math:`\min_\alpha \tfrac12\alpha^\top P\alpha + q^\top\alpha` subject to
    :math:`A\alpha = b` and :math:`0 \le \alpha \le C` (eq. (14) with ε = 0) by the
    primal-dual active-set iteration of Hintermüller, Ito & Kunisch (2003): the rows are
    split into those held at 0 (L), at C (U) and free (F); with L and U held, the free
    variables and the multipliers :math:`\nu` of the equality rows solve the KKT system

    .. math::

        \begin{pmatrix} P_{FF} & A_F^\top \\ A_F & 0\end{pmatrix}
        \begin{pmatrix} \alpha_F \\ \nu \end{pmatrix} =
        \begin{pmatrix} -q_F - C P_{FU}\mathbf 1 \\ b - C A_U \mathbf 1\end{pmatrix}

    (a Cholesky factor of :math:`P_{FF}` and the :math:`m \times m` Schur complement), and
    the reduced gradient :math:`r = P\alpha + q + A^\top\nu` moves rows between the sets:
    a free variable outside :math:`[0, C]` goes to the bound it crossed, a held variable
    whose :math:`r_i` has the wrong sign (:math:`r_i < 0` at 0, :math:`r_i > 0` at C) is
    freed. Many rows change in one iteration, so that from libsvm's plain SVM (``alpha``:
    its sets are near those of the constrained optimum) a few factorisations reach the
    optimum where an interior-point method needs tens of them over all n rows.

    The iteration is stopped when the KKT conditions of the whole problem hold to
    ``_KKT_TOL``: :math:`\alpha` in the box and feasible, :math:`|r_F|` small,
    :math:`r_L \ge 0`, :math:`r_U \le 0` — then α is the optimum (convex QP). ``None`` when
    they do not hold within ``_MAX_ACTIVE_SET_ITERATIONS`` iterations or :math:`P_{FF}` is
    not numerically positive definite (the method can cycle on some problems): the caller
    then solves the QP by another method.

    References
    ----------
    M. Hintermüller, K. Ito, K. Kunisch. The primal-dual active set strategy as a semismooth
    Newton method. SIAM J. Optim. 13(3), 865–888, 2003.
    """
    n, m = len(q), A.shape[0]
    tol = _KKT_TOL * (1.0 + float(np.max(np.abs(q))))
    state = np.ones(n, dtype=np.int8)  # 0: held at 0, 1: free, 2: held at C
    state[alpha <= _AT_BOUND * C] = 0
    state[alpha >= (1.0 - _AT_BOUND) * C] = 2
    cap, fewest = n, n + 1
    for _ in range(_MAX_ACTIVE_SET_ITERATIONS):
        free, upper = np.flatnonzero(state == 1), np.flatnonzero(state == 2)
        if len(free) < m:
            return None
        at_upper = np.zeros(n)
        at_upper[upper] = C
        rhs = np.empty((len(free), m + 1))
        rhs[:, 0] = -q[free] - (P @ at_upper)[free]
        rhs[:, 1:] = A[:, free].T
        try:  # P_FF by two contiguous takes (a third of the time of one fancy index)
            factor = linalg.cho_factor(
                P.take(free, axis=0).take(free, axis=1),
                lower=True,
                overwrite_a=True,
                check_finite=False,
            )
            solved = linalg.cho_solve(factor, rhs, overwrite_b=True, check_finite=False)
            schur = A[:, free] @ solved[:, 1:]
            nu = linalg.solve(schur, A[:, free] @ solved[:, 0] - (b - C * A[:, upper].sum(axis=1)))
        except (linalg.LinAlgError, ValueError):
            return None
        x = solved[:, 0] - solved[:, 1:] @ nu
        alpha = np.zeros(n)
        alpha[upper] = C
        alpha[free] = x
        reduced = P @ alpha + q + A.T @ nu
        if not np.all(np.isfinite(reduced)):
            return None
        freed_low = (state == 0) & (reduced < -tol)
        freed_high = (state == 2) & (reduced > tol)
        if (
            not (freed_low.any() or freed_high.any())
            and np.all(x >= -_KKT_TOL * C)
            and np.all(x <= (1.0 + _KKT_TOL) * C)
            and np.max(np.abs(reduced[free])) <= tol
            and np.max(np.abs(A @ alpha - b)) <= tol * max(C, 1.0)
        ):
            return np.clip(alpha, 0.0, C)
        # violations: of the box by free variables (in units of C), of the sign of r by
        # held ones (q = -1: r is of order 1)
        violation = np.zeros(n)
        violation[free] = np.maximum(-x, x - C) / C
        violation[freed_low | freed_high] = np.abs(reduced[freed_low | freed_high])
        moving = np.flatnonzero(violation > 0.0)
        if len(moving) == 0:  # the sets are stable but the KKT system's solution is
            return None  # not accurate enough (ill-conditioned P_FF)
        if len(moving) >= fewest:  # no progress: move fewer rows, the worst first
            cap = max(1, min(cap, len(moving)) // 2)
        fewest = min(fewest, len(moving))
        if len(moving) > cap:
            moving = moving[np.argsort(-violation[moving], kind="stable")[:cap]]
        to_free = moving[state[moving] != 1]
        leaving = moving[state[moving] == 1]
        state[leaving] = np.where(alpha[leaving] < 0.0, 0, 2)
        state[to_free] = 1
    return None


def _working_set_box_qp(P, q, A, b, C, solver, start, G=None, h=None, **options):
    r"""Decomposition (Osuna, Freund & Girosi 1997) of the box QP of :func:`_box_qp`.

    Variables outside the working set W are held at their values (0 or C, or libsvm's free
    values before they join W); the QP over W, with the held variables' contribution moved
    into its linear term and the right-hand sides of its constraints, is solved by
    :func:`qpsolvers.solve_problem`, whose multipliers :math:`\nu` (equality rows) and
    :math:`z \ge 0` (inequality rows) give the reduced gradient of every variable,
    :math:`r = P\alpha + q + A^\top\nu + G^\top z`. The full QP's KKT conditions hold when
    every held variable at 0 has :math:`r_i \ge 0` and every one at C has :math:`r_i \le 0`
    (W's variables satisfy them by the restricted QP's optimality). Otherwise the most
    violating variables join W and W's variables at a bound with a large :math:`|r_i|`
    leave it: the objective decreases strictly from round to round. The first W holds
    libsvm's free support vectors and the rows nearest the margin (``start``). A restricted
    QP without a solution grows W along ``start.order``; with W = all rows, or after
    ``_MAX_ROUNDS`` rounds, one QP over all rows is solved instead.
    """
    n = len(q)
    alpha = start.alpha.copy()
    working = np.union1d(start.order[: start.size], np.flatnonzero((alpha > 0) & (alpha < C)))
    tol = _KKT_TOL * (1.0 + float(np.max(np.abs(q))))
    restricted_options = options
    if solver == "piqp":  # tighter than PIQP's 1e-8: cheap on the small restricted QPs
        restricted_options = {"backend": "dense", "eps_abs": 1e-10, "eps_rel": 1e-10, **options}
    elif solver == "proxqp":
        restricted_options = {"backend": "dense", **options}
    for _ in range(_MAX_ROUNDS):
        held = np.ones(n, dtype=bool)
        held[working] = False
        solution = _restricted_qp(
            P, q, A, b, C, G, h, working, held, alpha, solver, restricted_options
        )
        if solution is None:
            if len(working) == n:
                break
            working = np.union1d(working, start.order[: min(n, 2 * len(working))])
            continue
        alpha[working] = np.clip(solution.x, 0.0, C)
        reduced = P @ alpha + q + A.T @ solution.y
        if G is not None:
            reduced += G.T @ solution.z
        held_rows = np.flatnonzero(held)
        violation = np.where(alpha[held_rows] <= 0.0, -reduced[held_rows], reduced[held_rows])
        worst = np.argsort(-violation, kind="stable")
        worst = worst[violation[worst] > tol][: max(_MIN_WORKING_SET // 2, len(working) // 2)]
        if worst.size == 0:
            return alpha
        # W's variables firmly at a bound leave it, snapped onto the bound
        at_bound = np.minimum(alpha[working], C - alpha[working]) <= _AT_BOUND * C
        leaving = working[at_bound & (np.abs(reduced[working]) >= _FIRMLY)]
        alpha[leaving] = np.where(alpha[leaving] < C / 2, 0.0, C)
        working = np.union1d(np.setdiff1d(working, leaving), held_rows[worst])
    return _box_qp(P, q, A, b, C, solver, G=G, h=h, **options)


def _restricted_qp(P, q, A, b, C, G, h, working, held, alpha, solver, options):
    """The QP over the working set, held variables fixed; ``None`` when unsolved."""
    fixed = alpha[held]
    problem = qpsolvers.Problem(
        P[np.ix_(working, working)],
        q[working] + P[np.ix_(working, np.flatnonzero(held))] @ fixed,
        G=None if G is None else G[:, working],
        h=None if G is None else h - G[:, held] @ fixed,
        A=A[:, working],
        b=b - A[:, held] @ fixed,
        lb=np.zeros(len(working)),
        ub=np.full(len(working), float(C)),
    )
    solution = qpsolvers.solve_problem(problem, solver=solver, **options)
    if not solution.found or solution.x is None or not np.all(np.isfinite(solution.x)):
        return None
    return solution


def _constraint_rows(y_signed, fairness_row, epsilon):
    r"""``A, b, G, h`` of eq. (14): :math:`y^\top\alpha = 0` and the fairness row."""
    A, b, G, h = y_signed[None, :], np.zeros(1), None, None
    if fairness_row is not None:
        if epsilon == 0:
            A, b = np.vstack([A, fairness_row]), np.zeros(2)
        else:
            G, h = np.vstack([fairness_row, -fairness_row]), np.full(2, float(epsilon))
    return A, b, G, h


def _lifted_box_qp(features, y_signed, A, b, C, solver, G=None, h=None, **options):
    r"""Eq. (14) with :math:`K = \Phi\Phi^\top`, lifted by :math:`w = \Phi^\top(y\circ\alpha)`.

    .. math::

        \min_{\alpha, w}\ \tfrac12 w^\top w - 1^\top\alpha \quad\text{s.t.}\quad
        w - \Phi^\top(y\circ\alpha) = 0,\ A\alpha = b,\ G\alpha \le h,\
        0 \le \alpha \le C,

    whose α-part is eq. (14)'s problem (eliminate w). Sparse KKT systems with one dense
    :math:`p \times n` block: :math:`O(np^2)` per interior-point step (n = 1302, p = 94:
    ≈ 0.02 s against ≈ 0.8 s for the dense n × n problem, same α to the solver's tolerance).
    """
    n, p = features.shape
    hessian = sparse.diags(np.r_[np.zeros(n), np.ones(p)], format="csc")
    coupling = sparse.hstack(
        [sparse.csc_array(-(features * y_signed[:, None]).T), sparse.identity(p, format="csc")]
    )
    pad = sparse.csc_array((A.shape[0], p))
    A_lifted = sparse.vstack([coupling, sparse.hstack([sparse.csc_array(A), pad])], format="csc")
    G_lifted = None
    if G is not None:
        G_lifted = sparse.hstack([sparse.csc_array(G), sparse.csc_array((G.shape[0], p))])
        G_lifted = G_lifted.tocsc()
    if solver == "piqp":  # tighter than PIQP's 1e-8: cheap here, and α's zeros get ~1e-12
        options = {"backend": "sparse", "eps_abs": 1e-11, "eps_rel": 1e-11, **options}
    elif solver == "proxqp":
        options = {"backend": "sparse", **options}
    solution = qpsolvers.solve_qp(
        hessian,
        np.r_[-np.ones(n), np.zeros(p)],
        G=G_lifted,
        h=h,
        A=A_lifted,
        b=np.r_[np.zeros(p), b],
        lb=np.r_[np.zeros(n), np.full(p, -np.inf)],
        ub=np.r_[np.full(n, float(C)), np.full(p, np.inf)],
        solver=solver,
        **options,
    )
    if solution is None:
        raise ValueError(NO_SOLUTION.format(solver=solver, n=n, C=C))
    return np.clip(solution[:n], 0.0, C)


NO_SOLUTION = (
    "QP solver {solver!r} found no solution (n = {n}, C = {C}): the kernel matrix of X or C "
    "are outside the range it can handle; rescale X, or choose C nearer 1."
)


def svm_intercept(alpha, y_signed, f0, C, mode, sv_tol):
    """Intercept from the KKT conditions (``free``) or the reference's mean over all SVs."""
    support = alpha > sv_tol * C
    if mode == "all_support":
        return float(np.mean(y_signed[support] - f0[support])) if support.any() else 0.0
    free = support & (alpha < C * (1 - sv_tol))
    if free.any():
        return float(np.mean(y_signed[free] - f0[free]))
    # No free SV: midpoint of the interval the KKT conditions allow (as libsvm does).
    at_zero, at_c = ~support, ~(alpha < C * (1 - sv_tol))
    lower = np.r_[1 - f0[at_zero & (y_signed > 0)], -1 - f0[at_c & (y_signed < 0)]]
    upper = np.r_[-1 - f0[at_zero & (y_signed < 0)], 1 - f0[at_c & (y_signed > 0)]]
    lo = lower.max() if lower.size else -np.inf
    hi = upper.min() if upper.size else np.inf
    if np.isfinite(lo) and np.isfinite(hi):
        return float(0.5 * (lo + hi))
    return float(lo if np.isfinite(lo) else hi if np.isfinite(hi) else 0.0)


def _box_qp(P, q, A, b, C, solver, G=None, h=None, **options):
    """α minimising ½αᵀPα + qᵀα with 0 ≤ α ≤ C, Aα = b, Gα ≤ h (dense qpsolvers backend)."""
    n = len(q)
    if solver in ("piqp", "proxqp"):
        options = {"backend": "dense", **options}
    alpha = qpsolvers.solve_qp(
        P,
        q,
        G=G,
        h=h,
        A=A,
        b=b,
        lb=np.zeros(n),
        ub=np.full(n, float(C)),
        solver=solver,
        **options,
    )
    if alpha is None:
        raise ValueError(NO_SOLUTION.format(solver=solver, n=n, C=C))
    return np.clip(alpha, 0.0, C)


def _libsvm_dual(K, y, C, tol, max_iter):
    """α of the SVM dual on the precomputed kernel K (libsvm; K is not copied)."""
    with errors_naming("X"):  # libsvm: "The dual coefficients ... are not finite"
        svc = SVC(kernel="precomputed", C=C, tol=tol, max_iter=max_iter).fit(K, y)
    alpha = np.zeros(len(y))
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    return alpha


def _offset_dual(K, y, C, offset, solver, sv_tol):
    r"""α of the SVM with fixed decision offsets: dual linear term :math:`o\circ y - 1`.

    Overwrites K with :math:`yy^\top\circ K` and returns it as the second value.
    """
    K *= y[:, None]
    K *= y  # y = ±1: exact
    alpha = _box_qp(K, offset * y - 1.0, y[None, :], np.zeros(1), C, solver)
    alpha[alpha <= sv_tol * C] = 0.0
    return alpha, K


def solve_exact_dual(
    K, y, C, v=None, epsilon=0.0, *, tol=1e-3, max_iter=-1, solver="piqp", sv_tol=1e-6
):
    r"""Solve the Lagrangian dual of the FERM primal (module docstring); K is overwritten.

    Parameters
    ----------
    K : ndarray of shape (n, n), C-contiguous float64
        Training kernel matrix; used as workspace (holds :math:`K'` or
        :math:`yy^\top\circ K'` afterwards).
    y : ndarray of shape (n,)
        Labels in {−1, +1}.
    C : float
        Box bound.
    v : ndarray of shape (n,), default=None
        :math:`1_{A_1}/|A_1| - 1_{A_0}/|A_0|`; ``None``: no constraint (the plain SVM).
    epsilon : float, default=0
        Bound on :math:`|\langle w, u\rangle|`.
    tol : float, default=1e-3
        libsvm's stopping tolerance (as :class:`~sklearn.svm.SVC`).
    max_iter : int, default=-1
        libsvm's iteration cap (−1: none).
    solver : str, default="piqp"
        :mod:`qpsolvers` backend for an active ε > 0 constraint.
    sv_tol : float, default=1e-6
        QP solutions: α below ``sv_tol * C`` is set to 0.

    Returns
    -------
    ExactDual
    """
    y = np.asarray(y, dtype=float)
    norm2 = 0.0
    if v is not None:
        tau, norm2 = fairness_direction(K, v)
        if norm2 <= _ZERO_DIRECTION * max(float(np.max(np.diagonal(K))), 0.0):
            v = None  # u = 0: every w satisfies the constraint
    side = 0.0
    if v is None or epsilon > 0:
        alpha = _libsvm_dual(K, y, C, tol, max_iter)
        decision = K @ (alpha * y)
        if v is None or abs(v @ decision) <= epsilon:
            return _solution(alpha, 0.0, decision, 0.0, y)
        side = float(np.sign(v @ decision)) * epsilon  # active face ⟨w, u⟩ = ±ε
    project_gram(K, tau, norm2)
    if side == 0.0:
        alpha = _libsvm_dual(K, y, C, tol, max_iter)
        decision = K @ (alpha * y)
    else:
        offset = side * tau / norm2
        alpha, P = _offset_dual(K, y, C, offset, solver, sv_tol)
        decision = y * (P @ alpha) + offset
    mu = (tau @ (alpha * y) - side) / norm2
    return _solution(alpha, mu, decision, epsilon * abs(mu), y, v)


def _solution(alpha, mu, decision, penalty, y, v=None):
    beta = alpha * y if v is None else alpha * y - mu * v
    objective = 0.5 * float(beta @ decision) - float(alpha.sum()) + penalty
    return ExactDual(alpha, float(mu), decision, objective)
