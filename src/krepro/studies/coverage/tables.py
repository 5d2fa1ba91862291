"""Tables of the coverage study (distributed regression, Fig. 1 / Table 1).

:func:`tidy` turns the simulation's shards into one row per (variant, repetition, P, T);
:func:`aggregate` makes Table 1 in long form (coverage, Wilson intervals, bold flag, RMSE);
:func:`table1_wide` / :func:`table1_markdown` print it in the paper's layout;
:func:`setup_rows` and :func:`diagnostics_by_t` are the report section's other tables.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.stats import wilson_interval
from krepro.studies.coverage.readings import BANDS
from krepro.studies.tables import markdown_table

__all__ = [
    "BAND_LABELS",
    "aggregate",
    "diagnostics_by_t",
    "full_repetitions",
    "setup_rows",
    "table1_markdown",
    "table1_wide",
    "tidy",
    "variant_order",
]

BAND_LABELS = {
    "percentile": "percentile band L < f* < U (authors' code)",
    "basic": "basic band 2f̄ − U < f* < 2f̄ − L (paper eqs. (7)/(10))",
}


# --------------------------------------------------------------------------- tables


def tidy(shards):
    """One row per (variant, repetition, P, T); checks that repetitions are complete.

    Columns: variant, repetition, P, T, covered_percentile, covered_basic, squared_error,
    tail_index, bootstrap_coverage.
    """
    frames = []
    for shard in shards:
        partitions, targets = shard["setting_partitions"], shard["setting_targets"]
        reps = shard["repetition"]
        grid_rep, grid_p, grid_t = np.meshgrid(
            reps, np.arange(len(partitions)), np.arange(len(targets)), indexing="ij"
        )
        frame = pd.DataFrame(
            {
                "variant": str(shard["variant"]),
                "repetition": grid_rep.ravel(),
                "P": partitions[grid_p.ravel()],
                "T": targets[grid_t.ravel()],
            }
        )
        for k, band in enumerate(BANDS):
            frame[f"covered_{band}"] = shard["covered"][..., k].ravel().astype(int)
        frame["squared_error"] = shard["squared_error"].ravel()
        frame["tail_index"] = shard["tail_index"].ravel().astype(int)
        frame["bootstrap_coverage"] = shard["n_inside"].ravel() / int(shard["setting_n_resamples"])
        frames.append(frame)
    runs = pd.concat(frames, ignore_index=True)
    runs = runs.sort_values(["variant", "repetition", "P", "T"], kind="stable")
    for variant, group in runs.groupby("variant"):
        reps = np.unique(group["repetition"])
        if len(group) != len(reps) * group["P"].nunique() * group["T"].nunique() or not (
            np.array_equal(reps, np.arange(len(reps)))
        ):
            raise ValueError(
                f"Variant {variant}: repetitions must be 0..R-1, each once; got"
                f" {len(reps)} distinct values in {len(group)} rows."
            )
    return runs.reset_index(drop=True)


def aggregate(runs, confidence_level, subsets=(), rho=None):
    """Coverage per (variant, band, number of repetitions, T, P): Table 1 in long form.

    Parameters
    ----------
    runs : DataFrame
        From :func:`tidy`.
    confidence_level : float
        Nominal coverage; a row is ``bold`` when it lies outside the 99% interval (Table 1).
    subsets : sequence of int
        Also report the first k repetitions, for each k below the number run.
    rho : dict, default=None
        Penalty per variant, copied into a ``rho`` column.

    Returns
    -------
    table : DataFrame
        Columns: variant, rho, band, n_reps, T, P, successes, coverage, wilson95_low,
        wilson95_high, wilson99_low, wilson99_high, bold, rmse, tail_index_median,
        bootstrap_coverage_mean.
    """
    rows = []
    for variant, group in runs.groupby("variant", sort=True):
        n_total = int(group["repetition"].max()) + 1
        for n_reps in sorted({n_total, *(k for k in subsets if k < n_total)}, reverse=True):
            part = group[group["repetition"] < n_reps]
            by_cell = part.groupby(["T", "P"], sort=True)
            stats = by_cell.agg(
                n_reps=("repetition", "size"),
                mse=("squared_error", "mean"),
                tail_index_median=("tail_index", "median"),
                bootstrap_coverage_mean=("bootstrap_coverage", "mean"),
            )
            for band in BANDS:
                cell = stats.copy()
                cell["successes"] = by_cell[f"covered_{band}"].sum()
                cell["band"] = band
                rows.append(cell.reset_index().assign(variant=variant))
    table = pd.concat(rows, ignore_index=True)
    table["coverage"] = table["successes"] / table["n_reps"]
    for level in (95, 99):
        low, high = wilson_interval(table["successes"], table["n_reps"], level / 100)
        table[f"wilson{level}_low"], table[f"wilson{level}_high"] = low, high
    table["bold"] = (confidence_level < table["wilson99_low"]) | (
        confidence_level > table["wilson99_high"]
    )
    table["rmse"] = np.sqrt(table["mse"])
    table["rho"] = table["variant"].map(rho or {}).astype(float)
    order = {band: k for k, band in enumerate(BANDS)}
    table = table.sort_values(
        ["variant", "band", "n_reps", "T", "P"],
        ascending=[True, True, False, True, True],
        key=lambda col: col.map(order) if col.name == "band" else col,
        kind="stable",
    )
    columns = [
        "variant",
        "rho",
        "band",
        "n_reps",
        "T",
        "P",
        "successes",
        "coverage",
        "wilson95_low",
        "wilson95_high",
        "wilson99_low",
        "wilson99_high",
        "bold",
        "rmse",
        "tail_index_median",
        "bootstrap_coverage_mean",
    ]
    return table[columns].reset_index(drop=True)


def variant_order(table, primary_variant):
    """Variants of the table, the primary one first."""
    return [primary_variant, *sorted(set(table["variant"]) - {primary_variant})]


def full_repetitions(table, variant):
    """Rows of ``variant`` with all repetitions (not a subset)."""
    part = table[table["variant"] == variant]
    return part[part["n_reps"] == part["n_reps"].max()]


def _interval(low, high):
    """Table 1 style: two decimals, leading zero dropped."""

    def fmt(value):
        text = f"{value:.2f}"
        return text[1:] if text.startswith("0.") else text

    return f"[{fmt(low)}, {fmt(high)}]"


def table1_wide(table, variant, band, n_reps=None):
    """Paper Table 1 layout: rows T, columns P, cells the 99% Wilson interval.

    Bold (Markdown ``**``) where the nominal level lies outside the interval.
    """
    part = table[(table["variant"] == variant) & (table["band"] == band)]
    part = part[part["n_reps"] == (part["n_reps"].max() if n_reps is None else n_reps)]
    cells = [
        f"**{_interval(lo, hi)}**" if bold else _interval(lo, hi)
        for lo, hi, bold in zip(
            part["wilson99_low"], part["wilson99_high"], part["bold"], strict=True
        )
    ]
    wide = part.assign(cell=cells).pivot(index="T", columns="P", values="cell")
    wide.columns = [f"P = {p}" for p in wide.columns]
    return wide.reset_index()


def table1_markdown(table, primary_variant):
    """``coverage_table1.md``: Table 1 analogues for every variant, band and subset."""
    variants = variant_order(table, primary_variant)
    out = [
        "# Coverage of the bootstrap bands (cf. paper Table 1)",
        "",
        "Cells: 99% Wilson interval of the coverage over repetitions (rows T, columns P);",
        "**bold** where the nominal level lies outside it. The paper's Table 1 shows the",
        f"percentile band of the primary variant (`{primary_variant}`).",
    ]
    for variant in variants:
        part = table[table["variant"] == variant]
        rho = part["rho"].iloc[0]
        for n_reps in sorted(part["n_reps"].unique(), reverse=True):
            for band in BANDS:
                out += [
                    "",
                    f"## `{variant}` (ρ = {rho:.4g}), {BAND_LABELS[band]}, {n_reps} repetitions",
                    "",
                    markdown_table(table1_wide(table, variant, band, n_reps)),
                ]
    return "\n".join(out) + "\n"


def setup_rows(reference, settings):
    """Setup of the paper beside this run's: one row per key of ``reference["setup"]``, with
    ``same`` (floats compared with :func:`numpy.isclose`) and the paper's source."""
    rows = []
    for key, entry in reference["setup"].items():
        ours = settings.get(key)
        paper = entry["value"]
        same = ours == paper or (
            isinstance(paper, float) and ours is not None and np.isclose(ours, paper)
        )
        rows.append(
            {
                "setting": key,
                "paper": paper,
                "this run": ours,
                "same": "yes" if same else "**no**",
                "source": entry["source"],
            }
        )
    return pd.DataFrame(rows)


def diagnostics_by_t(rows):
    """Median tail index and mean joint bootstrap coverage of the primary band by T, all P
    pooled, from the rows of one variant of Table 1 (:func:`full_repetitions`)."""
    return (
        rows[rows["band"] == BANDS[0]]
        .groupby("T")
        .agg(
            tail_index_median=("tail_index_median", "median"),
            bootstrap_coverage=("bootstrap_coverage_mean", "mean"),
        )
        .reset_index()
    )
