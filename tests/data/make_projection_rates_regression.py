"""Write ``projection_rates_regression.json``: outputs of the projection and rates code.

The committed JSON was written by this script at commit ddce698, before the projection
search and the rates error were made faster; ``tests/test_projection_rates_regression.py``
checks that today's code still gives the same numbers (to ~1e-10). Rerunning the script
records the current code's outputs instead, so do that only on purpose (e.g. after an
intended change of results), from the repository root::

    PYTHONPATH=src python tests/data/make_projection_rates_regression.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from krepro.cme import CMEConditionalMean
from krepro.fairness.conditional import (
    DyadicPartition,
    FiniteValuePartition,
    PartitionConditionalMean,
)
from krepro.fairness.projection import FeatureExpansion, oblivious_expansion, project_onto_manifold
from krepro.fairness.rates import GaussianConditionalModel, embedding_errors
from krepro.kernels import gram
from krepro.studies.projection.run import run_gamma
from krepro.studies.rates.run import run_setting

OUT = Path(__file__).with_name("projection_rates_regression.json")

PROJECTION = {
    "gammas": [0.0, 0.3, 1.0],
    "n_repetitions": 2,
    "n_estimation": 60,
    "n_points": 50,
    "n_test": 40,
    "n_reference": 120,
    "noise_variance": 0.1,
    "kernel_gamma": 1.0,
    "partition": {"low": -5.0, "high": 5.0, "cells_per_axis": 4},
    "n_grid": 41,
    "n_refine": 8,
    "classifier_C": 1.0,
    "beta_bins": 4,
}

RATES = {
    "n_repetitions": 2,
    "n_bootstrap": 200,
    "confidence": 0.95,
    "kernel_gamma": 1.0,
    "sd": 0.5,
    "mean_scale": 2.0,
    "finite": {"n_values": [2, 5], "sizes": [40, 80, 300]},
    "continuous": {
        "dims": [1, 2],
        "sizes": [40, 80, 300],
        "cells_scale": 1.0,
        "grid_points_per_axis": {"d1": 32, "d2": 8},
    },
    "cme": {
        "dims": [1, 2],
        "sizes": [40, 120],
        "gamma": 10.0,
        "log10_alpha_min": -5,
        "log10_alpha_max": -1,
        "grid_points_per_axis": {"d1": 16, "d2": 6},
    },
}
SETTINGS = ["finite_k2", "finite_k5", "continuous_d1", "continuous_d2"]


def _rbf(A, B=None):
    return gram(A, B, "rbf", gamma=1.0)


def _expansions():
    """Expansions the pre-image search is checked on: partition, CME, two-dimensional."""
    rng = np.random.default_rng(11)
    S_est, S = rng.uniform(-5, 5, 80), rng.uniform(-5, 5, 70)
    X_est = (0.6 * S_est + 0.4 * rng.uniform(-5, 5, 80))[:, None]
    X = (0.6 * S + 0.4 * rng.uniform(-5, 5, 70))[:, None]
    partition = PartitionConditionalMean(DyadicPartition(-5.0, 5.0, 4)).fit(S_est)
    cme = CMEConditionalMean(gamma=1.0, alpha=1e-2).fit(S_est)
    points2, atoms2 = rng.uniform(-2, 2, (30, 2)), rng.uniform(-2, 2, (25, 2))
    coefficients2 = rng.normal(scale=0.2, size=(30, 25))
    return {
        "partition": (oblivious_expansion(partition, X, S, X_est, _rbf), -5.0, 5.0, 41, 8),
        "cme": (oblivious_expansion(cme, X, S, X_est, _rbf), -5.0, 5.0, 41, 8),
        "two_dim": (
            FeatureExpansion(points2, atoms2, coefficients2, _rbf, point_weight=0.5),
            -2.0,
            2.0,
            9,
            6,
        ),
    }


def _embedding_errors():
    rng = np.random.default_rng(12)
    out = {}
    model = GaussianConditionalModel("continuous", d=2, kernel_gamma=1.0)
    S, X = model.sample(rng, 200)
    S[S[:, 0] < 0.34, 1] = np.minimum(S[S[:, 0] < 0.34, 1], 0.6)  # an empty cell
    query, _ = model.query_points(3, 2)
    partition = PartitionConditionalMean(DyadicPartition(0.0, 1.0, 3)).fit(S)
    out["partition_d2"] = embedding_errors(partition, X, query, model, block=7)
    cme = CMEConditionalMean(gamma=10.0, alpha=1e-3).fit(S)
    out["cme_d2"] = embedding_errors(cme, X, query, model, block=7)
    finite = GaussianConditionalModel("finite", n_values=3, kernel_gamma=0.5)
    S, X = finite.sample(rng, 150)
    estimator = PartitionConditionalMean(FiniteValuePartition(values=[0.0, 1.0, 2.0])).fit(S)
    out["partition_finite"] = embedding_errors(estimator, X, finite.query_points()[0], finite)
    return {key: value.tolist() for key, value in out.items()}


def _records(records):
    return [{k: v for k, v in r.items() if k != "cpu_seconds"} for r in records]


def main():
    with threadpool_limits(1):
        projection = {
            "settings": PROJECTION,
            "records": _records(
                [
                    r
                    for g in PROJECTION["gammas"]
                    for r in run_gamma(seed=7, gamma=g, settings=PROJECTION)
                ]
            ),
            "search": {},
        }
        for name, (expansion, low, high, n_grid, n_refine) in _expansions().items():
            W, distances = project_onto_manifold(
                expansion, low, high, n_grid=n_grid, n_refine=n_refine
            )
            projection["search"][name] = {"W": W.tolist(), "distances": distances.tolist()}
        rates = {
            "settings": RATES,
            "records": _records(
                [r for s in SETTINGS for r in run_setting(seed=7, setting=s, settings=RATES)]
            ),
            "embedding_errors": _embedding_errors(),
        }
    OUT.write_text(json.dumps({"projection": projection, "rates": rates}, indent=1) + "\n")


if __name__ == "__main__":
    main()
