"""Tables of the ridge study: the run table and its aggregate (summary job), the closed-form
best S-independent MSE beside the paper's, and Fig. 4 as a table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.data.synthetic import ridge_best_constant_mse
from krepro.studies.ridge.run import METHODS

__all__ = ["aggregate", "best_constant_comparison", "best_constant_table", "ridge_wide", "tidy"]


def tidy(records):
    """One row per run record (columns: variant, experiment, gamma, repetition, method, ...)."""
    columns = [
        "variant",
        "experiment",
        "gamma",
        "repetition",
        "method",
        "lambda",
        "validation_mse",
        "test_mse",
        "seed",
    ]
    frame = pd.DataFrame.from_records(records)[columns]
    return frame.sort_values(
        ["variant", "experiment", "gamma", "method", "repetition"], kind="stable"
    ).reset_index(drop=True)


def aggregate(runs):
    """Mean and sample sd (ddof = 1) of the test MSE per (variant, experiment, γ, method).

    Columns: variant, experiment, gamma, method, mse_mean, mse_sd, mse_se, n_reps.
    """
    grouped = runs.groupby(["variant", "experiment", "gamma", "method"], sort=True)["test_mse"]
    table = grouped.agg(mse_mean="mean", mse_sd=lambda v: v.std(ddof=1), n_reps="size")
    table["mse_se"] = table["mse_sd"] / np.sqrt(table["n_reps"])
    table = table.reset_index()
    order = {m: k for k, m in enumerate(METHODS)}
    table = table.sort_values(
        ["variant", "experiment", "gamma", "method"],
        key=lambda col: col.map(order) if col.name == "method" else col,
        kind="stable",
    )
    return table[
        ["variant", "experiment", "gamma", "method", "mse_mean", "mse_sd", "mse_se", "n_reps"]
    ].reset_index(drop=True)


def best_constant_table(variants, partition):
    """Best S-independent MSE at γ = 0 for each (variant, experiment), from the data model."""
    rows = [
        {
            "variant": name,
            "experiment": experiment,
            "best_constant_mse": ridge_best_constant_mse(
                experiment, params["noise_variance"], partition["low"], partition["high"]
            ),
        }
        for name, params in variants.items()
        for experiment in (1, 2)
    ]
    return pd.DataFrame(rows)


def best_constant_comparison(best_constants, entries):
    """The closed-form best S-independent MSE of one variant beside the paper's values.

    Parameters
    ----------
    best_constants : pandas.DataFrame
        The rows of :func:`best_constant_table` of one variant.
    entries : list of mapping
        ``best_constant_mse`` of ``oblivious.ridge`` in ``config/paper_reference.yaml``: per
        experiment the paper's value and its relative tolerance.

    Returns
    -------
    pandas.DataFrame
        One row per entry: experiment, variant, paper, reproduced (closed form), difference,
        tolerance, and ``within`` (the difference lies within the tolerance).
    """
    rows = []
    for entry in entries:
        experiment = entry["experiment"]
        row = best_constants[best_constants["experiment"] == experiment].iloc[0]
        relative = float(row["best_constant_mse"]) / entry["value"] - 1.0
        rows.append(
            {
                "experiment": experiment,
                "variant": row["variant"],
                "paper": entry["value"],
                "reproduced (closed form)": round(float(row["best_constant_mse"]), 3),
                "difference": f"{100 * relative:+.1f}%",
                "tolerance": f"±{100 * entry['tolerance_rel']:.0f}%",
                "within": abs(relative) <= entry["tolerance_rel"],
            }
        )
    return pd.DataFrame(rows)


def ridge_wide(table, experiment):
    """Fig. 4 as a table for one variant's rows of the aggregate: one row per γ of
    ``experiment``, "mean ± sd" per method."""
    part = table[table["experiment"] == experiment]
    cells = part.assign(
        value=[f"{m:.3g} ± {s:.2g}" for m, s in zip(part["mse_mean"], part["mse_sd"], strict=True)]
    )
    wide = cells.pivot(index="gamma", columns="method", values="value")
    methods = [m for m in METHODS if m in wide.columns]
    return wide[methods].reset_index().rename(columns={"gamma": "γ"})
