"""Statistics shared by the studies' verdicts: paired differences, pooled and plain standard
errors, the Wilson interval of a proportion.

Every study's report section draws its intervals from here, so that one claim form is judged
the same way wherever it appears.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

__all__ = ["mean_se", "paired", "paired_differences", "pooled_mean_se", "wilson_interval"]


def paired(runs, by, method_column, first, second, value):
    """Per-group mean, sd, se and n of the paired difference ``value[second] − value[first]``.

    Pairs are the runs with equal ``by`` + ``repetition`` (same data split, same draws).

    Parameters
    ----------
    runs : DataFrame
        Tidy runs with the columns ``by``, ``"repetition"``, ``method_column`` and ``value``.
    by : list of str
        Grouping columns (settings).
    method_column : str
        Column naming the method of each run.
    first, second : str
        The two methods compared.
    value : str
        The measured column.

    Returns
    -------
    DataFrame
        ``by`` + ``mean``, ``sd`` (ddof = 1), ``n``, ``se = sd / √n``, sorted by ``by``.
    """
    wide = runs.pivot_table(index=[*by, "repetition"], columns=method_column, values=value)
    diff = (wide[second] - wide[first]).rename("difference").reset_index()
    out = (
        diff.groupby(by, sort=True)["difference"]
        .agg(mean="mean", sd=lambda v: v.std(ddof=1), n="size")
        .reset_index()
    )
    out["se"] = out["sd"] / np.sqrt(out["n"])
    return out


def paired_differences(runs, variant, experiment, first, second):
    """Per-γ paired difference ``second − first`` of test MSE in the ridge runs (§7.2).

    :func:`paired` over ``gamma`` for one (variant, experiment) of the ridge experiments.
    """
    part = runs[(runs["variant"] == variant) & (runs["experiment"] == experiment)]
    wide = part.pivot_table(
        index=["gamma", "repetition"], columns="method", values="test_mse"
    ).reset_index()
    wide["difference"] = wide[second] - wide[first]
    grouped = wide.groupby("gamma")["difference"]
    out = grouped.agg(mean="mean", sd=lambda v: v.std(ddof=1), n="size").reset_index()
    out["se"] = out["sd"] / np.sqrt(out["n"])
    return out


def pooled_mean_se(diff):
    """Mean over settings of per-setting means and its standard error.

    ``diff`` has one row per (independent) setting with columns ``mean`` and ``se``: the
    pooled mean is their average, its standard error :math:`\\sqrt{\\sum_k se_k^2} / K`.
    """
    k = len(diff)
    return float(diff["mean"].mean()), float(np.sqrt((diff["se"] ** 2).sum()) / k)


def mean_se(values):
    """Mean and standard error (sd with ddof = 1 over √n; NaN for one value) of ``values``."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    se = float(values.std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan
    return float(values.mean()), se


def wilson_interval(successes, n, level):
    """Wilson score interval of a binomial proportion (Apache Commons' formula).

    Parameters
    ----------
    successes, n : array-like of int
    level : float
        Confidence level, e.g. 0.99.

    Returns
    -------
    low, high : ndarray
    """
    successes, n = np.asarray(successes, dtype=float), np.asarray(n, dtype=float)
    z = norm.ppf(1.0 - (1.0 - level) / 2.0)
    p = successes / n
    denominator = 1.0 + z**2 / n
    centre = (p + z**2 / (2.0 * n)) / denominator
    half = z / denominator * np.sqrt(p * (1.0 - p) / n + z**2 / (4.0 * n**2))
    # The interval contains p; rounding could otherwise put p = 0 or 1 a hair outside.
    return np.clip(np.minimum(centre - half, p), 0, 1), np.clip(np.maximum(centre + half, p), 0, 1)
