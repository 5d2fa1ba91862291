"""The projection study's run (krepro.studies.projection.run)."""

from __future__ import annotations

import pytest

from krepro.studies.projection.run import run_gamma
from krepro.studies.projection.tables import aggregate, tidy

SETTINGS = {
    "gammas": [0.0, 1.0],
    "n_repetitions": 2,
    "n_estimation": 40,
    "n_points": 40,
    "n_test": 40,
    "n_reference": 60,
    "noise_variance": 0.1,
    "kernel_gamma": 1.0,
    "partition": {"low": -5.0, "high": 5.0, "cells_per_axis": 4},
    "n_grid": 41,
    "n_refine": 6,
    "classifier_C": 1.0,
    "beta_bins": 4,
}


# --------------------------------------------------------------------------- experiment


def test_run_gamma_and_aggregate():
    records = run_gamma(seed=1, gamma=0.0, settings=SETTINGS) + run_gamma(
        seed=1, gamma=1.0, settings=SETTINGS
    )
    runs = tidy(records)
    assert len(runs) == 4
    assert (runs["d_n"] > 0).all()
    assert (runs["abs_deviation"] == (runs["d_n"] - runs["d_reference"]).abs()).all()
    table = aggregate(runs)
    assert list(table["gamma"]) == [0.0, 1.0]
    # X = S at γ = 0: the dependence of X on S is complete
    assert table.loc[0, "dcor_X_mean"] == pytest.approx(1.0)
    assert set(table["n_reps"]) == {2}
