"""Parkinson's Telemonitoring loader on the offline mirror (skipped when it is absent)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from krepro.data.download import ChecksumError
from krepro.data.parkinsons import FEATURES, N_ROWS, N_SUBJECTS, load_parkinsons, subject_split
from krepro.seeding import generator

# The offline UCI mirror (tests/conftest.py defaults it to shared/data beside the checkout).
MIRROR = Path(os.environ.get("KREPRO_DATA_MIRROR", "/nonexistent"))
DATA = MIRROR / "parkinsons" / "parkinsons_updrs.data"
pytestmark = pytest.mark.skipif(not DATA.exists(), reason=f"no mirror copy at {DATA}")


def test_rows_subjects_and_the_16_named_features():
    data = load_parkinsons(DATA)
    assert len(data) == N_ROWS == 5875
    assert data.X.shape == (5875, 16)
    assert len(FEATURES) == 16 and FEATURES[0] == "Jitter(%)" and FEATURES[-1] == "PPE"
    assert np.array_equal(np.unique(data.subject), np.arange(1, N_SUBJECTS + 1))
    counts = np.bincount(data.subject)[1:]
    assert counts.min() == 101 and counts.max() == 168
    assert data.targets["motor"].min() == pytest.approx(5.0377)
    assert data.targets["total"].max() == pytest.approx(54.992)
    assert np.isfinite(data.X).all()


def test_wrong_checksum_is_refused(tmp_path):
    copy = tmp_path / "parkinsons_updrs.data"
    shutil.copyfile(DATA, copy)
    with open(copy, "r+b") as handle:  # change one digit of the last row
        handle.seek(-3, os.SEEK_END)
        digit = handle.read(1)
        handle.seek(-3, os.SEEK_END)
        handle.write(b"1" if digit != b"1" else b"2")
    with pytest.raises(ChecksumError, match="expected sha256"):
        load_parkinsons(copy)
    assert len(load_parkinsons(copy, verify=False)) == N_ROWS


def test_subject_split_is_29_of_42_and_reproducible():
    data = load_parkinsons(DATA)
    train = subject_split(data.subject, 29, generator(1, "subject_split", 0))
    again = subject_split(data.subject, 29, generator(1, "subject_split", 0))
    assert np.array_equal(train, again)
    assert len(np.unique(data.subject[train])) == 29
    assert len(np.unique(data.subject[~train])) == 13
    assert not set(data.subject[train]) & set(data.subject[~train])
