r"""Partitions of the sensitive-feature range and the plug-in estimator of :math:`E[\varphi(X)|S]`.

The oblivious-data paper (Grünewälder & Khaleghi, JMLR 2021, §6.1) estimates the
Hilbert-space-valued conditional expectation by the plug-in rule

.. math::

    E_n(\varphi(X) \mid S \in B) = \frac{1}{n P_n(S \in B)} \sum_{i=1}^n \varphi(X_i)\,
    \delta_{S_i}(B), \qquad
    E^S_n \varphi(X) = \sum_{B \in \mathcal{S}} E_n(\varphi(X) \mid S \in B)\, \chi\{S \in B\},

with :math:`E_n(\cdot \mid S \in B) = 0` when no estimation point falls in :math:`B`
(Algorithm 1: "the sum over an empty index set is treated as 0").

Every estimator here is linear in the feature map: for a query value :math:`s`,

.. math::

    E^S_n\varphi(X)\big|_{S=s} = \sum_{v=1}^m \big(W R(s)^\top\big)_v\, \varphi(x_v),

where ``R(s)`` is the query's row of :meth:`PartitionConditionalMean.membership` (one-hot
over cells) and ``W`` (``weights_``, shape ``(m, n_cells)``) averages the estimation points of
each cell. :mod:`krepro.fairness.oblivious` only relies on this factorisation, so any estimator that
provides ``membership`` and ``weights_`` (for example a conditional mean embedding) plugs in.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval

from krepro.validation import (
    GroupEncoder,
    check_continuous,
    check_sensitive_features,
    check_values,
    stack_labels,
)

__all__ = [
    "MAX_CELLS_PER_SAMPLE",
    "DyadicPartition",
    "FiniteValuePartition",
    "PartitionConditionalMean",
    "check_partition_bounds",
    "make_partition",
]

# A dyadic partition may have at most this many cells per fit point. Beyond it at least
# 15/16 of the cells are empty, and the tables with one column per cell (the plug-in weights,
# the oblivious kernel's cell products) grow with the cells, not with the data: 10**7 cells
# per axis would allocate gigabytes for a handful of points.
MAX_CELLS_PER_SAMPLE = 16


def check_partition_bounds(bounds, *, name="partition_bounds"):
    """The box ``(low, high)`` of a dyadic partition as two finite float arrays.

    Parameters
    ----------
    bounds : (low, high)
        Corners of the box: scalars (every axis) or 1-d arrays (one entry per axis).
    name : str, default="partition_bounds"
        Parameter name used in error messages.

    Returns
    -------
    low, high : ndarray of shape () or (d,)

    Raises
    ------
    ValueError
        If ``bounds`` is not a pair of numbers or 1-d arrays, or holds NaN or infinity: a box
        with an infinite side puts all the data in one cell along that axis, so the fairness
        correction silently disappears.
    """
    if bounds is None:
        raise ValueError(f'partition="dyadic" needs {name}=(low, high).')
    try:
        if isinstance(bounds, str):
            raise TypeError
        low, high = bounds
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a pair (low, high), got {bounds!r}.") from error
    try:
        low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must hold numbers (low, high), got {bounds!r}.") from error
    if low.ndim > 1 or high.ndim > 1:
        raise ValueError(
            f"{name} must be scalars or 1-d arrays (one entry per axis), got {bounds!r}."
        )
    if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
        raise ValueError(
            f"{name} must be finite, got low={low.tolist()}, high={high.tolist()}: a dyadic "
            "partition needs a bounded box (an infinite side puts every point in one cell)."
        )
    return low, high


class FiniteValuePartition(BaseEstimator):
    """Each distinct value of S (a row, for multi-column S) is its own cell.

    Values are labels of any hashable type (numbers, strings, pandas categorical or object
    columns), encoded once in :meth:`fit` by a :class:`krepro.validation.GroupEncoder`:
    numbers are compared by value (``1``, ``1.0`` and ``np.float32(1)`` are one cell), a value
    never seen in :meth:`fit` or a missing value (NaN, None) is a ``ValueError``.

    Parameters
    ----------
    values : array-like, optional
        The cells, one value (row) each, sorted. ``None`` takes the distinct values seen by
        :meth:`fit`. With explicit cells, a value of the fitted S that is not a cell gets no
        cell (index -1): its conditional-mean estimate is 0, as for an empty cell.

    Attributes
    ----------
    cells_ : ndarray of shape (n_cells, d)
        The cells, sorted (numbers by value, then strings).
    encoder_ : GroupEncoder
        Codes of every value seen in :meth:`fit` (the cells and the fitted S).
    cell_of_group_ : ndarray of shape ``(encoder_.n_groups_,)``
        Cell of each encoded value; -1 for a fitted value that is not one of ``values``.
    n_features_ : int
        Number of columns d of S.
    """

    _parameter_constraints: ClassVar[dict] = {"values": ["array-like", None]}

    def __init__(self, values=None):
        self.values = values

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, S):
        """Fix the cells (the distinct rows of ``S`` unless ``values`` was given)."""
        S = check_sensitive_features(S)
        self.encoder_ = GroupEncoder("sensitive_features")
        if self.values is None:
            self.encoder_.fit(S)
            cells = np.arange(self.encoder_.n_groups_)
        else:
            values = check_sensitive_features(self.values, name="values")
            self.encoder_.fit(stack_labels(values, S))
            cells = np.unique(self.encoder_.transform(values))
        self.cell_of_group_ = np.full(self.encoder_.n_groups_, -1)
        self.cell_of_group_[cells] = np.arange(len(cells))
        self.cells_ = self.encoder_.groups_[cells]
        self.n_features_ = self.cells_.shape[1]
        return self

    @property
    def n_cells(self):
        return len(self.cells_)

    def assign(self, S):
        """Cell index of each row of ``S``; ``-1`` for a fitted value that is not a cell.

        Raises ``ValueError`` for values never seen in :meth:`fit`, listing them.
        """
        S = check_sensitive_features(S)
        if S.shape[1] != self.n_features_:
            raise ValueError(
                f"sensitive_features has {S.shape[1]} column(s), the partition was built "
                f"for {self.n_features_}."
            )
        return self.cell_of_group_[self.encoder_.transform(S)]


class DyadicPartition(BaseEstimator):
    r"""Regular grid of cubes on a box :math:`\prod_k [\mathrm{low}_k, \mathrm{high}_k]`.

    With ``cells_per_axis = 2**j`` these are the dyadic cubes of the paper (§6.1,
    Proposition 6); any positive integer is accepted. Cells are half-open
    :math:`[a, b)` except the last one on each axis, which includes ``high``.

    Parameters
    ----------
    low, high : float or array-like of shape (d,)
        Box corners, finite, ``low < high``; scalars apply to every axis.
    cells_per_axis : int >= 1, default=16
        Number of cells :math:`\ell` along each axis (:math:`\ell^d` cells in all). At most
        ``MAX_CELLS_PER_SAMPLE = 16`` cells per point of the ``S`` given to :meth:`fit`
        (:math:`\ell^d \le 16\,m`): more cells would be almost all empty, and memory grows
        with the number of cells; :meth:`fit` raises ``ValueError`` otherwise.
    """

    _parameter_constraints: ClassVar[dict] = {
        "low": [Interval(Real, None, None, closed="neither"), "array-like"],
        "high": [Interval(Real, None, None, closed="neither"), "array-like"],
        "cells_per_axis": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, low, high, cells_per_axis=16):
        self.low = low
        self.high = high
        self.cells_per_axis = cells_per_axis

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, S):
        """Check the box and the number of cells against the data ``S`` (m points in R^d)."""
        S = check_continuous(S)
        m, d = S.shape
        low, high = check_partition_bounds((self.low, self.high))
        try:
            self.low_ = np.broadcast_to(low, (d,)).copy()
            self.high_ = np.broadcast_to(high, (d,)).copy()
        except ValueError as error:
            raise ValueError(
                f"partition_bounds must be scalars or have one entry per column of the "
                f"sensitive features ({d}), got low={low.tolist()}, high={high.tolist()}."
            ) from error
        if np.any(self.high_ <= self.low_):
            raise ValueError(
                f"Partition box needs low < high, got low={self.low}, high={self.high}."
            )
        ell = self.cells_per_axis
        if isinstance(ell, bool):  # an Integral to the parameter constraint
            raise ValueError(f"cells_per_axis must be a positive integer, got {ell!r}.")
        n_cells = int(ell) ** d
        if n_cells > MAX_CELLS_PER_SAMPLE * m:
            largest = int(np.floor((MAX_CELLS_PER_SAMPLE * m) ** (1.0 / d) + 1e-9))
            raise ValueError(
                f"cells_per_axis={int(ell)} makes {int(ell)}**{d} = {n_cells} cells for {m} "
                f"point(s): at most {MAX_CELLS_PER_SAMPLE} cells per point are allowed (almost "
                f"all cells would be empty, and memory grows with the cells). Use "
                f"cells_per_axis <= {largest} here, or more points."
            )
        self.n_features_ = d
        self.assign(S)  # raises on points outside the box
        return self

    @property
    def n_cells(self):
        return int(self.cells_per_axis) ** self.n_features_

    def assign(self, S):
        """Flat (row-major) cell index of each row of ``S``; raises outside the box or on NaN."""
        S = check_continuous(S)
        if S.shape[1] != self.n_features_:
            raise ValueError(
                f"sensitive_features has {S.shape[1]} column(s), the partition was built "
                f"for {self.n_features_}."
            )
        outside = np.any((S < self.low_) | (S > self.high_) | ~np.isfinite(S), axis=1)
        if np.any(outside):
            first = int(np.flatnonzero(outside)[0])
            raise ValueError(
                f"sensitive_features: {int(outside.sum())} sensitive value(s) fall outside the "
                f"partition box [{self.low_.tolist()}, {self.high_.tolist()}] "
                f"(partition_bounds), e.g. row {first}: {S[first].tolist()}."
            )
        ell = int(self.cells_per_axis)
        with np.errstate(over="ignore"):
            width = self.high_ - self.low_
        if np.all(np.isfinite(width)):
            fraction = (S - self.low_) / width
        else:  # a box wider than the float64 range: halves (exact but for subnormals)
            fraction = (S / 2 - self.low_ / 2) / (self.high_ / 2 - self.low_ / 2)
        position = np.floor(fraction * ell).astype(int)
        position = np.minimum(position, ell - 1)  # the upper boundary belongs to the last cell
        return np.ravel_multi_index(tuple(position.T), (ell,) * self.n_features_)


def make_partition(partition="values", *, bounds=None, cells_per_axis=16):
    """Build a partition from the string options used by the estimators.

    Parameters
    ----------
    partition : {"values", "dyadic"} or partition object
        ``"values"``: every distinct value of S is a cell (finite S). ``"dyadic"``: a regular
        grid with ``cells_per_axis`` cells per axis on the box ``bounds``. An object with
        ``fit(S)``, ``assign(S)`` and ``n_cells`` is used as given.
    bounds : (low, high), optional
        Box of the dyadic partition; required for ``"dyadic"``, finite
        (:func:`check_partition_bounds`).
    cells_per_axis : int, default=16
        Cells per axis of the dyadic partition (at most ``MAX_CELLS_PER_SAMPLE`` cells per
        fit point in all, checked by :meth:`DyadicPartition.fit`).
    """
    if isinstance(partition, str):
        if partition == "values":
            return FiniteValuePartition()
        if partition == "dyadic":
            check_partition_bounds(bounds)
            low, high = bounds
            return DyadicPartition(low, high, cells_per_axis)
        raise ValueError(
            f'Unknown partition {partition!r}; expected "values", "dyadic" or an object.'
        )
    _check_partition_object(partition, '"values", "dyadic" or ')
    return partition


def _check_partition_object(partition, options=""):
    # n_cells may be a property that needs a fitted partition: look it up on the class too.
    missing = [
        m
        for m in ("fit", "assign", "n_cells")
        if not (hasattr(type(partition), m) or hasattr(partition, m))
    ]
    if missing:
        raise TypeError(
            f"partition must be {options}an object with fit(S), assign(S) and n_cells (e.g. "
            f"make_partition(...)); got {partition!r}, which has no {', '.join(missing)}."
        )


class PartitionConditionalMean(BaseEstimator):
    r"""Plug-in estimator of :math:`E[\varphi(X) \mid S]` on a partition (paper §6.1).

    The estimator needs only the sensitive values of the estimation sample: it records, for
    every cell, which estimation points fall in it. Kernel quantities are formed by
    :mod:`krepro.fairness.oblivious` from :attr:`weights_` and :meth:`membership`.

    Parameters
    ----------
    partition : partition object
        A :class:`FiniteValuePartition`, :class:`DyadicPartition` or compatible object
        (``fit(S)``, ``assign(S)`` and ``n_cells``; anything else is refused in :meth:`fit`).

    Attributes
    ----------
    cell_index_ : ndarray of shape (m,)
        Cell of each estimation point (``-1`` for a value that is not one of the explicit
        cells of a :class:`FiniteValuePartition`; such points only enter the overall mean).
    cell_counts_ : ndarray of shape (n_cells,)
        Number of estimation points in each cell (0 for empty cells).
    cell_members_ : list of ndarray
        ``cell_members_[a]`` holds the indices of the estimation points in cell ``a``.
    weights_ : scipy.sparse.csr_matrix of shape (m, n_cells)
        Column ``a`` averages the estimation points of cell ``a``; an empty cell has an
        all-zero column, so its conditional-mean estimate is the zero element.
    mean_weights_ : ndarray of shape (m,)
        Uniform weights ``1/m`` of the unconditional mean :math:`E_n\varphi(X)`.

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.fairness import FiniteValuePartition, PartitionConditionalMean
    >>> S = np.array(["a", "b", "a", "c", "b", "a"])
    >>> pcm = PartitionConditionalMean(FiniteValuePartition()).fit(S)
    >>> pcm.cell_counts_
    array([3, 2, 1])
    >>> pcm.weights_.toarray().sum(axis=0)  # each column averages its cell
    array([1., 1., 1.])
    """

    _parameter_constraints: ClassVar[dict] = {"partition": [HasMethods(["fit", "assign"])]}

    def __init__(self, partition):
        self.partition = partition

    @_fit_context(prefer_skip_nested_validation=False)  # the partition: a user object
    def fit(self, S):
        """Assign the estimation points of ``S`` to cells."""
        _check_partition_object(self.partition)
        self.partition.fit(S)
        index = np.asarray(self.partition.assign(S))
        n_cells = self.partition.n_cells
        in_cell = np.flatnonzero(index >= 0)  # a value outside explicit cells is in no cell
        counts = np.bincount(index[in_cell], minlength=n_cells)
        m = len(index)
        self.cell_index_ = index
        self.cell_counts_ = counts
        order = in_cell[np.argsort(index[in_cell], kind="stable")]
        self.cell_members_ = np.split(order, np.cumsum(counts)[:-1])
        self.weights_ = sparse.csr_matrix(
            (1.0 / counts[index[in_cell]], (in_cell, index[in_cell])), shape=(m, n_cells)
        )
        self.mean_weights_ = np.full(m, 1.0 / m)
        self.n_cells_ = n_cells
        return self

    def cell_of(self, S):
        """Cell index of query points; ``-1`` for a value that is not a cell.

        Points outside a dyadic box raise ``ValueError``.
        """
        return np.asarray(self.partition.assign(S))

    def membership(self, S):
        """One-hot cell membership :math:`R(s)` of query points, shape (n, n_cells).

        Rows of points whose value is not a cell of a finite partition are all zero (their
        estimate is 0, as for an empty cell); points outside a dyadic box raise ``ValueError``.
        """
        index = self.cell_of(S)
        known = index >= 0
        rows = np.flatnonzero(known)
        return sparse.csr_matrix(
            (np.ones(len(rows)), (rows, index[known])), shape=(len(index), self.n_cells_)
        )

    def conditional_mean(self, values, S):
        r"""Plug-in estimate :math:`E_n[h(X) \mid S \in A_{a(s)}]` of real values.

        ``values`` are :math:`h(x_v)` on the estimation points (shape ``(m,)`` or
        ``(m, k)``); this is the scalar version of the Hilbert-space estimator, since
        :math:`\langle h, E_n(\varphi(X)|S\in B)\rangle = E_n(h(X)|S \in B)`.
        """
        values = check_values(values, self.weights_.shape[0])
        return self.membership(S) @ (self.weights_.T @ values)
