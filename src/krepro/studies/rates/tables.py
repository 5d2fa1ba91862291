"""Tables of the rates study: the run table, mean errors per n, the log-log slopes beside the
theory, the Gram timings, and the per-repetition slopes the verdicts read.

Kept apart from :mod:`krepro.studies.rates.run` and :mod:`krepro.studies.rates.gram_cost`, so
that editing a table does not rerun the measurements, whose rules hash those modules.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.fairness.rates import fit_slope, theory_slope
from krepro.seeding import generator
from krepro.studies.rates import parse_setting

__all__ = [
    "ESTIMATOR_LABELS",
    "SLOPE_COLUMNS",
    "error_table",
    "errors_by_n",
    "gram_cost_table",
    "gram_timing",
    "per_repetition_slopes",
    "rate_slopes",
    "shown_slopes",
    "slope_table",
    "tidy",
]

ESTIMATOR_LABELS = {"partition": "plug-in (partition)", "cme": "CME"}

SLOPE_COLUMNS = [
    "estimator",
    "setting",
    "kind",
    "d",
    "n_values",
    "slope",
    "slope_ci_low",
    "slope_ci_high",
    "theory_slope",
    "r2",
    "n_min",
    "n_max",
    "n_sizes",
    "n_reps",
]


def tidy(records):
    """One row per run, sorted by estimator, setting, n and repetition."""
    frame = pd.DataFrame.from_records(records)
    return frame.sort_values(
        ["estimator", "setting", "n", "repetition"], kind="stable"
    ).reset_index(drop=True)


def error_table(runs):
    """Mean, sd and geometric mean of the error per (estimator, setting, n)."""
    grouped = runs[runs["status"] == "ok"].groupby(["estimator", "setting", "n"], sort=True)
    table = grouped.agg(
        error_mean=("error", "mean"),
        error_sd=("error", lambda v: v.std(ddof=1)),
        n_reps=("error", "size"),
        n_cells=("n_cells", "first"),
    )
    return table.reset_index()


def slope_table(runs, *, seed, n_bootstrap, confidence):
    """Log-log slope of the mean error against n per (estimator, setting), beside the theory.

    The theory is Proposition 5 (finite S, both estimators would share it, only the partition
    estimator is run) or Proposition 6 (partition estimator with its cell schedule); the CME
    has no rate in the paper (``theory_slope`` empty).
    """
    rows = []
    ok = runs[runs["status"] == "ok"]
    for (estimator, setting), group in ok.groupby(["estimator", "setting"], sort=True):
        wide = group.pivot(index="n", columns="repetition", values="error").sort_index()
        fit = fit_slope(
            wide.index.to_numpy(),
            wide.to_numpy(),
            n_bootstrap=n_bootstrap,
            confidence=confidence,
            random_state=generator(seed, "rates-bootstrap", estimator, setting),
        )
        kind, value = parse_setting(setting)
        theory = theory_slope(kind, value) if estimator == "partition" else None
        rows.append(
            {
                "estimator": estimator,
                "setting": setting,
                "kind": kind,
                "d": value if kind == "continuous" else 1,
                "n_values": value if kind == "finite" else None,
                **{key: fit[key] for key in ("slope", "slope_ci_low", "slope_ci_high", "r2")},
                "theory_slope": theory,
                "n_min": int(wide.index.min()),
                "n_max": int(wide.index.max()),
                "n_sizes": len(wide),
                "n_reps": int(wide.notna().sum(axis=1).min()),
            }
        )
    return pd.DataFrame(rows, columns=SLOPE_COLUMNS)


def shown_slopes(slopes):
    """The slope table as the report shows it: estimators by their labels, the columns read."""
    table = slopes.copy()
    table["estimator"] = table["estimator"].map(ESTIMATOR_LABELS).fillna(table["estimator"])
    columns = [
        "estimator",
        "setting",
        "slope",
        "slope_ci_low",
        "slope_ci_high",
        "theory_slope",
        "r2",
        "n_min",
        "n_max",
        "n_reps",
    ]
    return table[columns]


def errors_by_n(errors):
    """Mean error against n: one column per (estimator, setting) of the error table."""
    wide = errors.pivot_table(index="n", columns=["estimator", "setting"], values="error_mean")
    wide.columns = [f"{ESTIMATOR_LABELS.get(e, e)} {s}" for e, s in wide.columns]
    return wide.reset_index()


def rate_slopes(runs, kind):
    """Per-repetition log-log slopes of the partition estimator's error, per setting.

    Parameters
    ----------
    runs : pandas.DataFrame
        The run table (``results/rates/rates.csv``): estimator, setting, kind, n, repetition,
        error, status.
    kind : str
        ``"finite"`` or ``"continuous"``.

    Returns
    -------
    dict of str to numpy.ndarray
        Setting name to one slope of log error on log n per repetition (repetitions with an
        error at every n only).
    """
    part = runs[
        (runs["estimator"] == "partition") & (runs["kind"] == kind) & (runs["status"] == "ok")
    ]
    slopes = {}
    for setting, group in part.groupby("setting", sort=True):
        wide = group.pivot(index="n", columns="repetition", values="error").sort_index()
        wide = wide.dropna(axis=1)
        if len(wide) < 2 or wide.shape[1] < 1:
            continue
        log_n = np.log(wide.index.to_numpy(dtype=float))
        fits = np.polyfit(log_n, np.log(wide.to_numpy(dtype=float)), 1)
        slopes[setting] = fits[0]
    return slopes


def gram_cost_table(records):
    """The timing records as a table sorted by repetition and n."""
    frame = pd.DataFrame.from_records(records)
    return frame.sort_values(["repetition", "n"], kind="stable").reset_index(drop=True)


def gram_timing(gram_cost):
    """Median, least and largest CPU seconds of the Gram matrix per n, with the repetitions."""
    return (
        gram_cost.groupby("n", sort=True)["cpu_seconds"]
        .agg(["median", "min", "max", "size"])
        .reset_index()
        .rename(columns={"size": "repetitions"})
    )


def per_repetition_slopes(table):
    """Least-squares slope of log CPU time on log n, one per repetition.

    Parameters
    ----------
    table : pandas.DataFrame
        Columns ``n``, ``repetition``, ``cpu_seconds`` (positive).

    Returns
    -------
    numpy.ndarray
        One slope per repetition with at least two sizes, in order of the repetition.
    """
    slopes = []
    for _, group in table.groupby("repetition", sort=True):
        group = group[group["cpu_seconds"] > 0]
        if group["n"].nunique() < 2:
            continue
        slope = np.polyfit(np.log(group["n"]), np.log(group["cpu_seconds"]), 1)[0]
        slopes.append(float(slope))
    return np.asarray(slopes)
