"""The students study's tables: the tidy run table and the mean ± sd table (§7.1, Fig. 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.studies.students.run import METHOD_LABELS, METHODS

__all__ = ["COLUMNS", "aggregate", "display_table", "tidy"]

COLUMNS = [
    "variant",
    "c_selection",
    "c_rule",
    "repetition",
    "method",
    "C",
    "cv_accuracy",
    "error_observed",
    "error_true",
    "beta",
    "deo",
    "positive_rate",
    "seed",
]


def tidy(records):
    """One row per (variant, C selection, repetition, method)."""
    frame = pd.DataFrame.from_records(records)[COLUMNS]
    order = {m: k for k, m in enumerate(METHODS)}
    return frame.sort_values(
        ["variant", "c_selection", "method", "repetition"],
        key=lambda c: c.map(order) if c.name == "method" else c,
        kind="stable",
    ).reset_index(drop=True)


def aggregate(runs):
    """Mean and sd (ddof = 1) per (variant, C selection, method) of the errors, e_β, DEO and
    the positive rate."""
    rows = []
    keys = ["variant", "c_selection", "method"]
    for (variant, c_selection, method), group in runs.groupby(keys, sort=False):
        row = {
            "variant": variant,
            "c_selection": c_selection,
            "method": method,
            "label": METHOD_LABELS[method],
        }
        for metric in ("error_observed", "error_true", "beta", "deo", "positive_rate"):
            row[f"{metric}_mean"] = float(group[metric].mean())
            row[f"{metric}_sd"] = float(group[metric].std(ddof=1)) if len(group) > 1 else np.nan
        row["n_reps"] = len(group)
        rows.append(row)
    return pd.DataFrame(rows)


def display_table(table):
    """The report's table: one row per (reading, method), each metric as mean ± sd."""
    shown = table.copy()
    for metric in ("error_observed", "error_true", "beta", "deo", "positive_rate"):
        shown[metric] = [
            f"{m:.3f} ± {s:.3f}"
            for m, s in zip(shown[f"{metric}_mean"], shown[f"{metric}_sd"], strict=True)
        ]
    shown["reading"] = [
        f"{v}/{c}" for v, c in zip(shown["variant"], shown["c_selection"], strict=True)
    ]
    columns = [
        "reading",
        "label",
        "error_observed",
        "error_true",
        "beta",
        "deo",
        "positive_rate",
        "n_reps",
    ]
    return shown[columns]
