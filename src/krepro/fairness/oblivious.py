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
\tau_b`. The kernel blocks are evaluated tile by tile (:mod:`krepro.fairness.tiled_gram`): half of
the symmetric blocks :math:`K(\mathrm{est}, \mathrm{est})` and :math:`K(a, a)`, and of
:math:`K(\mathrm{est}, \mathrm{est})` and :math:`K(a, \mathrm{est})` only the products
with :math:`G` are kept, so the cost is below that of computing the three blocks and the
memory is the returned matrix, instead of the reference implementation's Python double
loop over all pairs.
"""

from __future__ import annotations

from collections import OrderedDict
from numbers import Integral
from typing import ClassVar

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from krepro.content_key import cached_by_content
from krepro.fairness.conditional import PartitionConditionalMean, make_partition
from krepro.fairness.oblivious_features import KERNEL_CONSTRAINTS, PARTITION_CONSTRAINTS
from krepro.fairness.tiled_gram import (
    KernelTiles,
    LowRankCorrection,
    cell_correction,
    cross_products,
    fill_gram,
    symmetric_products,
    tile_ranges,
)
from krepro.kernel_safety import check_finite
from krepro.kernels import (
    BOUNDED_KERNELS,
    gram,
    kernel_params,
    warn_if_degenerate_points,
)
from krepro.validation import (
    check_kernel_params,
    check_not_given,
    check_sensitive_features,
    validate_data,
)

# Constraints of the kernel and conditional-mean parameters, shared with krepro.fairness.ridge.
OBLIVIOUS_CONSTRAINTS = {**KERNEL_CONSTRAINTS, **PARTITION_CONSTRAINTS}

__all__ = ["ObliviousFeatures", "ObliviousKernel"]


class _CellComponents:
    r"""Products :math:`K \mapsto K G` for estimation points sorted by cell.

    Column ``a < L`` of :math:`G` averages the estimation points of cell ``a`` (zero for an
    empty cell), column ``L`` averages all of them. :math:`KG` is computed from the segment
    sums :math:`KE`, where column ``a`` of the indicator matrix :math:`E` marks cell ``a``
    and column ``L`` the points in no cell (:func:`finish`); with the points sorted by cell
    the nonzeros of :math:`E` in a tile of rows span a few columns only.

    Parameters
    ----------
    sorted_cells : ndarray of shape (m,)
        Cell of each estimation point in sorted order; ``-1`` (in no cell) last.
    n_cells : int
    """

    def __init__(self, sorted_cells, n_cells):
        m = len(sorted_cells)
        segment = np.where(sorted_cells >= 0, sorted_cells, n_cells)
        self.indicators = np.zeros((m, n_cells + 1))
        self.indicators[np.arange(m), segment] = 1.0
        counts = np.bincount(segment, minlength=n_cells + 1)[:n_cells]
        self.occupied = np.flatnonzero(counts)
        self.counts = counts[self.occupied]
        self.n_cells = n_cells
        self.n_points = m

    def finish(self, sums):
        """:math:`KG` from the segment sums :math:`KE`: cell averages, then the overall one."""
        out = np.zeros((sums.shape[0], self.n_cells + 1))
        out[:, self.occupied] = sums[:, self.occupied] / self.counts
        out[:, self.n_cells] = sums.sum(axis=1) / self.n_points
        return out

    def __call__(self, K):
        """Return :math:`K G`, shape ``(K.shape[0], n_cells + 1)``, for a full block ``K``."""
        return self.finish(K @ self.indicators)


class _WeightCombiner:
    r"""Right-multiplication :math:`K \mapsto K G` for general weights ``W`` (G = [W, 1/m])."""

    def __init__(self, weights):
        self.weights = weights

    def __call__(self, K):
        conditional = (self.weights.T @ K.T).T  # sparse-aware: W may be scipy.sparse
        return np.hstack([np.asarray(conditional), K.mean(axis=1, keepdims=True)])


def _cell_table(A):
    r""":math:`[A_{:,L} - A_{:,:L},\ A_{:,L}]`: column ``c`` is :math:`\langle A_i, r\rangle`
    for the coefficients :math:`r = (-e_c, 1)` of cell ``c`` (``c = L``: in no cell)."""
    last = A[:, -1:]
    return np.hstack([last - A[:, :-1], last])


# Entries of the cache of K(X, est) G products (train, validation and test sets, say).
_PRODUCT_CACHE_SIZE = 4


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
        RBF / polynomial scale, :math:`k(x,y)=\exp(-\gamma\lVert x-y\rVert^2)` for RBF,
        finite. ``None`` means ``1 / n_features``.
    degree : int >= 0, default=3
        Polynomial degree (an integer: a fractional power of a negative inner product is
        NaN).
    coef0 : float, default=1.0
        Polynomial offset, finite.
    kernel_params : dict, default=None
        Further kernel parameters (e.g. ``{"nu": 2.5}`` for Matérn): names the kernel takes,
        finite values (``gamma`` and ``length_scale`` > 0).
    partition : {"values", "dyadic"} or partition object, default="values"
        ``"values"`` makes each distinct value of S a cell (finite S: labels of any hashable
        type, encoded by :class:`krepro.validation.GroupEncoder`; a value never seen in
        :meth:`fit` is a ``ValueError``). ``"dyadic"`` splits the
        box ``partition_bounds`` into ``cells_per_axis`` cells per axis; points outside the
        box raise ``ValueError``. Any :mod:`krepro.fairness.conditional` partition object is also
        accepted.
    partition_bounds : (low, high), default=None
        Box of the dyadic partition (scalars or per-axis arrays), finite: NaN or an infinite
        side is a ``ValueError`` naming ``partition_bounds``.
    cells_per_axis : int >= 1, default=16
        Cells per axis of the dyadic partition (16 = the paper's ridge experiments). At most
        16 cells per estimation point in all (``cells_per_axis ** d <= 16 * m``,
        :data:`krepro.fairness.conditional.MAX_CELLS_PER_SAMPLE`): more is a ``ValueError``
        naming ``cells_per_axis``, since almost all cells would be empty and the cell tables
        grow with their number.
    conditional_mean : estimator, default=None
        Estimator of :math:`E[\varphi(X)|S]`. ``None`` is the paper's partition plug-in
        (built from ``partition``, ``partition_bounds``, ``cells_per_axis``); a
        :class:`krepro.cme.CMEConditionalMean` uses the kernel (CME) estimator
        :math:`\sum_v \alpha_v(s)\varphi(x_v)` instead, for continuous or multi-dimensional S.
        Any object with ``fit(S)``, ``weights_`` (m × L) and ``membership(S)`` (n × L) such
        that :math:`E[\varphi(X)|S=s] = \sum_v (W\,\mathrm{membership}(s)^\top)_v
        \varphi(x_v)` works; it is cloned before fitting.
    tile_size : int, default=256
        Side of the square kernel tiles (computation only: results depend on it through
        round-off, ~1e-15). See :mod:`krepro.fairness.tiled_gram`.

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
        Right-multiplication :math:`K \mapsto K G` by the component weights (for partitions
        a :class:`_CellComponents`: segment sums over cell-sorted columns).
    n_features_in_ : int
        Number of non-sensitive features.
    products_cache_ : OrderedDict
        :math:`P = K(X, \mathrm{est})\,G` (read-only, shape ``(n, L + 1)``) of the last
        four point sets ``X`` passed to :meth:`gram` or :meth:`mixed_gram`, keyed by their
        content (a hash, then an exact comparison with a stored copy); emptied by ``fit``.
    coefficients_cache_ : OrderedDict
        The same for the coefficients :math:`r(s)` of numeric sensitive features (for a
        kernel CME an (n, m) weight matrix, one solve with the estimation sample each).

    Notes
    -----
    Cost (partition plug-in; Algorithm 1 made blockwise). ``fit`` evaluates
    :math:`K(\mathrm{est}, \mathrm{est})` only on the tiles on and above the diagonal and
    keeps only :math:`K G` (``m × (L + 1)``), never the ``m × m`` block; :meth:`gram` of a
    set with itself evaluates :math:`K(\mathrm{train}, \mathrm{train})` on the same half of
    the tiles, adds the rank-(L + 1) correction and mirrors each tile into the output, so
    the only ``n × n`` allocation is the returned matrix. The products
    :math:`P = K(X, \mathrm{est})\,G` of the last few point sets (keyed by their content)
    are cached until the next ``fit``, so ``gram(test, ..., train, ...)`` after
    ``gram(train, ...)`` and repeated calls do not evaluate :math:`K(\mathrm{train},
    \mathrm{est})` again. See ``benchmarks/README.md`` for measurements.

    References
    ----------
    S. Grünewälder and A. Khaleghi. Oblivious Data for Fairness with Kernels. JMLR 22(208),
    2021. §6.3, Algorithm 1, Appendix E.

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.fairness.oblivious import ObliviousKernel
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
        tile_size=256,
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
        self.tile_size = tile_size

    _parameter_constraints: ClassVar[dict] = {
        **OBLIVIOUS_CONSTRAINTS,
        "tile_size": [Interval(Integral, 1, None, closed="left")],
    }

    def _kernel_params(self):
        params = check_kernel_params(self.kernel_params)
        return kernel_params(self.kernel, self.gamma, self.degree, self.coef0, params)

    def _kernel(self, X, Y=None):
        return gram(X, Y, self.kernel, **self._kernel_params())

    def _tiles(self, X, Y=None):
        """Tiles of :math:`K(X, Y)` (:class:`krepro.fairness.tiled_gram.KernelTiles`)."""
        return KernelTiles(X, Y, self.kernel, self._kernel_params(), self.tile_size)

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
        # Through krepro.kernels.gram once: it refuses parameter names the kernel does not
        # take (the tiled RBF path reads only gamma and would ignore a misspelt name).
        self._kernel(X[:1])
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
        output_gram = None
        if getattr(estimator, "needs_output_gram", False):
            # e.g. the CME selects its λ by cross-validating the regression of φ(X) on S
            output_gram = self._kernel(X)
            self.conditional_mean_ = estimator.fit(S, output_gram=output_gram)
        else:
            self.conditional_mean_ = estimator.fit(S)
        partition = hasattr(self.conditional_mean_, "cell_index_")
        if partition:
            cells = self.conditional_mean_.cell_index_
            n_cells = self.conditional_mean_.n_cells_
            # Sort the estimation points by cell (points in no cell last): each cell is a
            # contiguous range, so a kernel tile meets few columns of the cell indicators.
            order = np.argsort(np.where(cells >= 0, cells, n_cells), kind="stable")
            self.combiner_ = _CellComponents(cells[order], n_cells)
        else:
            order = np.arange(m)
            self.combiner_ = _WeightCombiner(self.conditional_mean_.weights_)
        self.estimation_order_ = order
        self.X_estimation_ = X[order]
        weights = self.conditional_mean_.weights_[order]
        weights = weights.toarray() if sparse.issparse(weights) else np.asarray(weights)
        self.component_weights_ = np.hstack([weights, np.full((m, 1), 1.0 / m)])
        if partition:
            # K(est, est) E from the tiles on and above the diagonal; the m × m block is
            # never formed (only its (L + 1) × (L + 1) compression GᵀKG is used).
            E = self.combiner_.indicators
            # the m × m block is never formed, so gram()'s degeneracy warning is checked here
            warn_if_degenerate_points(self.X_estimation_, self.kernel, self._kernel_params())
            sums = symmetric_products(self._tiles(self.X_estimation_), E, self.tile_size)
            cross = self.combiner_.finish(sums)  # K G, shape (m, L + 1)
            component_gram = self.combiner_.finish(cross.T @ E)  # Gᵀ K G
        else:
            K = self._kernel(self.X_estimation_) if output_gram is None else output_gram
            cross = self.combiner_(K)  # K G, shape (m, L + 1)
            component_gram = self.combiner_(np.ascontiguousarray(cross.T))  # Gᵀ K G
        self.component_gram_ = 0.5 * (component_gram + component_gram.T)
        self.products_cache_ = OrderedDict()
        self.coefficients_cache_ = OrderedDict()
        return self

    # -- building blocks -------------------------------------------------------------------

    def _check_output(self, O, name):
        """``O``, or a ``ValueError`` if an unbounded kernel's values overflowed in it.

        RBF, Matérn and delta values lie in [0, 1], so their oblivious Gram matrices are
        finite by construction (entries within [-3, 5]) and are not scanned.
        """
        if self.kernel in BOUNDED_KERNELS:
            return O
        hint = (
            f": the {self.kernel} kernel's values reach the float64 range at this scale of "
            "the inputs; rescale the features"
        )
        return check_finite(O, f"the oblivious Gram matrix of {name}", hint)

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
        """:math:`P = K(X, \\mathrm{est}) G`: products of φ(x) with cell means and mean.

        Cached by the content of ``X`` (the last few sets) until the next ``fit``.
        """
        X = np.ascontiguousarray(X)
        return cached_by_content(
            self.products_cache_, X, lambda: self._products(X), _PRODUCT_CACHE_SIZE
        )

    def _products(self, X):
        """Uncached :meth:`_component_products`."""
        if isinstance(self.combiner_, _CellComponents):
            tiles = self._tiles(X, self.X_estimation_)
            sums = cross_products(tiles, self.combiner_.indicators, len(X), self.tile_size)
            return self.combiner_.finish(sums)
        # general weights: blocks of rows, each a full row of K(X, est)
        P = np.empty((len(X), self.component_gram_.shape[0]))
        for rows in tile_ranges(len(X), self.tile_size):
            P[rows] = self.combiner_(self._kernel(X[rows], self.X_estimation_))
        return P

    def _coefficients(self, S):
        """:math:`r(s) = (-e_{a(s)}, 1)`, the coordinates of Z − φ(x) in the components.

        For numeric S (continuous: a kernel CME's weights cost a solve with the estimation
        sample) cached by content like :meth:`_component_products`, until the next ``fit``.
        """
        if S.dtype.kind not in "fiub":  # labels: a one-hot membership, cheap
            return self._raw_coefficients(S)
        return cached_by_content(
            self.coefficients_cache_, S, lambda: self._raw_coefficients(S), _PRODUCT_CACHE_SIZE
        )

    def _raw_coefficients(self, S):
        """Uncached :meth:`_coefficients`."""
        membership = self.conditional_mean_.membership(S)
        membership = membership.toarray() if sparse.issparse(membership) else membership
        return np.hstack([-membership, np.ones((membership.shape[0], 1))])

    def _cells(self, S):
        """Cell of each point, ``L`` for a point in no cell (partitions only)."""
        cells = self.conditional_mean_.cell_of(S)
        return np.where(cells >= 0, cells, self.conditional_mean_.n_cells_)

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
            Exactly symmetric and positive semi-definite when ``XB`` is None. Finite for
            finite inputs of any scale: RBF and Matérn kernels are evaluated safely at
            extreme scales (:mod:`krepro.kernels`, "Extreme scales"; an RBF kernel whose
            ``gamma`` makes every distance huge gives the identity as K, with a
            :class:`~krepro.kernels.DegenerateKernelWarning` from :meth:`fit`), and a
            linear or polynomial kernel whose values overflow raises a ``ValueError``.

        Notes
        -----
        With :math:`A = P + \tfrac12 R Q`, :math:`O = K + A R^\top + R A^\top` (Algorithm
        1); for a partition, :math:`r(s) = (-e_{a(s)}, 1)` makes the correction
        :math:`V_{i, a(s_j)} + V_{j, a(s_i)}` with :math:`V` = :func:`_cell_table` of
        :math:`A` (:func:`krepro.fairness.tiled_gram.cell_correction`). Between two sets
        (Appendix E.2) :math:`O = K + P_a R_b^\top + R_a (P_b + R_b Q)^\top`.
        """
        check_is_fitted(self, "component_gram_")
        if XB is None and SB is not None:
            raise ValueError(
                "SB (sensitive features of XB) given without XB: pass XB too, or leave SB out "
                "for the Gram matrix of XA with itself."
            )
        XA, SA = self._check_points(XA, SA)
        P_a, Q = self._component_products(XA), self.component_gram_
        partition = isinstance(self.combiner_, _CellComponents)
        if XB is None:
            R_a = self._coefficients(SA)
            A = P_a + 0.5 * R_a @ Q
            if partition:
                cells = self._cells(SA)
                V = _cell_table(A)
                correction = cell_correction(V, cells, V, cells)
            else:
                correction = LowRankCorrection(np.hstack([A, R_a]), np.hstack([R_a, A]))
            O = np.empty((len(XA), len(XA)))
            O = fill_gram(self._tiles(XA), correction, O, True, self.tile_size)
            return self._check_output(O, "XA")
        XB, SB = self._check_points(XB, SB)
        P_b, R_b = self._component_products(XB), self._coefficients(SB)
        if partition:
            correction = cell_correction(
                _cell_table(P_a), self._cells(SB), _cell_table(P_b + R_b @ Q), self._cells(SA)
            )
        else:
            R_a = self._coefficients(SA)
            correction = LowRankCorrection(np.hstack([P_a, R_a]), np.hstack([R_b, P_b + R_b @ Q]))
        O = np.empty((len(XA), len(XB)))
        O = fill_gram(self._tiles(XA, XB), correction, O, False, self.tile_size)
        return self._check_output(O, "XA and XB")

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
        P_b = self._component_products(XB)
        if isinstance(self.combiner_, _CellComponents):
            correction = cell_correction(V=_cell_table(P_b), cells_a=self._cells(SA))
        else:
            correction = LowRankCorrection(self._coefficients(SA), P_b)
        O = np.empty((len(XA), len(XB)))
        O = fill_gram(self._tiles(XA, XB), correction, O, False, self.tile_size)
        return self._check_output(O, "XA and XB")


from krepro.fairness.oblivious_features import ObliviousFeatures  # noqa: E402  (explicit features)
