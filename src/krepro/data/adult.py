"""UCI Adult: a parser for the raw files and the two train/test protocols of Table 1.

The paper (Grünewälder & Khaleghi 2021, §7.1, Table 1) used the FERM repository's loader
(Donini et al. 2018, ``load_data.load_adult(smaller=True)``). :func:`load_adult` rebuilds
both

``"reference"``
    that loader, faithfully, from the raw UCI files:
    the 45222 complete rows of ``adult.data`` + ``adult.test`` label-encoded with ``np.unique``
    codes (ordinal, not one-hot), standard-scaled on train *and* test together, training rows =
    the first ⌊32561/20⌋ = 1628 complete ``adult.data`` rows, test rows = rows 32561… of the
    complete-row matrix (the last 12661 complete ``adult.test`` rows; the 2399 rows in between
    are used by neither split), native-country dropped, gender kept inside X.
``"corrected"``
    the same 1628 training rows, but the test set is every complete ``adult.test`` row (15060),
    nominal features are one-hot encoded (categories and scaling fitted on the training rows
    only) and native-country is kept. Gender is still a feature for SVM and FERM, as in the
    paper.

The parser reads the real UCI files: it skips the banner line of ``adult.test``
(``|1x3 Cross validator``), strips the trailing ``.`` of its labels and the leading space of
every field, and treats ``?`` as missing. (The FERM repository ships a hand-cleaned copy of
``adult.test``; its loader run on the raw file maps every test label to +1.)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from krepro.data.download import registered_sha256, verify_sha256

__all__ = [
    "COLUMNS",
    "NOMINAL",
    "PROTOCOLS",
    "AdultSplit",
    "draw_split_rows",
    "load_adult",
    "read_adult",
    "read_adult_files",
]

COLUMNS = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "gender",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)
NOMINAL = (
    "workclass",
    "education",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "gender",
    "native-country",
)
# The FERM loader drops rows with "?" in these columns (the only ones with missing values).
MISSING_COLUMNS = ("workclass", "occupation", "native-country")
PROTOCOLS = ("reference", "corrected")
# ⌊32561 / 20⌋: the FERM loader's "smaller" training size, from the uncleaned adult.data.
REFERENCE_TRAIN_ROWS = 32561 // 20
# The FERM loader's test size: the complete adult.test rows after row 32561 of the
# complete-row matrix (45222 − 32561).
REFERENCE_TEST_ROWS = 12661


@dataclass(frozen=True)
class AdultSplit:
    """Train/test arrays of one protocol; labels are ±1 (+1 = income > 50K), S = 1{male}."""

    protocol: str
    X_train: np.ndarray
    y_train: np.ndarray
    s_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    s_test: np.ndarray
    feature_names: tuple
    sensitive_columns: tuple  # columns of X that encode gender

    def without_sensitive(self, X):
        """``X`` with the gender column(s) removed (input of the oblivious SVM)."""
        keep = [j for j in range(X.shape[1]) if j not in self.sensitive_columns]
        return X[:, keep]


def read_adult(path):
    """Parse one raw UCI Adult file into a DataFrame (``income`` as ``<=50K`` / ``>50K``).

    Handles the banner line of ``adult.test``, the ``.`` after its labels, leading spaces,
    ``?`` for missing values (→ NaN) and the empty last line of ``adult.data``. Row order is the
    file's. The parser checks no hash; :func:`read_adult_files` and :func:`load_adult` do.
    """
    frame = pd.read_csv(
        path,
        header=None,
        names=list(COLUMNS),
        skipinitialspace=True,
        na_values=["?"],
        comment="|",  # adult.test's first line is "|1x3 Cross validator"
        skip_blank_lines=True,
    )
    if frame.shape[1] != len(COLUMNS) or frame["income"].isna().any():
        raise ValueError(f"{path}: not a UCI Adult file (expected {len(COLUMNS)} fields per row).")
    frame["income"] = frame["income"].str.rstrip(".")
    labels = set(frame["income"].unique())
    if not labels <= {"<=50K", ">50K"}:
        raise ValueError(f"{path}: unexpected income labels {sorted(labels)}.")
    return frame


def read_adult_files(data_path, test_path, verify=True):
    """Both files, with the rows containing ``?`` (in any column) removed.

    With ``verify`` (the default) each file must have the SHA-256 of the UCI file
    (:data:`krepro.data.download.DATASETS`); an edited or damaged copy raises
    :class:`krepro.data.download.ChecksumError` naming the file, expected and actual hash.
    """
    if verify:
        verify_sha256(data_path, registered_sha256("adult", "adult.data"))
        verify_sha256(test_path, registered_sha256("adult", "adult.test"))
    train, test = read_adult(data_path), read_adult(test_path)
    return train.dropna().reset_index(drop=True), test.dropna().reset_index(drop=True), len(train)


def _target(frame):
    return np.where(frame["income"].to_numpy() == ">50K", 1, -1)


def _male(frame):
    return (frame["gender"].to_numpy() == "Male").astype(int)


def draw_split_rows(n_train_pool, n_test_pool, n_train, n_test, seed):
    """Rows of one random split at the reference loader's sizes (split ``seed``).

    ``n_train`` rows drawn without replacement from the ``n_train_pool`` complete
    ``adult.data`` rows and ``n_test`` from the ``n_test_pool`` complete ``adult.test`` rows,
    in the random order of the draw (the order decides the cross-validation folds and the
    oblivious SVM's learn / estimate halves, as file order does for the fixed split).

    Parameters
    ----------
    n_train_pool, n_test_pool : int
        Complete rows of each file.
    n_train, n_test : int
        Rows drawn from each.
    seed : numpy.random.SeedSequence or int or sequence of int
        The split's seed.

    Returns
    -------
    train_rows, test_rows : ndarray of int
    """
    if n_train > n_train_pool or n_test > n_test_pool:
        raise ValueError(
            f"cannot draw {n_train} / {n_test} rows from {n_train_pool} / {n_test_pool}."
        )
    rng = np.random.default_rng(seed)
    train_rows = rng.choice(n_train_pool, size=n_train, replace=False)
    test_rows = rng.choice(n_test_pool, size=n_test, replace=False)
    return train_rows, test_rows


def _reference(train, test, n_raw_train, rows=None):
    """``load_adult(smaller=True)`` of the FERM repository, rebuilt (see module docstring).

    ``rows``: (training rows of ``train``, test rows of ``test``) of a random split; the
    encoding and scaling stay the loader's (fitted on every complete row of both files).
    """
    data = pd.concat([train, test], ignore_index=True)
    encoded = data.drop(columns="income").copy()
    for column in NOMINAL:
        # np.unique codes (alphabetical); the reference's leading spaces do not change the
        # order since every value carries exactly one.
        _, encoded[column] = np.unique(encoded[column].to_numpy(), return_inverse=True)
    X = StandardScaler().fit_transform(encoded.to_numpy(dtype=float))  # train+test, as the ref.
    y = _target(data)
    s = _male(data)
    n_train = n_raw_train // 20
    if n_train > len(train):
        raise ValueError("adult.data has fewer complete rows than the reference training size.")
    train_rows, test_rows = slice(0, n_train), slice(n_raw_train, None)
    if rows is not None:
        train_rows, test_rows = rows[0], len(train) + rows[1]
    X = X[:, :-1]  # the loader's second [:, :-1] drops native-country
    names = tuple(c for c in COLUMNS[:-2])
    return AdultSplit(
        protocol="reference",
        X_train=X[train_rows],
        y_train=y[train_rows],
        s_train=s[train_rows],
        X_test=X[test_rows],
        y_test=y[test_rows],
        s_test=s[test_rows],
        feature_names=names,
        sensitive_columns=(names.index("gender"),),
    )


def _corrected(train, test, n_train, rows=None):
    """Proper split: one-hot nominal features, scaling fitted on the training rows only.

    ``rows``: (training rows of ``train``, test rows of ``test``) of a random split.
    """
    if rows is None:
        train = train.iloc[:n_train]
    else:
        train, test = train.iloc[rows[0]], test.iloc[rows[1]]
    numeric = [c for c in COLUMNS[:-1] if c not in NOMINAL and c != "gender"]
    nominal = [c for c in NOMINAL if c != "gender"]
    encoder = OneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(train[nominal])

    def features(frame):
        return np.hstack(
            [
                frame[numeric].to_numpy(dtype=float),
                _male(frame)[:, None].astype(float),
                encoder.transform(frame[nominal]),
            ]
        )

    scaler = StandardScaler().fit(features(train))
    names = (*numeric, "gender=Male", *encoder.get_feature_names_out(nominal))
    return AdultSplit(
        protocol="corrected",
        X_train=scaler.transform(features(train)),
        y_train=_target(train),
        s_train=_male(train),
        X_test=scaler.transform(features(test)),
        y_test=_target(test),
        s_test=_male(test),
        feature_names=tuple(str(n) for n in names),
        sensitive_columns=(len(numeric),),
    )


def load_adult(
    data_path,
    test_path,
    protocol="reference",
    n_train=REFERENCE_TRAIN_ROWS,
    verify=True,
    split_seed=None,
):
    """Train/test split of UCI Adult under one of :data:`PROTOCOLS`.

    Parameters
    ----------
    data_path, test_path : path-like
        The raw UCI ``adult.data`` and ``adult.test``.
    protocol : {"reference", "corrected"}
        See the module docstring.
    n_train : int, default=1628
        Training rows of the ``"corrected"`` protocol on the fixed split (the first complete
        ``adult.data`` rows). The ``"reference"`` protocol, and every random split, use the
        FERM loader's ⌊32561/20⌋.
    verify : bool, default=True
        Check both files' SHA-256 against the UCI files' before reading them.
    split_seed : numpy.random.SeedSequence or int, optional
        ``None``: the fixed split above. Otherwise a random split at the reference loader's
        sizes (:func:`draw_split_rows`: ⌊32561/20⌋ = 1628 training rows from the complete
        ``adult.data`` rows, 12661 test rows from the complete ``adult.test`` rows), the same
        rows under both protocols; each protocol then encodes and scales as above.

    Returns
    -------
    AdultSplit

    Raises
    ------
    krepro.data.download.ChecksumError
        A file is not the UCI file (edited or damaged after its download).
    """
    train, test, n_raw_train = read_adult_files(Path(data_path), Path(test_path), verify)
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}.")
    rows = None
    if split_seed is not None:
        rows = draw_split_rows(
            len(train), len(test), n_raw_train // 20, REFERENCE_TEST_ROWS, split_seed
        )
    if protocol == "reference":
        return _reference(train, test, n_raw_train, rows)
    return _corrected(train, test, n_train, rows)
