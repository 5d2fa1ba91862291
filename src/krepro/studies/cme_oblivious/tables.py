"""Tables of the ``cme_oblivious`` study: the run table and its aggregate (summary job), and
the estimator comparisons of the report section."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["AT_ZERO_COLUMNS", "aggregate", "estimator_summary", "tidy"]

#: The columns of the aggregate table shown at γ = 0.
AT_ZERO_COLUMNS = [
    "sensitive_dim",
    "experiment",
    "estimator",
    "method",
    "mse_mean",
    "abs_corr_s2_mean",
    "hsic_mean",
    "n_reps",
]


def tidy(records):
    """One row per run record."""
    columns = [
        "sensitive_dim",
        "experiment",
        "gamma",
        "repetition",
        "estimator",
        "method",
        "lambda",
        "validation_mse",
        "test_mse",
        "hsic",
        "hsic_p_value",
        "corr_s2",
        "seed",
    ]
    frame = pd.DataFrame.from_records(records)[columns]
    return frame.sort_values(
        ["sensitive_dim", "experiment", "gamma", "estimator", "method", "repetition"],
        kind="stable",
    ).reset_index(drop=True)


def aggregate(runs):
    """Mean/sd of test MSE and of the dependence measures per setting, estimator and method."""
    keys = ["sensitive_dim", "experiment", "gamma", "estimator", "method"]
    grouped = runs.groupby(keys, sort=True)
    table = grouped.agg(
        mse_mean=("test_mse", "mean"),
        mse_sd=("test_mse", lambda v: v.std(ddof=1)),
        hsic_mean=("hsic", "mean"),
        hsic_sd=("hsic", lambda v: v.std(ddof=1)),
        abs_corr_s2_mean=("corr_s2", lambda v: float(np.mean(np.abs(v)))),
        n_reps=("test_mse", "size"),
    )
    return table.reset_index()


def estimator_summary(table):
    """The oblivious methods' means over γ and experiments, per (d, estimator, method), from
    the aggregate table."""
    oblivious = table[table["estimator"] != "none"]
    return (
        oblivious.groupby(["sensitive_dim", "estimator", "method"], sort=True)
        .agg(
            mse_mean_over_settings=("mse_mean", "mean"),
            abs_corr_s2=("abs_corr_s2_mean", "mean"),
            hsic=("hsic_mean", "mean"),
        )
        .reset_index()
    )
