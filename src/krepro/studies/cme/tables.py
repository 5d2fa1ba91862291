"""Tables of the ``cme`` study: the λ table (means over repetitions, with the λ selected per
output kernel) and the claims table, the measured quantities each claim's check reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.data.cme_law import conditional_sd, marginal_sd, true_mmd

__all__ = ["CLAIM_QUANTITIES", "OUTPUT_KERNELS", "aggregate", "claims_table"]

OUTPUT_KERNELS = ("gaussian", "linear", "delta")


def aggregate(rows):
    """The λ table: one row per λ, means over repetitions, ``*_sd`` columns, ``n_reps``, the
    pooled standard error and z of each decomposition gap, ``selected_<kernel>`` flags."""
    runs = pd.DataFrame(rows)
    metrics = [c for c in runs.columns if c not in ("repetition", "lambda")]
    grouped = runs.groupby("lambda", sort=True)
    table = grouped[metrics].mean()
    spread = grouped[metrics].std(ddof=1).add_suffix("_sd")
    table = table.join(spread)
    table["n_reps"] = grouped.size()
    # decomposition: pool the per-repetition standard errors (independent held-out samples)
    for kernel in OUTPUT_KERNELS:
        se = grouped[f"decomposition_se_{kernel}"].apply(lambda s: np.sqrt((s**2).sum()) / len(s))
        table[f"decomposition_se_{kernel}"] = se
        table[f"decomposition_z_{kernel}"] = table[f"decomposition_gap_{kernel}"] / se
    table = table.reset_index()
    for kernel in OUTPUT_KERNELS:
        best = table[f"heldout_loss_{kernel}"].idxmin()
        table[f"selected_{kernel}"] = table.index == best
    ordered = ["lambda", "mean_abs_weight_sum_minus_one", "share_negative_weights", "mmd_error"]
    return table[ordered + [c for c in table.columns if c not in ordered]]


# Measured quantities behind each claim, read from the λ table: (claim, quantity, row,
# column). The row is "selected_<kernel>" (the λ of least held-out loss for that output
# kernel), "smallest" / "largest" (ends of the λ grid), "max" / "max_abs" (the largest value /
# absolute value over the grid) or "argmin_<column>" (the λ row where that column is least).
# The standard deviation over repetitions is the table's "<column>_sd" for a single row.
CLAIM_QUANTITIES = (
    *(
        ("squared_loss_target", f"max_abs_decomposition_z_{k}", "max_abs", f"decomposition_z_{k}")
        for k in OUTPUT_KERNELS
    ),
    ("squared_loss_target", "lambda_selected_gaussian", "selected_gaussian", "lambda"),
    ("squared_loss_target", "lambda_min_mmd_error", "argmin_mmd_error", "lambda"),
    ("linear_mean_only", "lambda", "selected_linear", "lambda"),
    ("linear_mean_only", "rms_mean_error", "selected_linear", "mean_error_linear"),
    ("linear_mean_only", "linear_contrast", "selected_linear", "contrast_linear_predicted"),
    ("gaussian_separates", "lambda", "selected_gaussian", "lambda"),
    ("gaussian_separates", "rms_mmd_error", "selected_gaussian", "mmd_error"),
    ("gaussian_separates", "mmd_error_ratio", "selected_gaussian", "mmd_error_ratio"),
    ("gaussian_separates", "contrast_predicted", "selected_gaussian", "contrast_mmd_predicted"),
    ("delta_frequencies", "lambda", "selected_delta", "lambda"),
    ("delta_frequencies", "mean_abs_error", "selected_delta", "category_abs_error"),
    ("delta_frequencies", "min_category_score", "selected_delta", "min_category_score"),
    ("weights_not_probabilities", "lambda_smallest", "smallest", "lambda"),
    ("weights_not_probabilities", "deviation_smallest", "smallest",
     "mean_abs_weight_sum_minus_one"),
    ("weights_not_probabilities", "lambda_largest", "largest", "lambda"),
    ("weights_not_probabilities", "deviation_largest", "largest", "mean_abs_weight_sum_minus_one"),
    ("weights_not_probabilities", "max_share_negative_weights", "max", "share_negative_weights"),
    ("weights_not_probabilities", "share_negative_weights_selected", "selected_delta",
     "share_negative_weights"),
    ("weights_not_probabilities", "deviation_selected", "selected_delta",
     "mean_abs_weight_sum_minus_one"),
    ("weights_not_probabilities", "min_category_score_selected", "selected_delta",
     "min_category_score"),
)  # fmt: skip
_SETUP_KEYS = ("n_train", "n_heldout", "n_query", "n_repetitions", "input_gamma", "output_gamma",
               "noise_sd")  # fmt: skip


def _table_quantity(table, row, column):
    """(value, sd) of one entry of :data:`CLAIM_QUANTITIES`."""
    if row in ("max", "max_abs"):
        values = table[column].abs() if row == "max_abs" else table[column]
        return float(values.max()), np.nan
    if row.startswith("argmin_"):
        picked = table.loc[table[row.removeprefix("argmin_")].idxmin()]
    elif row in ("smallest", "largest"):
        picked = table.iloc[0 if row == "smallest" else -1]
    else:
        picked = table[table[row].astype(bool)].iloc[0]
    sd = picked.get(f"{column}_sd", np.nan)
    return float(picked[column]), float(sd)


def claims_table(table, operator, p):
    """Measured quantities behind each claim (long format: claim, quantity, value, sd).

    The run's settings (claim ``setup``), the operator check, closed-form quantities of the
    law, and the λ-table entries listed in :data:`CLAIM_QUANTITIES`.
    """
    law = {"output_gamma": p["output_gamma"], "noise_sd": p["noise_sd"]}
    contrast = np.asarray(p["contrast_x"], dtype=float)
    sds = conditional_sd(contrast, p["noise_sd"])
    records = [("setup", key, float(p[key]), np.nan) for key in _SETUP_KEYS]
    records += [("setup", f"contrast_x{k + 1}", float(x), np.nan) for k, x in enumerate(contrast)]
    records += [("operator_form", key, float(value), np.nan) for key, value in operator.items()]
    records += [
        ("linear_mean_only", "marginal_sd_y", marginal_sd(p["noise_sd"]), np.nan),
        ("linear_mean_only", "conditional_sd_low", float(sds[0]), np.nan),
        ("linear_mean_only", "conditional_sd_high", float(sds[1]), np.nan),
        (
            "gaussian_separates",
            "contrast_true",
            float(true_mmd(contrast[:1], contrast[1:], **law)[0, 0]),
            np.nan,
        ),
    ]
    records += [
        (claim, quantity, *_table_quantity(table, row, column))
        for claim, quantity, row, column in CLAIM_QUANTITIES
    ]
    return pd.DataFrame(records, columns=["claim", "quantity", "value", "sd"])
