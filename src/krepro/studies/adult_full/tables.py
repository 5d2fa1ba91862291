"""Tables of ``adult_full``: one row per method on all of Adult (CSV and Markdown), Table 1's
RBF rows beside them, and the landmark sweep, from the run records."""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.studies.adult_full.run import METHOD_LABELS, METHODS
from krepro.studies.tables import markdown_table

__all__ = [
    "DISPLAY_COLUMNS",
    "adult_full_markdown",
    "adult_full_table",
    "method_value",
    "sweep_table",
    "table1_beside",
]

# The SVM whose e_β the relative e_β divides by.
BASELINE = "svm"
DISPLAY_COLUMNS = {
    "algorithm": "algorithm",
    "error": "error",
    "error_se": "error se",
    "deo": "DEO",
    "deo_se": "DEO se",
    "beta": "e_β",
    "beta_se": "e_β se",
    "relative_beta_percent": "relative e_β (%)",
    "positive_rate": "positive rate",
    "fit_cpu_seconds": "fit CPU-s",
}
# Table 1 rows (oblivious: adult: table1) that the full-data methods stand beside.
TABLE1_ROWS = {"svm": "svm_rbf", "ferm": "ferm_rbf", "oblivious": "oblivious_rbf"}


def adult_full_table(runs, replicates=None):
    """One row per method: error, DEO, e_β, relative e_β (% of the SVM's), positive rate, CPU-s.

    Parameters
    ----------
    runs : DataFrame
        One run record per method.
    replicates : mapping of str to DataFrame, optional
        Per method, the test-set bootstrap replicates of ``error``, ``deo`` and ``beta``
        (:func:`krepro.studies.adult_full.bootstrap.paired_bootstrap`): their standard
        deviations fill ``error_se``, ``deo_se`` and ``beta_se`` (NaN without replicates).
    """
    replicates = replicates or {}
    by_method = runs.set_index("method")
    base = float(by_method["beta"].get(BASELINE, np.nan))
    order = {m: k for k, m in enumerate(METHODS)}
    rows = []
    for method, row in by_method.iterrows():
        boot = replicates.get(method)
        se = {
            metric: float(boot[metric].std(ddof=1)) if boot is not None else np.nan
            for metric in ("error", "deo", "beta")
        }
        rows.append(
            {
                "method": method,
                "algorithm": METHOD_LABELS[method],
                "family": row["family"],
                "error": row["test_error"],
                "error_se": se["error"],
                "deo": row["deo"],
                "deo_se": se["deo"],
                "beta": row["beta"],
                "beta_se": se["beta"],
                "relative_beta_percent": 100 * row["beta"] / base if base else np.nan,
                "positive_rate": row["positive_rate"],
                "fit_cpu_seconds": row["fit_cpu_seconds"],
                "train_error": row["train_error"],
                "n_components": row["n_components"],
                "approximation": row["approximation"],
                "C": row["C"],
                "gamma": row["gamma"],
                "n_train": row["n_train"],
                "n_test": row["n_test"],
            }
        )
    table = pd.DataFrame(rows)
    return table.sort_values("method", key=lambda c: c.map(order)).reset_index(drop=True)


def adult_full_markdown(table):
    """The table with display headers (Markdown)."""
    shown = table[list(DISPLAY_COLUMNS)].rename(columns=DISPLAY_COLUMNS)
    return markdown_table(shown, digits=3)


def method_value(table, method, column):
    """``column`` of ``method``'s row of ``table`` (NaN when the method has no row)."""
    rows = table[table["method"] == method]
    return float(rows[column].iloc[0]) if len(rows) else float("nan")


def table1_beside(table, paper):
    """Table 1's RBF rows beside the same methods on all of Adult.

    ``paper``: the rows of ``oblivious: adult: table1`` by method.
    """
    beside = []
    for method, row_name in TABLE1_ROWS.items():
        entry = paper[row_name]
        beside.append(
            {
                "method": METHOD_LABELS[method],
                "error (Table 1)": entry["mean_prediction_error"],
                "error (all of Adult)": method_value(table, method, "error"),
                "DEO (Table 1)": entry["deo"],
                "DEO (all of Adult)": method_value(table, method, "deo"),
                "e_β (Table 1)": entry["beta"],
                "e_β (all of Adult)": method_value(table, method, "beta"),
            }
        )
    return pd.DataFrame(beside)


def sweep_table(runs):
    """Landmark sweep: one row per (method, kind, landmarks) with the scores and agreement."""
    columns = [
        "method",
        "kind",
        "n_components",
        "test_error",
        "deo",
        "beta",
        "positive_rate",
        "agreement",
        "C",
        "gamma",
        "n_train",
        "n_test",
        "cpu_seconds",
    ]
    table = runs[columns].copy()
    table["n_components"] = table["n_components"].astype("Int64")
    return table.sort_values(["method", "kind", "n_components"], na_position="first").reset_index(
        drop=True
    )
