r"""Oblivious features and the oblivious kernel matrix (Grünewälder & Khaleghi, JMLR 2021).

The oblivious feature of a point :math:`(x, s)` is (paper eq. (9))

.. math::

    Z = \varphi(x) - E^S_n\varphi(X)\big|_{S=s} + E_n\varphi(X),

with the plug-in conditional expectation of §6.1 estimated on a separate estimation sample
:math:`(x_v, s_v)_{v=1}^m`. Writing the estimated conditional means of the cells and the
overall mean as :math:`g = (E_1, \dots, E_L, \bar E)` and :math:`r(s) = (-e_{a(s)}, 1)` (the
negated one-hot cell membership with a trailing one),

.. math::

    Z(x, s) = \varphi(x) + \sum_k r_k(s)\, g_k .

All inner products therefore reduce to kernel evaluations plus a rank-:math:`(L+1)`
correction (Appendix E.1–E.2, Algorithm 1):

.. math::

    \langle Z(a_i), Z(b_j)\rangle = K_{ab} + P_a r_b^\top + r_a P_b^\top + r_a Q r_b^\top,
    \qquad P_a = K(a, \mathrm{est})\, G, \quad Q = G^\top K(\mathrm{est}, \mathrm{est})\, G,

where the columns of :math:`G` (shape ``(m, L+1)``) are the averaging weights of the cell
means and of the overall mean. Expanded, this is exactly Algorithm 1's
:math:`O_{ij} = k_{ij} - \xi_{i,a} - \xi_{j,b} + o_{b,a} + M + \rho_i + \rho_j - \tau_a -
\tau_b`. The cost is the three kernel blocks plus :math:`O(n^2 L)` for the correction,
instead of the reference implementation's Python double loop.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from krepro.conditional import PartitionConditionalMean, make_partition
from krepro.kernels import KERNELS, gram, kernel_params
from krepro.validation import check_not_given, check_sensitive_features

# Constraints of the kernel and conditional-mean parameters, shared with krepro.ridge.
KERNEL_CONSTRAINTS = {
    "kernel": [StrOptions(set(KERNELS))],
    "gamma": [Interval(Real, 0, None, closed="neither"), None],
    "degree": [Interval(Real, 0, None, closed="left")],
    "coef0": [Interval(Real, None, None, closed="neither")],
    "kernel_params": [dict, None],
    "partition": [StrOptions({"values", "dyadic"}), HasMethods(["fit", "assign"])],
    "partition_bounds": ["array-like", None],
    "cells_per_axis": [Interval(Integral, 1, None, closed="left")],
    "conditional_mean": [HasMethods(["fit", "membership"]), None],
}

__all__ = ["ObliviousFeatures", "ObliviousKernel"]


class _CellAverager:
    r"""Right-multiplication :math:`K \mapsto K G` for estimation points sorted by cell.

    Column ``a < L`` of :math:`G` averages the estimation points of cell ``a`` (zero for an
    empty cell), column ``L`` averages all of them. With the points sorted by cell, each
    cell is a contiguous range of columns of ``K``, so :math:`KG` is one
    :func:`numpy.add.reduceat` pass instead of a dense matrix product.

    Parameters
    ----------
    sorted_cells : ndarray of shape (m,)
        Cell of each estimation point in sorted order; ``-1`` (in no cell) last.
    n_cells : int
    """

    def __init__(self, sorted_cells, n_cells):
        in_cells = int(np.count_nonzero(sorted_cells >= 0))
        counts = np.bincount(sorted_cells[:in_cells], minlength=n_cells)
        self.occupied = np.flatnonzero(counts)
        self.counts = counts[self.occupied]
        starts = (np.cumsum(counts) - counts)[self.occupied]
        # reduceat's last segment runs to the end: close the cells before the no-cell points.
        extra = [in_cells] if in_cells < len(sorted_cells) else []
        self.boundaries = np.concatenate([starts, extra]).astype(np.intp)
        self.n_cells = n_cells
        self.n_points = len(sorted_cells)

    def __call__(self, K):
        """Return :math:`K G`, shape ``(K.shape[0], n_cells + 1)``."""
        segment_sums = np.add.reduceat(K, self.boundaries, axis=1)
        out = np.zeros((K.shape[0], self.n_cells + 1))
        out[:, self.occupied] = segment_sums[:, : len(self.occupied)] / self.counts
        out[:, self.n_cells] = segment_sums.sum(axis=1) / self.n_points
        return out


class _WeightCombiner:
    r"""Right-multiplication :math:`K \mapsto K G` for general weights ``W`` (G = [W, 1/m])."""

    def __init__(self, weights):
        self.weights = weights

    def __call__(self, K):
        conditional = (self.weights.T @ K.T).T  # sparse-aware: W may be scipy.sparse
        return np.hstack([np.asarray(conditional), K.mean(axis=1, keepdims=True)])


def _symmetric_partition_gram(kernel, X, P, Q, cells, block_size=1024):
    r"""Oblivious Gram :math:`O = K + T + T^\top` of ``X`` with itself, for one-hot cells.

    With :math:`A = P + \tfrac12 R Q` and :math:`r(s) = (-e_{a(s)}, 1)`, the correction is
    :math:`T_{ij} = A_{i,L} - A_{i,a(s_j)} = V_{i, a(s_j)}` with
    :math:`V = [A_{:,L} - A_{:, :L},\ A_{:,L}]` (column ``L`` for a point in no cell), so
    :math:`O_{ij} = K_{ij} + V_{i,a(s_j)} + V_{j,a(s_i)}` — two gathers instead of a matrix
    product. Blocks are filled for I ≤ J only and mirrored, so the kernel is evaluated on half
    of the pairs and O is exactly symmetric.
    """
    n_cells = Q.shape[0] - 1
    n = X.shape[0]
    cells = np.where(cells >= 0, cells, n_cells)
    coefficients = np.zeros((n, n_cells + 1))
    coefficients[np.arange(n), cells] = -1.0
    coefficients[:, n_cells] = 1.0  # r(s) = (-e_a, 1); a point in no cell has r = (0, 1)
    A = P + 0.5 * coefficients @ Q
    V = np.hstack([A[:, n_cells : n_cells + 1] - A[:, :n_cells], A[:, n_cells : n_cells + 1]])
    V_by_cell = np.ascontiguousarray(V.T)  # row a: V[:, a]; gathers below read rows
    O = np.empty((n, n))
    for start_i in range(0, n, block_size):
        rows = slice(start_i, min(start_i + block_size, n))
        for start_j in range(start_i, n, block_size):
            cols = slice(start_j, min(start_j + block_size, n))
            block = kernel(X[rows], X[cols])
            if start_i == start_j:  # the kernel's own round-off may break symmetry here
                block += block.T
                block *= 0.5
            # Sum the two gathers first: a + b == b + a keeps O exactly symmetric.
            block += np.take(V[rows], cells[cols], axis=1) + np.take(
                V_by_cell[:, cols], cells[rows], axis=0
            )
            O[rows, cols] = block
            O[cols, rows] = block.T
    return O


class ObliviousKernel(BaseEstimator):
    r"""Kernel between oblivious features :math:`\langle Z(a), Z(b)\rangle` (paper eq. (9)).

    ``fit`` takes the estimation half :math:`(X_{est}, S_{est})` of the paper's 2n-sample
    split; :meth:`gram` then returns oblivious Gram matrices between any two sets of points
    (Algorithm 1 for train × train, Appendix E.2 for test × train), and :meth:`mixed_gram`
    the M-Oblivious cross products :math:`\langle Z(a), \varphi(b)\rangle`.

    Parameters
    ----------
    kernel : str, default="rbf"
        Kernel name understood by :func:`krepro.kernels.gram`.
    gamma : float > 0, default=None
        RBF / polynomial scale, :math:`k(x,y)=\exp(-\gamma\lVert x-y\rVert^2)` for RBF.
        ``None`` means ``1 / n_features``.
    degree : int, default=3
        Polynomial degree.
    coef0 : float, default=1.0
        Polynomial offset.
    kernel_params : dict, default=None
        Further kernel parameters (e.g. ``{"nu": 2.5}`` for Matérn).
    partition : {"values", "dyadic"} or partition object, default="values"
        ``"values"`` makes each distinct value of S a cell (finite S: labels of any hashable
        type, encoded by :class:`krepro.validation.GroupEncoder`; a value never seen in
        :meth:`fit` is a ``ValueError``). ``"dyadic"`` splits the
        box ``partition_bounds`` into ``cells_per_axis`` cells per axis; points outside the
        box raise ``ValueError``. Any :mod:`krepro.conditional` partition object is also
        accepted.
    partition_bounds : (low, high), default=None
        Box of the dyadic partition (scalars or per-axis arrays).
    cells_per_axis : int, default=16
        Cells per axis of the dyadic partition (16 = the paper's ridge experiments).
    conditional_mean : estimator, default=None
        Estimator of :math:`E[\varphi(X)|S]`. ``None`` is the paper's partition plug-in
        (built from ``partition``, ``partition_bounds``, ``cells_per_axis``); a
        :class:`krepro.cme.CMEConditionalMean` uses the kernel (CME) estimator
        :math:`\sum_v \alpha_v(s)\varphi(x_v)` instead, for continuous or multi-dimensional S.
        Any object with ``fit(S)``, ``weights_`` (m × L) and ``membership(S)`` (n × L) such
        that :math:`E[\varphi(X)|S=s] = \sum_v (W\,\mathrm{membership}(s)^\top)_v
        \varphi(x_v)` works; it is cloned before fitting.

    Attributes
    ----------
    conditional_mean_ : PartitionConditionalMean or the given estimator, fitted
        Fitted on :math:`S_{est}`. The partition plug-in knows which estimation points fall
        in every cell; empty cells have estimate 0 (Algorithm 1's convention).
    X_estimation_ : ndarray of shape (m, n_features)
        Estimation points, sorted by cell (``X[estimation_order_]``).
    estimation_order_ : ndarray of shape (m,)
        Permutation that sorts the estimation sample by cell (points in no cell last).
    component_weights_ : ndarray of shape (m, n_cells + 1)
        :math:`G` (rows in the order of ``X_estimation_``): cell-averaging weights, then the
        uniform weights of the overall mean.
    component_gram_ : ndarray of shape (n_cells + 1, n_cells + 1)
        :math:`Q = G^\top K(\mathrm{est}, \mathrm{est}) G`: inner products between the cell
        means :math:`o_{a,b}`, with the overall mean :math:`\tau_a`, and :math:`M`.
    single_group_ : bool
        True when fitted without sensitive features (one group: Z = φ(X)); then
        :meth:`gram` must be called without them, otherwise with them.
    combiner_ : callable
        Right-multiplication :math:`K \mapsto K G` by the component weights (a sum over
        contiguous ranges of cell-sorted columns for partitions).
    n_features_in_ : int
        Number of non-sensitive features.

    References
    ----------
    S. Grünewälder and A. Khaleghi. Oblivious Data for Fairness with Kernels. JMLR 22(208),
    2021. §6.3, Algorithm 1, Appendix E.

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.oblivious import ObliviousKernel
    >>> rng = np.random.default_rng(0)
    >>> S = rng.integers(0, 2, 40); X = S[:, None] + rng.normal(size=(40, 2))
    >>> ok = ObliviousKernel(kernel="rbf", gamma=0.5, partition="values")
    >>> ok = ok.fit(X[20:], sensitive_features=S[20:])
    >>> O = ok.gram(X[:20], S[:20])             # train x train
    >>> O_test = ok.gram(X[:5], S[:5], X[:20], S[:20])  # test x train
    >>> O.shape, O_test.shape
    ((20, 20), (5, 20))
    """

    def __init__(
        self,
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1.0,
        kernel_params=None,
        partition="values",
        partition_bounds=None,
        cells_per_axis=16,
        conditional_mean=None,
    ):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.partition = partition
        self.partition_bounds = partition_bounds
        self.cells_per_axis = cells_per_axis
        self.conditional_mean = conditional_mean

    _parameter_constraints: ClassVar[dict] = dict(KERNEL_CONSTRAINTS)

    def _kernel(self, X, Y=None):
        params = kernel_params(self.kernel, self.gamma, self.degree, self.coef0, self.kernel_params)
        return gram(X, Y, self.kernel, **params)

    @_fit_context(prefer_skip_nested_validation=False)  # conditional_mean: a user estimator
    def fit(self, X, y=None, *, sensitive_features=None):
        """Estimate the conditional means from the estimation sample.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
            Non-sensitive features of the estimation half.
        y : ignored
        sensitive_features : array-like of shape (m,) or (m, d), default=None
            Sensitive features of the estimation half; ``None`` means a single group.

        Returns
        -------
        self : ObliviousKernel
        """
        X = validate_data(self, X, dtype=float)
        self.single_group_ = sensitive_features is None
        if self.single_group_:
            S = np.zeros((X.shape[0], 1))  # one group: E[φ(X)|S] is the mean
        else:
            S = check_sensitive_features(sensitive_features, X.shape[0])
        if self.conditional_mean is None:
            partition = make_partition(
                self.partition, bounds=self.partition_bounds, cells_per_axis=self.cells_per_axis
            )
            estimator = PartitionConditionalMean(partition)
        else:
            estimator = clone(self.conditional_mean)
        m = X.shape[0]
        if getattr(estimator, "needs_output_gram", False):
            # e.g. the CME selects its λ by cross-validating the regression of φ(X) on S
            self.conditional_mean_ = estimator.fit(S, output_gram=self._kernel(X))
        else:
            self.conditional_mean_ = estimator.fit(S)
        if hasattr(self.conditional_mean_, "cell_index_"):
            cells = self.conditional_mean_.cell_index_
            n_cells = self.conditional_mean_.n_cells_
            # Sort the estimation points by cell (points in no cell last): products with the
            # cell-averaging matrix G become sums over contiguous column ranges.
            order = np.argsort(np.where(cells >= 0, cells, n_cells), kind="stable")
            self.combiner_ = _CellAverager(cells[order], n_cells)
        else:
            order = np.arange(m)
            self.combiner_ = _WeightCombiner(self.conditional_mean_.weights_)
        self.estimation_order_ = order
        self.X_estimation_ = X[order]
        weights = self.conditional_mean_.weights_[order]
        weights = weights.toarray() if sparse.issparse(weights) else np.asarray(weights)
        self.component_weights_ = np.hstack([weights, np.full((m, 1), 1.0 / m)])
        cross = self.combiner_(self._kernel(self.X_estimation_))  # K G, shape (m, L + 1)
        component_gram = self.combiner_(np.ascontiguousarray(cross.T))  # Gᵀ K G
        self.component_gram_ = 0.5 * (component_gram + component_gram.T)
        return self

    # -- building blocks -------------------------------------------------------------------

    def _check_points(self, X, S):
        X = validate_data(self, X, dtype=float, reset=False)
        if self.single_group_:
            check_not_given(S, "sensitive_features")
            return X, np.zeros((X.shape[0], 1))
        if S is None:
            raise ValueError(
                "sensitive_features are required: the estimator was fitted with sensitive "
                "features, so every point needs its own to form its oblivious feature."
            )
        return X, check_sensitive_features(S, X.shape[0])

    def _component_products(self, X):
        """:math:`P = K(X, \\mathrm{est}) G`: products of φ(x) with cell means and mean."""
        return self.combiner_(self._kernel(X, self.X_estimation_))

    def _coefficients(self, S):
        """:math:`r(s) = (-e_{a(s)}, 1)`, the coordinates of Z − φ(x) in the components."""
        membership = self.conditional_mean_.membership(S)
        membership = membership.toarray() if sparse.issparse(membership) else membership
        return np.hstack([-membership, np.ones((membership.shape[0], 1))])

    # -- public API ------------------------------------------------------------------------

    def gram(self, XA, SA=None, XB=None, SB=None):
        r"""Oblivious Gram matrix :math:`\langle Z(a_i), Z(b_j)\rangle`.

        Parameters
        ----------
        XA : array-like of shape (n_a, n_features)
        SA : array-like of shape (n_a,) or (n_a, d), default=None
            Sensitive features of ``XA`` (``None``: single group).
        XB, SB : array-like, default=None
            Second set of points; ``XB=None`` returns the symmetric matrix of ``XA`` with
            itself (the oblivious matrix :math:`O` of Algorithm 1).

        Returns
        -------
        O : ndarray of shape (n_a, n_b)
            Symmetric positive semi-definite when ``XB`` is None.
        """
        check_is_fitted(self, "component_gram_")
        XA, SA = self._check_points(XA, SA)
        P_a, R_a = self._component_products(XA), self._coefficients(SA)
        Q = self.component_gram_
        if XB is None:
            if hasattr(self.conditional_mean_, "cell_of"):
                cells = self.conditional_mean_.cell_of(SA)
                return _symmetric_partition_gram(self._kernel, XA, P_a, Q, cells)
            # General estimator: T = (P + ½ R Q) Rᵀ, and O = sym(K) + T + Tᵀ exactly symmetric.
            T = (P_a + 0.5 * R_a @ Q) @ R_a.T
            T += T.T
            O = self._kernel(XA)
            O += O.T  # the kernel block itself may differ from its transpose by round-off
            O *= 0.5
            O += T
            return O
        XB, SB = self._check_points(XB, SB)
        P_b, R_b = self._component_products(XB), self._coefficients(SB)
        O = self._kernel(XA, XB)
        O += np.hstack([P_a, R_a]) @ np.hstack([R_b, P_b + R_b @ Q]).T
        return O

    def plain_gram(self, XA, XB=None):
        """Plain kernel matrix :math:`k(a_i, b_j)` with this estimator's kernel parameters."""
        check_is_fitted(self, "component_gram_")
        XA = validate_data(self, XA, dtype=float, reset=False)
        XB = None if XB is None else validate_data(self, XB, dtype=float, reset=False)
        return self._kernel(XA, XB)

    def mixed_gram(self, XA, SA, XB):
        r"""M-Oblivious cross products :math:`\langle Z(a_i), \varphi(b_j)\rangle`.

        This is what the M-Oblivious predictor needs (§6.3, Case 1): a kernel method trained
        on the plain Gram of the points ``XB`` is applied to oblivious features of ``XA``.
        Each entry is :math:`k(a_i, b_j) - \xi_{j, a(s_i)} + \rho_j`.
        """
        check_is_fitted(self, "component_gram_")
        XA, SA = self._check_points(XA, SA)
        XB = validate_data(self, XB, dtype=float, reset=False)
        return self._kernel(XA, XB) + self._coefficients(SA) @ self._component_products(XB).T


from krepro.oblivious_features import ObliviousFeatures  # noqa: E402  (explicit features)
