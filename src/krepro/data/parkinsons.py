"""UCI Parkinson's Telemonitoring (Tsanas, Little, McSharry & Ramig, IEEE TBME 57(4), 2010).

``parkinsons_updrs.data``: a CSV with a header, 5,875 recordings of 42 subjects (101–168
each), columns ``subject#, age, sex, test_time, motor_UPDRS, total_UPDRS`` and the 16 voice
measures used as features by the DCM paper. The subjects are
the domains. The file is fetched by the workflow's checksummed ``fetch_dataset`` rule
(:mod:`krepro.data.download`); :func:`load_parkinsons` verifies the SHA-256 again, so a
modified copy is refused wherever it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from krepro.data.download import registered_sha256, verify_sha256

__all__ = [
    "FEATURES",
    "N_ROWS",
    "N_SUBJECTS",
    "TARGETS",
    "Parkinsons",
    "load_parkinsons",
    "subject_split",
]

FILENAME = "parkinsons_updrs.data"
FEATURES = (
    "Jitter(%)",
    "Jitter(Abs)",
    "Jitter:RAP",
    "Jitter:PPQ5",
    "Jitter:DDP",
    "Shimmer",
    "Shimmer(dB)",
    "Shimmer:APQ3",
    "Shimmer:APQ5",
    "Shimmer:APQ11",
    "Shimmer:DDA",
    "NHR",
    "HNR",
    "RPDE",
    "DFA",
    "PPE",
)
TARGETS = {"motor": "motor_UPDRS", "total": "total_UPDRS"}
N_ROWS = 5875
N_SUBJECTS = 42


@dataclass(frozen=True)
class Parkinsons:
    """Features ``X`` (n, 16), targets ``{"motor", "total"}`` and ``subject`` (the domains)."""

    X: np.ndarray
    targets: dict
    subject: np.ndarray

    def __len__(self):
        return len(self.subject)


def load_parkinsons(path, verify=True):
    """Read ``parkinsons_updrs.data``; refuse a file whose SHA-256 is not the UCI file's.

    Parameters
    ----------
    path : path-like
    verify : bool, default=True
        Check the SHA-256 against :data:`krepro.data.download.DATASETS`.

    Raises
    ------
    krepro.data.download.ChecksumError
        The file is not the known UCI file.
    ValueError
        The file does not have the expected columns or size.
    """
    if verify:
        verify_sha256(path, registered_sha256("parkinsons", FILENAME))
    frame = pd.read_csv(path)
    missing = [c for c in ("subject#", *TARGETS.values(), *FEATURES) if c not in frame]
    if missing:
        raise ValueError(f"{path} lacks the column(s) {missing}.")
    return Parkinsons(
        X=frame[list(FEATURES)].to_numpy(dtype=float),
        targets={name: frame[column].to_numpy(dtype=float) for name, column in TARGETS.items()},
        subject=frame["subject#"].to_numpy(dtype=int),
    )


def subject_split(subjects, n_train, rng):
    """Boolean training mask of a random split by subject: ``n_train`` subjects train.

    Parameters
    ----------
    subjects : ndarray of shape (n,)
    n_train : int
        Training subjects (the paper: 29 of 42).
    rng : numpy.random.Generator
    """
    ids = np.unique(subjects)
    if not 0 < n_train < len(ids):
        raise ValueError(f"n_train must lie in (0, {len(ids)}), got {n_train}.")
    train_ids = rng.permutation(ids)[:n_train]
    return np.isin(subjects, train_ids)
