"""Tables of the projection study: the run table and the per-γ means (summary job), and the
means as the report shows them."""

from __future__ import annotations

import pandas as pd

from krepro.studies.projection.run import FEATURES, METRICS

__all__ = ["MEAN_COLUMNS", "aggregate", "means_table", "tidy"]

#: The aggregate table's columns the report shows, and their headers.
MEAN_COLUMNS = {
    "gamma": "γ",
    "d_n_mean": "d_n",
    "d_reference_mean": "d (reference)",
    "max_abs_deviation": "max abs(d_n − d)",
    "mean_shift_mean": "mean abs(W − X)",
    "dcor_X_mean": "dCor(X, S)",
    "dcor_Z_mean": "dCor(Z, S)",
    "dcor_W_mean": "dCor(W, S)",
    "beta_X_mean": "e_β SVM(X)",
    "beta_Z_mean": "e_β SVM(Z)",
    "beta_W_mean": "e_β SVM(W)",
    "error_X_mean": "error SVM(X)",
    "error_Z_mean": "error SVM(Z)",
    "error_W_mean": "error SVM(W)",
    "n_reps": "reps",
}


def tidy(records):
    """One row per (γ, repetition)."""
    frame = pd.DataFrame.from_records(records)
    return frame.sort_values(["gamma", "repetition"], kind="stable").reset_index(drop=True)


def aggregate(runs):
    """Mean and sd over repetitions of every measure, per γ."""
    ok = runs[runs["status"] == "ok"]
    measures = [
        *METRICS,
        *[f"dcor_{f}" for f in FEATURES],
        *[f"beta_{f}" for f in FEATURES],
        *[f"error_{f}" for f in FEATURES],
    ]
    grouped = ok.groupby("gamma", sort=True)
    table = grouped[measures].agg(["mean", "std"])
    table.columns = [f"{m}_{'sd' if s == 'std' else s}" for m, s in table.columns]
    table["n_points"] = grouped["n_points"].first()
    table["rho"] = grouped["rho"].first()
    table["max_abs_deviation"] = grouped["abs_deviation"].max()
    table["n_reps"] = grouped.size()
    return table.reset_index()


def means_table(table):
    """The per-γ means of the aggregate table under the report's headers."""
    return table[list(MEAN_COLUMNS)].rename(columns=MEAN_COLUMNS)
