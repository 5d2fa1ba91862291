"""UCI Adult parser and the two Table-1 protocols, on the offline mirror of the raw files."""

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from krepro.data.adult import load_adult, read_adult, read_adult_files
from krepro.data.download import DATASETS, ChecksumError, sha256_of

# The offline UCI mirror (tests/conftest.py defaults it to shared/data beside the checkout).
MIRROR = Path(os.environ.get("KREPRO_DATA_MIRROR", "/nonexistent"))
DATA, TEST = MIRROR / "adult" / "adult.data", MIRROR / "adult" / "adult.test"
pytestmark = pytest.mark.skipif(not TEST.is_file(), reason="offline UCI Adult mirror not present")


@pytest.fixture(scope="module")
def corrected():
    return load_adult(DATA, TEST, "corrected")


def test_parser_handles_banner_dot_spaces_and_missing():
    test = read_adult(TEST)
    assert len(test) == 16281  # the banner line is not a record
    assert set(test["income"]) == {"<=50K", ">50K"}  # trailing "." stripped
    assert test.loc[0, "workclass"] == "Private"  # leading space stripped
    assert test["workclass"].isna().sum() > 0  # "?" is missing
    train, test, n_raw = read_adult_files(DATA, TEST)
    assert (len(train), len(test), n_raw) == (30162, 15060, 32561)
    # positive rates: ≈ 0.249 (train) and ≈ 0.246 (test); a parser that keeps the "." would
    # report 0 or 1 for the test split
    assert (train["income"] == ">50K").mean() == pytest.approx(0.249, abs=5e-4)
    assert (test["income"] == ">50K").mean() == pytest.approx(0.246, abs=5e-4)


def test_an_edited_cached_copy_is_refused_on_load(tmp_path):
    data, test = tmp_path / "adult.data", tmp_path / "adult.test"
    shutil.copyfile(DATA, data)
    shutil.copyfile(TEST, test)
    with open(data, "r+b") as handle:  # one age of the first row: 39 -> 38
        assert handle.read(2) == b"39"
        handle.seek(0)
        handle.write(b"38")
    with pytest.raises(ChecksumError) as info:
        load_adult(data, test, "corrected")
    message = str(info.value)
    assert str(data) in message
    assert DATASETS["adult"]["files"]["adult.data"] in message
    assert sha256_of(data) in message
    with pytest.raises(ChecksumError, match=r"adult\.data"):
        read_adult_files(data, test)
    assert len(load_adult(data, test, "corrected", verify=False).y_train) == 1628
    # the test file is checked as well
    shutil.copyfile(DATA, data)
    with open(test, "ab") as handle:
        handle.write(b"\n")
    with pytest.raises(ChecksumError, match=r"adult\.test"):
        load_adult(data, test, "reference")


def test_parser_refuses_other_files(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("1, 2, 3\n")
    with pytest.raises(ValueError, match="not a UCI Adult file"):
        read_adult(bad)


def test_reference_protocol_fingerprints(reference):
    # Fingerprints of the FERM loader load_adult(smaller=True) as measured with the FERM
    # repository's own code on the same UCI files.
    r = reference
    assert r.X_train.shape == (1628, 13) and r.X_test.shape == (12661, 13)
    assert r.feature_names[9] == "gender" and r.sensitive_columns == (9,)
    np.testing.assert_allclose(np.unique(r.X_train[:, 9]), [-1.4413, 0.6938], atol=1e-4)
    assert (r.s_train.sum(), len(r.s_train) - r.s_train.sum()) == (1119, 509)
    assert (r.s_test.sum(), len(r.s_test) - r.s_test.sum()) == (8514, 4147)
    assert (r.y_train == 1).sum() == 417 and (r.y_train[r.s_train == 1] == 1).sum() == 348
    assert (r.y_test == 1).sum() == 3100 and (r.y_test[r.s_test == 1] == 1).sum() == 2627
    train0 = [0.034201, 2.917717, -1.062295, -0.344074, 1.128753, 0.942936, -1.482624,
              -0.258387, 0.38411, 0.693813, 0.142888, -0.21878, -0.07812]  # fmt: skip
    test0 = [-0.268423, -0.213443, 0.662567, 1.227853, -0.046403, -0.390005, -0.985897,
             -0.884479, 0.38411, 0.693813, -0.146733, -0.21878, 1.171112]  # fmt: skip
    means = [0.009013, 0.010944, 0.012578, 0.014309, 0.026262, -0.022791, 0.03517,
             -0.001489, -0.010708, 0.02626, -0.00059, 0.023781, 0.016621]  # fmt: skip
    np.testing.assert_allclose(r.X_train[0], train0, atol=1e-6)
    np.testing.assert_allclose(r.X_test[0], test0, atol=1e-6)
    np.testing.assert_allclose(r.X_train.mean(axis=0), means, atol=1e-6)


def test_corrected_protocol(corrected, reference):
    c = corrected
    assert c.X_train.shape[0] == 1628 and c.X_test.shape[0] == 15060
    np.testing.assert_array_equal(c.y_train, reference.y_train)  # same training rows
    np.testing.assert_array_equal(c.s_train, reference.s_train)
    np.testing.assert_allclose(c.X_train.mean(axis=0), 0, atol=1e-10)  # scaler on train only
    assert "native-country_United-States" in c.feature_names  # kept, one-hot
    assert c.feature_names[c.sensitive_columns[0]] == "gender=Male"
    assert c.without_sensitive(c.X_test).shape[1] == c.X_test.shape[1] - 1
    assert (c.y_test == 1).mean() == pytest.approx(0.246, abs=5e-4)


@pytest.mark.parametrize("protocol", ["reference", "corrected"])
def test_both_classes_and_groups_in_every_split(protocol, reference, corrected):
    split = {"reference": reference, "corrected": corrected}[protocol]
    for y, s in ((split.y_train, split.s_train), (split.y_test, split.s_test)):
        assert set(np.unique(y)) == {-1, 1}
        for group in (0, 1):
            assert set(np.unique(y[s == group])) == {-1, 1}


def test_unknown_protocol():
    with pytest.raises(ValueError, match="protocol must be one of"):
        load_adult(DATA, TEST, "smaller")
