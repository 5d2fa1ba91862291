r"""Fig. 2 of the oblivious-data paper: :math:`h(X)` and :math:`\langle h, Z\rangle` against S.

For :math:`X = S + U` (S, U independent uniforms) and :math:`h_1(x) = x^2`, :math:`h_2(x) =
\sin x`, the oblivious feature gives :math:`\langle h, Z\rangle = h(X) - E^S_n h(X) + E_n
h(X)` (§5 and §6.1: inner products move inside the plug-in conditional expectation). The
conditional expectation is estimated on an independent estimation sample with a dyadic
partition of the range of S, exactly as the oblivious features of the other experiments.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.data.synthetic import ILLUSTRATION_SETTINGS, illustration_sample
from krepro.fairness.conditional import DyadicPartition, PartitionConditionalMean
from krepro.metrics import distance_correlation_test
from krepro.seeding import generator
from krepro.workflow.records import atomic_write_text

__all__ = ["dependence_summary", "run", "sample"]


def run(*, seed, n_points, n_estimation, cells_per_axis):
    """Points (S, h(X), ⟨h, Z⟩, E[h(X)|S]) for both settings of Fig. 2.

    Returns
    -------
    frame : pandas.DataFrame
        Columns setting, s, h_raw, h_oblivious, h_conditional_mean (closed form).
    """
    frames = []
    for name, spec in ILLUSTRATION_SETTINGS.items():
        rng = generator(seed, "illustration", name)
        S_est, X_est = illustration_sample(rng, n_estimation, name)
        S, X = illustration_sample(rng, n_points, name)
        estimator = PartitionConditionalMean(
            DyadicPartition(spec.s_low, spec.s_high, cells_per_axis)
        ).fit(S_est)
        h_est = spec.h(X_est)
        h = spec.h(X)
        h_oblivious = h - estimator.conditional_mean(h_est, S) + h_est.mean()
        frames.append(
            pd.DataFrame(
                {
                    "setting": name,
                    "s": S,
                    "h_raw": h,
                    "h_oblivious": h_oblivious,
                    "h_conditional_mean": spec.conditional_mean(S),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


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
    bins: the conditional mean), and the distance correlation with its permutation p-value
    (any dependence, e.g. a spread that changes with S). One row per (setting, features)
    with features ∈ {"raw", "oblivious"}.

    Parameters
    ----------
    frame : pandas.DataFrame
        Output of :func:`run`.
    seed : int
        Config seed; the permutations are drawn from its ``("illustration", "dcor",
        setting, features)`` stream.
    n_permutations : int
        Permutations of the distance-correlation test.
    n_bins : int, default=20
        Quantile bins of S for η².
    """
    rows = []
    for name, group in frame.groupby("setting", sort=False):
        for features, column in (("raw", "h_raw"), ("oblivious", "h_oblivious")):
            values = group[column].to_numpy()
            s = group["s"].to_numpy()
            dcor, p_value = distance_correlation_test(
                values,
                s,
                n_permutations=n_permutations,
                random_state=generator(seed, "illustration", "dcor", name, features),
            )
            rows.append(
                {
                    "setting": name,
                    "features": features,
                    "corr_with_s": float(np.corrcoef(values, s)[0, 1]),
                    "variance_explained_by_s": _explained_variance(values, s, n_bins),
                    "distance_correlation": dcor,
                    "dcor_p_value": p_value,
                    "n_permutations": n_permutations,
                    "n_points": len(values),
                }
            )
    return pd.DataFrame(rows)


def sample(job, log):
    """Job ``illustration_sample``: the points of Fig. 2 and their dependence on S."""
    settings = dict(job.params.settings)
    n_permutations = settings.pop("n_permutations")
    points = run(seed=job.params.seed, **settings)
    atomic_write_text(job.output.points, points.to_csv(index=False))
    summary = dependence_summary(points, seed=job.params.seed, n_permutations=n_permutations)
    atomic_write_text(job.output.summary, summary.to_csv(index=False))
