r"""The primal QP shared by the exactly solved linear SVMs (:mod:`krepro.fairness.linear_svc`,
:mod:`krepro.fairness.linear_svr`).

Both minimise a squared norm of the weights plus a linear cost of non-negative slacks,

.. math:: \min_{w, b, s}\ \frac{1}{2\kappa}\lVert w\rVert^2 + c\,\mathbf 1^\top s
          \quad\text{s.t.}\quad G\,(w, b, s) \le h,\ s \ge 0,

over :math:`(w, b, s) \in \mathbb R^{d + 1 + n}` (the intercept b is free and unpenalised),
solved by a sparse interior-point method through :mod:`qpsolvers`.
"""

from __future__ import annotations

import numpy as np
import qpsolvers
from scipy import sparse

__all__ = ["solve_slack_qp"]


def solve_slack_qp(n_features, G, h, *, norm_divisor, slack_cost, solver, tol):
    r"""Solve the QP of the module docstring; return ``(w, b)``.

    Parameters
    ----------
    n_features : int
        d.
    G : sparse matrix of shape (k, d + 1 + n)
        Constraint rows over :math:`(w, b, s)`.
    h : ndarray of shape (k,)
    norm_divisor : float
        :math:`\kappa`.
    slack_cost : float
        c.
    solver : str
        A sparse QP solver known to :mod:`qpsolvers`.
    tol : float
        Absolute and relative residual tolerance.

    Raises
    ------
    ValueError
        If the solver returns no (finite) solution: it happens when the data (``X``, ``y``)
        or ``C`` are far outside the range the solver's tolerances are made for.
    """
    d = n_features
    n = G.shape[1] - d - 1
    P = sparse.block_diag(
        [sparse.identity(d) / float(norm_divisor), sparse.csc_array((n + 1, n + 1))], "csc"
    )
    q = np.concatenate([np.zeros(d + 1), np.full(n, float(slack_cost))])
    lower = np.concatenate([np.full(d + 1, -np.inf), np.zeros(n)])
    solution = qpsolvers.solve_qp(P, q, G, h, lb=lower, solver=solver, eps_abs=tol, eps_rel=tol)
    if solution is None or not np.all(np.isfinite(solution)):
        scale = float(np.max(np.abs(G.data), initial=0.0))
        raise ValueError(
            f"The QP solver {solver!r} found no solution: X, y or C are outside the range it "
            f"can handle (largest |constraint entry| {scale:.3g}, C = {norm_divisor * slack_cost:g}"
            f"); rescale X and y, or choose C nearer 1."
        )
    return solution[:d], float(solution[d])
