r"""Fig. 2 of the oblivious-data paper: :math:`h(X)` and :math:`\langle h, Z\rangle` against S.

For :math:`X = S + U` (S, U independent uniforms) and :math:`h_1(x) = x^2`, :math:`h_2(x) =
\sin x`, the oblivious feature gives :math:`\langle h, Z\rangle = h(X) - E^S_n h(X) + E_n
h(X)` (§5 and §6.1: inner products move inside the plug-in conditional expectation). The
conditional expectation is estimated on an independent estimation sample with a dyadic
partition of the range of S, exactly as the oblivious features of the other experiments.

The paper draws one sample per setting; the figure here is repetition 0, and the dependence
measures are taken on ``n_repetitions`` independent draws (each with its own estimation
sample), so that the claims about them are judged with intervals over repetitions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.data.synthetic import ILLUSTRATION_SETTINGS, illustration_sample
from krepro.fairness.conditional import DyadicPartition, PartitionConditionalMean
from krepro.metrics import distance_correlation_permutations
from krepro.records import atomic_write_text
from krepro.seeding import generator

__all__ = ["aggregate", "dependence_summary", "run", "sample"]

MEASURES = (
    "corr_with_s",
    "variance_explained_by_s",
    "distance_correlation",
    "dcor_null",
    "dcor_excess",
    "dcor_p_value",
)


def run(*, seed, n_points, n_estimation, cells_per_axis, n_repetitions=1):
    """Points (S, h(X), ⟨h, Z⟩, E[h(X)|S]) for both settings of Fig. 2, per repetition.

    Returns
    -------
    frame : pandas.DataFrame
        Columns setting, repetition, s, h_raw, h_oblivious, h_conditional_mean (closed form).
    """
    frames = []
    for name, spec in ILLUSTRATION_SETTINGS.items():
        for repetition in range(n_repetitions):
            frames.append(
                _repetition(seed, name, spec, repetition, n_points, n_estimation, cells_per_axis)
            )
    return pd.concat(frames, ignore_index=True)


def _repetition(seed, name, spec, repetition, n_points, n_estimation, cells_per_axis):
    """One independent draw (estimation and plotted sample) of one setting."""
    rng = generator(seed, "illustration", name, repetition)
    S_est, X_est = illustration_sample(rng, n_estimation, name)
    S, X = illustration_sample(rng, n_points, name)
    estimator = PartitionConditionalMean(
        DyadicPartition(spec.s_low, spec.s_high, cells_per_axis)
    ).fit(S_est)
    h_est = spec.h(X_est)
    h = spec.h(X)
    h_oblivious = h - estimator.conditional_mean(h_est, S) + h_est.mean()
    return pd.DataFrame(
        {
            "setting": name,
            "repetition": repetition,
            "s": S,
            "h_raw": h,
            "h_oblivious": h_oblivious,
            "h_conditional_mean": spec.conditional_mean(S),
        }
    )


def _explained_variance(values, s, n_bins):
    """Share of the variance of ``values`` explained by bin means of ``s`` (η²)."""
    edges = np.quantile(s, np.linspace(0, 1, n_bins + 1))
    bins = np.clip(np.searchsorted(edges, s, side="right") - 1, 0, n_bins - 1)
    counts = np.bincount(bins, minlength=n_bins)
    means = np.bincount(bins, weights=values, minlength=n_bins) / np.maximum(counts, 1)
    return float(np.var(means[bins]) / np.var(values))


def dependence_summary(frame, *, seed, n_permutations, n_bins=20):
    """Dependence on S of h(X) and of ⟨h, Z⟩: three measures that see different things.

    Correlation with S (linear trend only), variance explained by S (η², ``n_bins`` quantile
    bins: the conditional mean), and the distance correlation (any dependence, e.g. a spread
    that changes with S) with its permutation p-value, its mean under the permutations
    (``dcor_null``: the level the V-statistic shows for independent samples of this size)
    and its excess over that level (``dcor_excess``). One row per (setting, features,
    repetition) with features ∈ {"raw", "oblivious"}.

    Parameters
    ----------
    frame : pandas.DataFrame
        Output of :func:`run`.
    seed : int
        Config seed; the permutations are drawn from its ``("illustration", "dcor",
        setting, features, repetition)`` stream.
    n_permutations : int
        Permutations of the distance-correlation test.
    n_bins : int, default=20
        Quantile bins of S for η².
    """
    if "repetition" not in frame:
        frame = frame.assign(repetition=0)
    rows = []
    for (name, repetition), group in frame.groupby(["setting", "repetition"], sort=False):
        s = group["s"].to_numpy()
        for features, column in (("raw", "h_raw"), ("oblivious", "h_oblivious")):
            values = group[column].to_numpy()
            dcor, permuted = distance_correlation_permutations(
                values,
                s,
                n_permutations=n_permutations,
                random_state=generator(
                    seed, "illustration", "dcor", name, features, int(repetition)
                ),
            )
            exceed = int(np.sum(permuted >= dcor - 1e-12))
            rows.append(
                {
                    "setting": name,
                    "features": features,
                    "repetition": int(repetition),
                    "corr_with_s": float(np.corrcoef(values, s)[0, 1]),
                    "variance_explained_by_s": _explained_variance(values, s, n_bins),
                    "distance_correlation": dcor,
                    "dcor_null": float(permuted.mean()),
                    "dcor_excess": dcor - float(permuted.mean()),
                    "dcor_p_value": (1 + exceed) / (1 + n_permutations),
                    "n_permutations": n_permutations,
                    "n_points": len(values),
                }
            )
    return pd.DataFrame(rows)


def aggregate(dependence):
    """Mean and sd over repetitions of every measure, per (setting, features)."""
    grouped = dependence.groupby(["setting", "features"], sort=False)
    table = grouped[list(MEASURES)].agg(["mean", "std"])
    table.columns = [f"{m}_{'sd' if s == 'std' else s}" for m, s in table.columns]
    table["n_points"] = grouped["n_points"].first()
    table["n_permutations"] = grouped["n_permutations"].first()
    table["n_reps"] = grouped.size()
    return table.reset_index()


def sample(job, log):
    """Job ``illustration_sample``: the points of Fig. 2 and their dependence on S, per
    repetition, and its mean ± sd table."""
    settings = dict(job.params.settings)
    n_permutations = settings.pop("n_permutations")
    points = run(seed=job.params.seed, **settings)
    atomic_write_text(job.output.points, points.to_csv(index=False))
    dependence = dependence_summary(points, seed=job.params.seed, n_permutations=n_permutations)
    atomic_write_text(job.output.dependence, dependence.to_csv(index=False))
    atomic_write_text(job.output.summary, aggregate(dependence).to_csv(index=False))
