"""Table 1 of the oblivious-data paper (§7.1) from the Adult run table: CSV, Markdown, LaTeX.

Every (protocol, grid) reading runs ``adult.n_splits`` random train/test splits; a Table-1
cell is the mean over the splits with its standard error, the standard deviation of one
split, and the range (min–max) over the splits.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.studies.adult.run import METHOD_LABELS as ADULT_LABELS
from krepro.studies.adult.run import METHODS as ADULT_METHODS
from krepro.studies.tables import markdown_table

__all__ = [
    "BASELINE",
    "METRICS",
    "adult_table1",
    "adult_table1_latex",
    "adult_table1_markdown",
    "cpu_per_split",
    "display_table",
    "hyperparameters",
    "paper_beside_ours",
    "per_split",
]

# Baseline of the relative e_β: the SVM with the same kernel (Table 1).
BASELINE = {"linear": "svm_linear", "rbf": "svm_rbf"}
# Table-1 column → run-table column.
METRICS = {
    "mean_prediction_error": "test_error",
    "deo": "deo",
    "beta": "beta",
    "relative_beta_percent": "relative_beta_percent",
    "positive_rate": "positive_rate",
}
PROTOCOL_ORDER = {"reference": 0, "corrected": 1}


def per_split(runs):
    """The run table with ``split`` (0 if absent) and each split's relative e_β (%).

    Relative e_β is 100 · e_β / e_β of the SVM with the same kernel on the same split
    (NaN where that SVM was not run or has e_β = 0).
    """
    runs = runs.copy()
    if "split" not in runs:
        runs["split"] = 0
    keys = ["protocol", "grid", "split"]
    base = {}
    for key, group in runs.groupby(keys, sort=False):
        betas = group.set_index("method")["beta"]
        for kernel, baseline in BASELINE.items():
            base[(*key, kernel)] = betas.get(baseline, np.nan)
    denominators = np.array(
        [
            base.get((p, g, s, k), np.nan)
            for p, g, s, k in zip(
                runs["protocol"], runs["grid"], runs["split"], runs["kernel"], strict=True
            )
        ],
        dtype=float,
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = 100.0 * runs["beta"].to_numpy(dtype=float) / denominators
    runs["relative_beta_percent"] = np.where(denominators > 0, relative, np.nan)
    return runs


def _selected(group):
    """The most frequent (C, γ) over the splits and how often it was chosen."""
    pairs = list(zip(group["C"], group["gamma"].fillna(-1.0), strict=True))
    counts = pd.Series(pairs).value_counts(sort=True)
    (C, gamma), count = counts.index[0], int(counts.iloc[0])
    return C, (np.nan if gamma == -1.0 else gamma), count


def adult_table1(runs):
    """Table 1 per (protocol, grid, method) over the splits.

    Columns: for each of ``mean_prediction_error``, ``deo``, ``beta``,
    ``relative_beta_percent``, ``positive_rate`` the mean (that name), ``<name>_se``
    (standard error of the mean), ``<name>_sd`` (of one split, ddof 1) and ``<name>_min``,
    ``<name>_max``; ``n_splits``; the most frequent selection ``C``, ``gamma`` and how many
    splits chose it (``selected_count``). No CPU times: the table does not depend on the
    machine or on ``--cores`` (the report lists them from the run table).
    """
    runs = per_split(runs)
    rows = []
    order = {m: k for k, m in enumerate(ADULT_METHODS)}
    for (protocol, grid, method), group in runs.groupby(["protocol", "grid", "method"]):
        n = len(group)
        row = {
            "protocol": protocol,
            "grid": grid,
            "method": method,
            "algorithm": ADULT_LABELS[method],
            "kernel": ADULT_METHODS[method][1],
            "n_splits": n,
        }
        for name, column in METRICS.items():
            values = group[column].to_numpy(dtype=float) if column in group else np.full(n, np.nan)
            sd = float(np.std(values, ddof=1)) if n > 1 else np.nan
            row[name] = float(np.mean(values))
            row[f"{name}_se"] = sd / np.sqrt(n) if n > 1 else np.nan
            row[f"{name}_sd"] = sd
            row[f"{name}_min"] = float(np.min(values))
            row[f"{name}_max"] = float(np.max(values))
        row["C"], row["gamma"], row["selected_count"] = _selected(group)
        row["cv_accuracy"] = float(group["cv_accuracy"].mean())
        row["n_train"] = int(group["n_train"].iloc[0])
        row["n_test"] = int(group["n_test"].iloc[0])
        rows.append(row)
    table = pd.DataFrame(rows)
    return table.sort_values(
        ["protocol", "grid", "method"],
        key=lambda c: (
            c.map(order)
            if c.name == "method"
            else c.map(PROTOCOL_ORDER)
            if c.name == "protocol"
            else c
        ),
        kind="stable",
    ).reset_index(drop=True)


def _cell(row, name, digits=3):
    """``mean ± s.e. [min–max]`` (the mean alone for one split)."""
    mean = row[name]
    if pd.isna(mean):
        return "–"
    if pd.isna(row[f"{name}_se"]):
        return f"{mean:.{digits}f}"
    return (
        f"{mean:.{digits}f} ± {row[f'{name}_se']:.{digits}f}"
        f" [{row[f'{name}_min']:.{digits}f}–{row[f'{name}_max']:.{digits}f}]"
    )


def display_table(table):
    """Table-1 columns under the paper's headers (mean ± s.e. [range over splits])."""
    columns = {
        "mean_prediction_error": ("Mean Prediction Error", 3),
        "deo": ("DEO", 3),
        "beta": ("e_β-Dependence", 3),
        "relative_beta_percent": ("Relative e_β (%)", 0),
        "positive_rate": ("Positive rate", 3),
    }
    shown = pd.DataFrame({"Algorithm": table["algorithm"]}, index=table.index)
    for name, (header, digits) in columns.items():
        shown[header] = [_cell(row, name, digits) for _, row in table.iterrows()]
    shown["splits"] = table["n_splits"].to_numpy()
    shown["selected (most often)"] = [
        f"{hyperparameters(c, g)} ({k}/{n})"
        for c, g, k, n in zip(
            table["C"], table["gamma"], table["selected_count"], table["n_splits"], strict=True
        )
    ]
    return shown


def hyperparameters(C, gamma):
    """``"C = …"`` or ``"C = …, γ = …"``: the selected hyper-parameters, as the tables show them."""
    return f"C = {C:g}" + ("" if pd.isna(gamma) else f", γ = {gamma:g}")


def adult_table1_markdown(table):
    """One Markdown table per (protocol, grid), laid out like the paper's Table 1."""
    out = []
    for (protocol, grid), part in table.groupby(["protocol", "grid"], sort=False):
        out += [
            f"### Adult, protocol {protocol}, grid {grid}"
            f" (mean ± s.e. [min–max] over {int(part['n_splits'].max())} splits)",
            "",
        ]
        out += [markdown_table(display_table(part)), ""]
    return "\n".join(out)


def adult_table1_latex(table):
    """A LaTeX ``tabular`` per (protocol, grid) (booktabs): mean ± s.e. over the splits."""
    out = []

    def pm(row, name, digits=2, scale=1.0):
        se = row[f"{name}_se"]
        mean = scale * row[name]
        if pd.isna(se):
            return f"{mean:.{digits}f}"
        return f"{mean:.{digits}f} $\\pm$ {scale * se:.{digits}f}"

    for (protocol, grid), part in table.groupby(["protocol", "grid"], sort=False):
        out += [
            f"% Adult, protocol {protocol}, grid {grid}: mean ± s.e. over the splits",
            r"\begin{tabular}{lrrrrr}",
            r"\toprule",
            r"Algorithm & Mean Prediction Error & DEO & $e_\beta$-Dependence & "
            r"Relative $e_\beta$ (\%) & Positive rate \\",
            r"\midrule",
        ]
        for _, row in part.iterrows():
            out.append(
                f"{row['algorithm']} & {pm(row, 'mean_prediction_error')} & {pm(row, 'deo')} & "
                f"{pm(row, 'beta')} & {pm(row, 'relative_beta_percent', 0)} & "
                f"{pm(row, 'positive_rate')} \\\\"
            )
        out += [r"\bottomrule", r"\end{tabular}", ""]
    return "\n".join(out)


def paper_beside_ours(table, reference):
    """Paper row beside ours under every reading (cells: mean error / DEO / e_β / rel. e_β).

    ``table``: :func:`adult_table1`; ``reference``: ``oblivious.adult`` of
    ``config/paper_reference.yaml`` (its ``table1``).
    """
    readings = list(dict.fromkeys(zip(table["protocol"], table["grid"], strict=True)))
    rows = []
    for entry in reference["table1"]:
        method = entry["method"]
        row = {
            "Algorithm": ADULT_LABELS[method],
            "paper": (
                f"{entry['mean_prediction_error']:.2f} / {entry['deo']:.2f} /"
                f" {entry['beta']:.2f} / {entry['relative_beta_percent']:.0f}%"
            ),
        }
        for protocol, grid in readings:
            hit = table[
                (table["protocol"] == protocol)
                & (table["grid"] == grid)
                & (table["method"] == method)
            ]
            row[f"{protocol}/{grid}"] = "–" if hit.empty else _ours(hit.iloc[0])
        rows.append(row)
    return pd.DataFrame(rows)


def _ours(row):
    def pm(name, digits=3):
        se = row[f"{name}_se"]
        return f"{row[name]:.{digits}f}" + ("" if pd.isna(se) else f" ± {se:.{digits}f}")

    return (
        f"{pm('mean_prediction_error')} / {pm('deo')} / {pm('beta')} /"
        f" {pm('relative_beta_percent', 0)}%"
    )


def cpu_per_split(runs):
    """CPU seconds per split of each (protocol, grid) job, summed over its methods."""
    if "cpu_seconds" not in runs:
        return pd.DataFrame()
    per_job = runs.groupby(["protocol", "grid", "split"])["cpu_seconds"].sum()
    frame = per_job.groupby(["protocol", "grid"]).agg(["mean", "min", "max", "count"])
    frame = frame.reset_index().rename(
        columns={"mean": "CPU s / split", "min": "min", "max": "max", "count": "splits"}
    )
    return frame.round(1)
