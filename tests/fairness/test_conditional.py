"""Partitions and the plug-in conditional mean of :mod:`krepro.fairness.conditional`."""

import numpy as np
import pytest
from scipy import sparse

from krepro.fairness.conditional import (
    DyadicPartition,
    FiniteValuePartition,
    PartitionConditionalMean,
    make_partition,
)

# ---------------------------------------------------------------------------------------------
# naive oracles


def _naive_value_cells(S, cells):
    """Index of each row of S in the list ``cells`` (rows compared entry by entry), -1 if absent."""
    S = np.asarray(S).reshape(len(S), -1)
    out = []
    for row in S:
        index = -1
        for k, cell in enumerate(cells):
            if all(row[c] == cell[c] for c in range(len(cell))):
                index = k
        out.append(index)
    return np.array(out)


def _naive_axis_cell(value, low, high, ell):
    """Cell of one coordinate by walking the edges low + k (high - low) / ell upwards."""
    width = (high - low) / ell
    k = 0
    while k < ell - 1 and value >= low + (k + 1) * width:
        k += 1
    return k


def _naive_dyadic_cells(S, low, high, ell):
    S = np.asarray(S, dtype=float).reshape(len(S), -1)
    d = S.shape[1]
    low = np.broadcast_to(low, (d,))
    high = np.broadcast_to(high, (d,))
    out = []
    for row in S:
        flat = 0
        for k in range(d):  # row-major: the last axis varies fastest
            flat = flat * ell + _naive_axis_cell(row[k], low[k], high[k], ell)
        out.append(flat)
    return np.array(out)


def _naive_conditional_mean(values, cell_est, cell_query):
    """E_n[h | cell] by explicit sums; 0 for an empty or unknown cell."""
    out = []
    for a in cell_query:
        total, count = 0.0, 0
        for v, b in enumerate(cell_est):
            if a >= 0 and b == a:
                total += values[v]
                count += 1
        out.append(total / count if count else 0.0)
    return np.array(out)


# ---------------------------------------------------------------------------------------------
# FiniteValuePartition


def test_finite_partition_1d_matches_loop():
    rng = np.random.default_rng(0)
    S_fit = rng.integers(0, 4, size=30)
    S_query = rng.integers(0, 4, size=20)
    partition = FiniteValuePartition().fit(S_fit)
    cells = sorted({int(s) for s in S_fit})
    assert partition.n_cells == len(cells)
    np.testing.assert_array_equal(partition.cells_[:, 0], cells)
    np.testing.assert_array_equal(
        partition.assign(S_query), _naive_value_cells(S_query, [[c] for c in cells])
    )
    with pytest.raises(ValueError, match=r"never seen in fit: \[7, -1\]"):
        partition.assign([0, 7, -1])  # 7 and -1 are not cells


def test_finite_partition_2d_rows_are_cells():
    rng = np.random.default_rng(1)
    S_fit = rng.integers(0, 2, size=(25, 2))
    S_query = rng.integers(0, 2, size=(10, 2))
    partition = FiniteValuePartition().fit(S_fit)
    cells = sorted({tuple(int(v) for v in row) for row in S_fit})
    assert partition.n_cells == len(cells)
    np.testing.assert_array_equal(partition.assign(S_query), _naive_value_cells(S_query, cells))
    with pytest.raises(ValueError, match=r"never seen in fit: \[\(0, 5\), \(5, 0\)\]"):
        partition.assign([[0, 5], [5, 0]])


def test_finite_partition_explicit_values():
    partition = FiniteValuePartition(values=[3.0, 1.0, 2.0]).fit([1.0, 1.0, 4.0])
    assert partition.n_cells == 3  # cells come from ``values``, not from the fitted S
    # 4.0 was seen in fit but is not a cell: no cell; 5.0 was never seen: an error.
    np.testing.assert_array_equal(partition.assign([2.0, 3.0, 1.0, 4.0]), [1, 2, 0, -1])
    with pytest.raises(ValueError, match=r"never seen in fit: \[5\.0\]"):
        partition.assign([2.0, 5.0])


def test_finite_partition_column_mismatch_raises():
    partition = FiniteValuePartition().fit(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="3 column"):
        partition.assign(np.zeros((2, 3)))


# ---------------------------------------------------------------------------------------------
# DyadicPartition


@pytest.mark.parametrize(("low", "high", "ell"), [(0.0, 1.0, 4), (-2.0, 3.0, 5), (-1.0, 1.0, 16)])
def test_dyadic_partition_1d_matches_loop(low, high, ell):
    rng = np.random.default_rng(2)
    width = (high - low) / ell
    inner_edges = low + width * np.arange(1, ell)
    S = np.concatenate([rng.uniform(low, high, size=40), [low, high], inner_edges])
    partition = DyadicPartition(low, high, ell).fit(S)
    assert partition.n_cells == ell
    got = partition.assign(S)
    np.testing.assert_array_equal(got, _naive_dyadic_cells(S, low, high, ell))
    assert got[40] == 0  # ``low`` is in the first cell
    assert got[41] == ell - 1  # ``high`` is in the last cell
    # These boxes have exactly representable edges; an edge belongs to the cell above it.
    np.testing.assert_array_equal(got[42:], np.arange(1, ell))


def test_dyadic_partition_2d_matches_loop():
    rng = np.random.default_rng(3)
    low, high, ell = np.array([0.0, -1.0]), np.array([1.0, 3.0]), 4
    S = np.vstack(
        [
            rng.uniform(low, high, size=(50, 2)),
            [[1.0, 3.0], [0.0, -1.0], [0.25, 0.0], [1.0, -1.0], [0.5, 2.0]],  # corners and edges
        ]
    )
    partition = DyadicPartition(low, high, ell).fit(S)
    assert partition.n_cells == 16
    got = partition.assign(S)
    np.testing.assert_array_equal(got, _naive_dyadic_cells(S, low, high, ell))
    # (row, col) positions of the hand-picked points, flattened row-major.
    np.testing.assert_array_equal(got[50:], [3 * 4 + 3, 0, 1 * 4 + 1, 3 * 4 + 0, 2 * 4 + 3])


def test_dyadic_points_outside_box_raise_with_count_and_row():
    partition = DyadicPartition(0.0, 1.0, 4).fit([0.5])
    S = np.array([0.1, 0.2, 0.3, 1.5, 0.4, 0.5, 0.6, -0.1])
    with pytest.raises(ValueError, match=r"2 sensitive value\(s\).*row 3"):
        partition.assign(S)
    with pytest.raises(ValueError, match="row 1"):
        partition.assign([0.2, np.nan])
    with pytest.raises(ValueError, match=r"1 sensitive value\(s\).*row 0"):
        DyadicPartition(0.0, 1.0, 4).fit([[2.0], [0.5]])


def test_dyadic_partition_2d_outside_row_named():
    partition = DyadicPartition(0.0, 1.0, 2).fit(np.full((1, 2), 0.5))
    with pytest.raises(ValueError, match=r"1 sensitive value\(s\).*row 2"):
        partition.assign([[0.1, 0.1], [0.9, 0.9], [0.5, 1.01]])


@pytest.mark.parametrize(
    ("low", "high", "ell", "message"),
    [
        (1.0, 1.0, 4, "low < high"),
        (2.0, 1.0, 4, "low < high"),
        (0.0, 1.0, 0, "0"),
        (0.0, 1.0, 2.5, "2.5"),
    ],
)
def test_dyadic_partition_invalid_parameters(low, high, ell, message):
    with pytest.raises(ValueError, match=message):
        DyadicPartition(low, high, ell).fit([1.0])


def test_make_partition():
    assert isinstance(make_partition("values"), FiniteValuePartition)
    dyadic = make_partition("dyadic", bounds=(0.0, 2.0), cells_per_axis=8)
    assert isinstance(dyadic, DyadicPartition)
    assert (dyadic.low, dyadic.high, dyadic.cells_per_axis) == (0.0, 2.0, 8)
    custom = FiniteValuePartition(values=[1, 2])
    assert make_partition(custom) is custom
    with pytest.raises(ValueError, match="partition_bounds"):
        make_partition("dyadic")
    with pytest.raises(ValueError, match="'grid'"):
        make_partition("grid")


# ---------------------------------------------------------------------------------------------
# PartitionConditionalMean


def _dyadic_estimator_with_empty_cells(seed=4):
    """Dyadic partition of [0, 1] into 8 cells; no estimation point in [0.25, 0.5) or [0.875, 1]."""
    rng = np.random.default_rng(seed)
    S = np.concatenate([rng.uniform(0.0, 0.25, 9), rng.uniform(0.5, 0.875, 14)])
    rng.shuffle(S)
    estimator = PartitionConditionalMean(DyadicPartition(0.0, 1.0, 8)).fit(S)
    return estimator, S, [2, 3, 7]


def test_cell_members_and_counts_match_loop():
    estimator, S, empty = _dyadic_estimator_with_empty_cells()
    cells = _naive_dyadic_cells(S, 0.0, 1.0, 8)
    np.testing.assert_array_equal(estimator.cell_index_, cells)
    assert len(estimator.cell_members_) == 8
    for a in range(8):
        expected = [v for v in range(len(S)) if cells[v] == a]
        np.testing.assert_array_equal(np.sort(estimator.cell_members_[a]), expected)
        assert estimator.cell_counts_[a] == len(expected)
    assert [a for a in range(8) if estimator.cell_counts_[a] == 0] == empty


def test_weights_columns_average_cell_points_and_empty_columns_are_zero():
    estimator, S, empty = _dyadic_estimator_with_empty_cells()
    cells = _naive_dyadic_cells(S, 0.0, 1.0, 8)
    rng = np.random.default_rng(5)
    values = rng.normal(size=(len(S), 3))
    W = estimator.weights_
    assert sparse.issparse(W)
    assert W.shape == (len(S), 8)
    means = W.T @ values
    for a in range(8):
        members = [v for v in range(len(S)) if cells[v] == a]
        if members:
            expected = sum(values[v] for v in members) / len(members)
        else:
            expected = np.zeros(3)
        # sums of <= 14 O(1) numbers in a different order
        np.testing.assert_allclose(means[a], expected, rtol=0, atol=1e-14)
    dense = W.toarray()
    assert np.all(dense[:, empty] == 0.0)
    np.testing.assert_allclose(estimator.mean_weights_ @ values, values.mean(axis=0), atol=1e-14)


def test_conditional_mean_matches_loop_with_empty_cells():
    estimator, S, empty = _dyadic_estimator_with_empty_cells()
    cells_est = _naive_dyadic_cells(S, 0.0, 1.0, 8)
    rng = np.random.default_rng(6)
    values = rng.normal(size=len(S))
    S_query = np.concatenate([rng.uniform(0.0, 1.0, 30), [0.3, 0.4, 0.95, 1.0]])
    cells_query = _naive_dyadic_cells(S_query, 0.0, 1.0, 8)
    got = estimator.conditional_mean(values, S_query)
    # per-cell averages of <= 14 O(1) values
    np.testing.assert_allclose(
        got, _naive_conditional_mean(values, cells_est, cells_query), rtol=0, atol=1e-14
    )
    assert np.all(got[-4:] == 0.0)  # the last four query values lie in empty cells
    assert np.all(np.isin(cells_query[-4:], empty))
    # several targets at once: column-wise identical to the one-target version
    stacked = estimator.conditional_mean(np.column_stack([values, 2 * values]), S_query)
    np.testing.assert_allclose(stacked, np.column_stack([got, 2 * got]), atol=1e-14)


def test_membership_is_one_hot():
    estimator, _, _ = _dyadic_estimator_with_empty_cells()
    S_query = np.array([0.0, 0.3, 0.99, 0.5])
    R = estimator.membership(S_query).toarray()
    expected = np.zeros((4, 8))
    for i, a in enumerate(_naive_dyadic_cells(S_query, 0.0, 1.0, 8)):
        expected[i, a] = 1.0
    np.testing.assert_array_equal(R, expected)


def test_values_partition_non_cell_value_gets_zero_row_and_unseen_value_raises():
    rng = np.random.default_rng(7)
    S = np.append(rng.integers(0, 3, size=20), 5)  # 5: seen in fit, but not a cell
    values = rng.normal(size=21)
    estimator = PartitionConditionalMean(FiniteValuePartition(values=[0, 1, 2])).fit(S)
    cells = [0, 1, 2]
    np.testing.assert_array_equal(
        estimator.cell_index_, _naive_value_cells(S, [[c] for c in cells])
    )
    for a, c in enumerate(cells):
        np.testing.assert_array_equal(estimator.cell_members_[a], np.flatnonzero(S == c))
    S_query = np.array([0, 1, 2, 5, 2])
    R = estimator.membership(S_query).toarray()
    assert R.shape == (5, len(cells))
    np.testing.assert_array_equal(R[3], np.zeros(len(cells)))
    np.testing.assert_array_equal(R.sum(axis=1), [1, 1, 1, 0, 1])
    got = estimator.conditional_mean(values, S_query)
    expected = [values[S == s].mean() if s in cells else 0.0 for s in S_query]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-14)  # means of <= 20 O(1) values
    assert got[3] == 0.0
    with pytest.raises(ValueError, match=r"never seen in fit: \[6\]"):
        estimator.membership([0, 6])


def test_values_partition_2d_conditional_mean_matches_loop():
    rng = np.random.default_rng(8)
    S = rng.integers(0, 2, size=(24, 2))
    values = rng.normal(size=24)
    estimator = PartitionConditionalMean(FiniteValuePartition()).fit(S)
    cells = [tuple(row) for row in estimator.partition.cells_.tolist()]
    S_query = S[:6]
    got = estimator.conditional_mean(values, S_query)
    expected = _naive_conditional_mean(
        values, _naive_value_cells(S, cells), _naive_value_cells(S_query, cells)
    )
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-14)  # means of <= 24 O(1) values
    with pytest.raises(ValueError, match=r"never seen in fit: \[\(3, 3\)\]"):
        estimator.conditional_mean(values, np.vstack([S[:6], [[3, 3]]]))


def test_estimation_value_outside_explicit_cells_enters_no_cell():
    # With explicit cells {0, 1}, an estimation point with S = 2 belongs to no cell: it must not
    # be averaged into any cell mean (its weight row is zero), yet the fit must not fail.
    estimator = PartitionConditionalMean(FiniteValuePartition(values=[0, 1])).fit([0, 1, 2, 1])
    np.testing.assert_array_equal(estimator.cell_counts_, [1, 2])
    np.testing.assert_array_equal(estimator.cell_members_[1], [1, 3])
    np.testing.assert_allclose(estimator.weights_.toarray()[2], [0.0, 0.0])
    np.testing.assert_allclose(estimator.conditional_mean([10.0, 20.0, 99.0, 40.0], [1]), [30.0])
