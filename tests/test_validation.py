"""The group-label encoder of :mod:`krepro.validation` against a loop over Python values."""

import numpy as np
import pandas as pd
import pytest

from krepro.kernels import gram
from krepro.validation import (
    GroupEncoder,
    check_continuous,
    check_sensitive_features,
    label_codes,
    stack_labels,
)


def _naive_codes(rows):
    """Code of each row = its rank among the distinct rows, compared as Python values."""
    distinct = []
    for row in rows:
        if row not in distinct:
            distinct.append(row)
    distinct.sort()
    return [distinct.index(row) for row in rows]


@pytest.mark.parametrize(
    "labels",
    [
        [3, 1, 2, 1, 3],
        [0.7, 0.1, 1.3, 0.1],
        ["Male", "Female", "Male"],
        [True, False, False],
    ],
)
def test_codes_are_ranks_of_the_distinct_values(labels):
    codes = GroupEncoder().fit_transform(labels)
    assert codes.tolist() == _naive_codes(labels)
    assert label_codes(np.array(labels)).tolist() == _naive_codes(labels)


def test_rows_are_labels_and_are_ordered_lexicographically():
    rows = [(1, "b"), (0, "z"), (1, "a"), (0, "z")]
    encoder = GroupEncoder()
    codes = encoder.fit_transform(pd.DataFrame(rows, columns=["k", "s"]))
    assert codes.tolist() == _naive_codes(rows)
    assert [tuple(r) for r in encoder.groups_.tolist()] == sorted(set(rows))


def test_numbers_compare_by_value_and_strings_are_other_labels():
    encoder = GroupEncoder().fit(np.array([0, 1, 2]))
    same = [np.array([2.0, 0.0]), np.array([2, 0], dtype=np.int8), [np.float32(2), True - 1]]
    for labels in same:
        assert encoder.transform(labels).tolist() == [2, 0]
    assert encoder.transform(["2", 0], unknown="ignore").tolist() == [-1, 0]


def test_large_integers_are_not_merged_by_a_float_conversion():
    ids = np.array([2**60, 2**60 + 1, 2**60])
    encoder = GroupEncoder()
    assert encoder.fit_transform(ids).tolist() == [0, 1, 0]
    assert encoder.transform(ids[::-1]).tolist() == [0, 1, 0]


def test_float32_queries_are_compared_at_float32_precision():
    fitted = np.array([0.1, 0.2, 1 / 3])
    encoder = GroupEncoder().fit(fitted)
    assert encoder.transform(fitted[::-1].astype(np.float32)).tolist() == [2, 1, 0]
    # Two fitted values that are one float32 number cannot be told apart at that precision.
    close = GroupEncoder().fit([1.0, 1.0 + 1e-12])
    with pytest.raises(ValueError, match="cannot be told apart at float32"):
        close.transform(np.array([1.0], dtype=np.float32))


def test_mixed_types_are_kept_as_objects():
    labels = [1, "a", 2.5, "a", 1.0]
    encoder = GroupEncoder()
    codes = encoder.fit_transform(labels)
    assert encoder.groups_[:, 0].tolist() == [1, 2.5, "a"]  # numbers first, then strings
    assert codes.tolist() == [0, 2, 1, 2, 0]
    assert check_sensitive_features(labels).dtype == object  # not np.asarray's '<U32'


def test_unseen_and_missing_values_are_named():
    encoder = GroupEncoder("groups").fit(["x", "y"])
    with pytest.raises(ValueError, match=r"groups has value\(s\) never seen in fit: \['z'\]"):
        encoder.transform(["x", "z", "z"])
    with pytest.raises(ValueError, match=r"groups contains missing values .* row 1"):
        encoder.transform(pd.Series(["x", pd.NA], dtype="string"))
    with pytest.raises(ValueError, match=r"groups must be a 1-d or 2-d array"):
        encoder.transform(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match=r"groups has 2 column\(s\), but 1 were seen in fit"):
        encoder.transform([["x", "y"]])
    with pytest.raises(ValueError, match="must be 1-d"):
        GroupEncoder("s", multi_column=False).fit(np.zeros((3, 2)))


def test_delta_kernel_follows_the_encoder():
    X = np.array(["a", "b", "a"])
    np.testing.assert_array_equal(gram(X, ["a", "c"], "delta"), [[1, 0], [0, 0], [1, 0]])
    np.testing.assert_array_equal(gram([1, 2], [2.0, np.float32(1)], "delta"), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(gram([[1, 2], [1, 3]], [[1, 3]], "delta"), [[0], [1]])
    with pytest.raises(ValueError, match="X contains missing values"):
        gram([1.0, np.nan], kernel="delta")
    with pytest.raises(ValueError, match="same number of features"):
        gram([[1, 2]], [[1]], "delta")


def test_check_continuous_and_stack_labels():
    assert check_continuous([1, 2]).dtype == np.float64
    with pytest.raises(ValueError, match="infinity"):
        check_continuous([1.0, np.inf])
    stacked = stack_labels(np.array([[1], [2]]), np.array([["a"]]))
    assert stacked[:, 0].tolist() == [1, 2, "a"]  # numbers are not turned into strings
