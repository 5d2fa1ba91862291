"""The adult study's random splits (krepro.studies.adult.run.split_seed) on UCI Adult: the
paper's sizes, shared by the two Table-1 protocols; on the offline mirror of the raw files."""

import numpy as np
import pytest

from krepro.data.adult import load_adult
from tests.data.test_adult import DATA, TEST

pytestmark = pytest.mark.skipif(not TEST.is_file(), reason="offline UCI Adult mirror not present")


def test_random_splits_have_the_papers_sizes_and_are_shared_by_the_protocols():
    from krepro.data.adult import draw_split_rows
    from krepro.studies.adult.run import split_seed

    a = draw_split_rows(30162, 15060, 1628, 12661, split_seed(7, 0))
    b = draw_split_rows(30162, 15060, 1628, 12661, split_seed(7, 0))
    c = draw_split_rows(30162, 15060, 1628, 12661, split_seed(7, 1))
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], c[0])
    assert len(set(a[0])) == 1628 and len(set(a[1])) == 12661
    ref = load_adult(DATA, TEST, "reference", split_seed=split_seed(7, 0))
    cor = load_adult(DATA, TEST, "corrected", split_seed=split_seed(7, 0))
    assert ref.X_train.shape == (1628, 13) and ref.X_test.shape == (12661, 13)
    assert cor.X_train.shape[0] == 1628 and cor.X_test.shape[0] == 12661
    assert np.array_equal(ref.y_train, cor.y_train) and np.array_equal(ref.s_test, cor.s_test)
