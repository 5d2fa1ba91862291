"""Table 1 of the oblivious-data paper (§7.1) from the Adult run table: CSV, Markdown, LaTeX."""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.studies.adult.run import METHOD_LABELS as ADULT_LABELS
from krepro.studies.adult.run import METHODS as ADULT_METHODS
from krepro.studies.tables import markdown_table

__all__ = [
    "BASELINE",
    "adult_table1",
    "adult_table1_latex",
    "adult_table1_markdown",
    "display_table",
    "hyperparameters",
]

# Baseline of the relative e_β: the SVM with the same kernel (Table 1).
BASELINE = {"linear": "svm_linear", "rbf": "svm_rbf"}


def adult_table1(runs):
    """Table 1 per (protocol, grid): MPE, DEO, e_β, relative e_β (%), positive rate, C, γ."""
    rows = []
    order = {m: k for k, m in enumerate(ADULT_METHODS)}
    for (protocol, grid), group in runs.groupby(["protocol", "grid"], sort=True):
        by_method = group.set_index("method")
        for method, row in by_method.iterrows():
            baseline = BASELINE[row["kernel"]]
            base = by_method["beta"].get(baseline, np.nan)
            rows.append(
                {
                    "protocol": protocol,
                    "grid": grid,
                    "method": method,
                    "algorithm": ADULT_LABELS[method],
                    "mean_prediction_error": row["test_error"],
                    "deo": row["deo"],
                    "beta": row["beta"],
                    "relative_beta_percent": 100 * row["beta"] / base if base else np.nan,
                    "positive_rate": row.get("positive_rate", np.nan),
                    "C": row["C"],
                    "gamma": row["gamma"],
                    "cv_accuracy": row["cv_accuracy"],
                    "n_train": row["n_train"],
                    "n_test": row["n_test"],
                }
            )
    table = pd.DataFrame(rows)
    protocol_order = {"reference": 0, "corrected": 1}
    return table.sort_values(
        ["protocol", "grid", "method"],
        key=lambda c: (
            c.map(order)
            if c.name == "method"
            else c.map(protocol_order)
            if c.name == "protocol"
            else c
        ),
        kind="stable",
    ).reset_index(drop=True)


def display_table(table):
    """Table-1 columns under the paper's headers, and the selected hyper-parameters."""
    columns = {
        "algorithm": "Algorithm",
        "mean_prediction_error": "Mean Prediction Error",
        "deo": "DEO",
        "beta": "e_β-Dependence",
        "relative_beta_percent": "Relative e_β (%)",
        "positive_rate": "Positive rate",
    }
    shown = table[list(columns)].rename(columns=columns)
    selected = [hyperparameters(c, g) for c, g in zip(table["C"], table["gamma"], strict=True)]
    return shown.assign(**{"selected": selected})


def hyperparameters(C, gamma):
    """``"C = …"`` or ``"C = …, γ = …"``: the selected hyper-parameters, as the tables show them."""
    return f"C = {C:g}" + ("" if pd.isna(gamma) else f", γ = {gamma:g}")


def adult_table1_markdown(table):
    """One Markdown table per (protocol, grid), laid out like the paper's Table 1."""
    out = []
    for (protocol, grid), part in table.groupby(["protocol", "grid"], sort=False):
        out += [f"### Adult, protocol {protocol}, grid {grid}", ""]
        shown = display_table(part)
        shown["Relative e_β (%)"] = shown["Relative e_β (%)"].round(0)
        out += [markdown_table(shown), ""]
    return "\n".join(out)


def adult_table1_latex(table):
    """A LaTeX ``tabular`` per (protocol, grid) (booktabs), two decimals as in the paper."""
    out = []
    for (protocol, grid), part in table.groupby(["protocol", "grid"], sort=False):
        out += [
            f"% Adult, protocol {protocol}, grid {grid}",
            r"\begin{tabular}{lrrrrr}",
            r"\toprule",
            r"Algorithm & Mean Prediction Error & DEO & $e_\beta$-Dependence & "
            r"Relative $e_\beta$ & Positive rate \\",
            r"\midrule",
        ]
        for row in part.itertuples(index=False):
            out.append(
                f"{row.algorithm} & {row.mean_prediction_error:.2f} & {row.deo:.2f} & "
                f"{row.beta:.2f} & {row.relative_beta_percent:.0f}\\% & "
                f"{row.positive_rate:.2f} \\\\"
            )
        out += [r"\bottomrule", r"\end{tabular}", ""]
    return "\n".join(out)
