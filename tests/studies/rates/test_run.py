"""The rates study's runs: settings, tables, Gram-cost timings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from krepro.studies.rates.gram_cost import measure
from krepro.studies.rates.run import run_setting
from krepro.studies.rates.tables import (
    SLOPE_COLUMNS,
    error_table,
    gram_cost_table,
    per_repetition_slopes,
    slope_table,
    tidy,
)

TINY = {
    "n_repetitions": 3,
    "n_bootstrap": 200,
    "confidence": 0.95,
    "kernel_gamma": 1.0,
    "sd": 0.5,
    "mean_scale": 2.0,
    "finite": {"n_values": [2], "sizes": [40, 80, 160]},
    "continuous": {
        "dims": [1, 2],
        "sizes": [40, 80, 160],
        "cells_scale": 1.0,
        "grid_points_per_axis": {"d1": 32, "d2": 8},
    },
    "cme": {
        "dims": [1],
        "sizes": [40, 80],
        "gamma": 10.0,
        "log10_alpha_min": -5,
        "log10_alpha_max": -1,
        "grid_points_per_axis": {"d1": 16, "d2": 8},
    },
}


# --------------------------------------------------------------------------- experiment


def test_run_setting_and_tables():
    records = []
    for setting in ("finite_k2", "continuous_d1"):
        records += run_setting(seed=5, setting=setting, settings=TINY)
    runs = tidy(records)
    assert set(runs["estimator"]) == {"partition", "cme"}
    assert (runs["error"] > 0).all()
    slopes = slope_table(runs, seed=5, n_bootstrap=50, confidence=0.9)
    assert list(slopes.columns) == SLOPE_COLUMNS
    contract = {"estimator", "setting", "slope", "slope_ci_low", "slope_ci_high", "theory_slope"}
    assert contract <= set(slopes.columns)
    partition = slopes.set_index(["estimator", "setting"])
    assert partition.loc[("partition", "finite_k2"), "theory_slope"] == -0.5
    assert np.isnan(partition.loc[("cme", "continuous_d1"), "theory_slope"])
    errors = error_table(runs)
    assert set(errors["n"]) == {40, 80, 160}
    # the same draws whatever else runs: records are keyed by (setting, n, repetition)
    again = tidy(run_setting(seed=5, setting="finite_k2", settings=TINY))
    np.testing.assert_array_equal(
        again["error"], runs[runs["setting"] == "finite_k2"]["error"].to_numpy()
    )


def test_unknown_setting_is_an_error():
    with pytest.raises(ValueError, match="Unknown rates setting"):
        run_setting(seed=0, setting="finite_two", settings=TINY)


def test_gram_cost_timings_and_slopes():
    settings = {
        "sizes": [40, 80],
        "n_repetitions": 2,
        "cells_per_axis": 4,
        "low": -5.0,
        "high": 5.0,
        "kernel_gamma": 1.0,
    }
    table = gram_cost_table(measure(seed=0, settings=settings))
    assert list(table["n"]) == [40, 80, 40, 80] and (table["cpu_seconds"] >= 0).all()
    exact = pd.DataFrame({"n": [100, 200, 400] * 2, "repetition": [0] * 3 + [1] * 3}).assign(
        cpu_seconds=lambda f: 1e-6 * f["n"] ** 2.0
    )
    np.testing.assert_allclose(per_repetition_slopes(exact), [2.0, 2.0])
