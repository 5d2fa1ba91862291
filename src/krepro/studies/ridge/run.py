r"""Ridge experiments of the oblivious-data paper (§7.2, Fig. 4): KRR vs ORR vs M-ORR.

For each (experiment, γ, repetition): draw 500 training + 500 estimation points, 100
validation and 100 test points (:func:`krepro.data.synthetic.ridge_splits`); estimate the
conditional means on 16 dyadic cells of [−5, 5]; select λ from the grid on the validation MSE
separately for every method (M-ORR by the validation MSE of its own, oblivious, predictions,
as the authors do) and record the test MSE.

The fits use :func:`krepro.fairness.ridge.ridge_path` (one eigendecomposition for the whole λ grid)
rather than refitting :class:`krepro.fairness.ridge.ObliviousRidge` per λ; a test proves that at the
selected λ its predictions equal ``ObliviousRidge`` (ORR, M-ORR) and ``KernelRidge`` (KRR) to
1e-8 (``tests/fairness/test_ridge.py``).
"""

from __future__ import annotations

import time

import numpy as np

from krepro.data.synthetic import ridge_splits
from krepro.fairness.oblivious import ObliviousKernel
from krepro.fairness.ridge import ridge_path, select_by_validation
from krepro.kernels import gram
from krepro.records import write_records
from krepro.seeding import generator

__all__ = ["METHODS", "fit", "fit_and_score", "run_setting"]

METHODS = ("KRR", "ORR", "M-ORR")


def fit_and_score(train, validation, test, oblivious, *, kernel_gamma, lambdas):
    """Test MSE, selected λ and test predictions of KRR, ORR and M-ORR on one draw.

    ``oblivious`` is an :class:`~krepro.fairness.oblivious.ObliviousKernel` already fitted on the
    estimation sample (any conditional-mean estimator). Each method selects its own λ by
    validation MSE; M-ORR by the MSE of its own (oblivious) validation predictions.
    """
    K = gram(train.X, kernel="rbf", gamma=kernel_gamma)
    O = oblivious.gram(train.X, train.S)
    krr_path = ridge_path(K, train.y, lambdas)
    orr_path = ridge_path(O, train.y, lambdas)
    cross = {
        "KRR": lambda s: gram(s.X, train.X, kernel="rbf", gamma=kernel_gamma),
        "ORR": lambda s: oblivious.gram(s.X, s.S, train.X, train.S),
        "M-ORR": lambda s: oblivious.mixed_gram(s.X, s.S, train.X),
    }
    paths = {"KRR": krr_path, "ORR": orr_path, "M-ORR": krr_path}
    results = {}
    for method in METHODS:
        best, validation_mse = select_by_validation(
            paths[method], cross[method](validation), validation.y
        )
        prediction = cross[method](test) @ paths[method][:, best]
        results[method] = {
            "lambda": float(lambdas[best]),
            "validation_mse": float(validation_mse[best]),
            "test_mse": float(np.mean((prediction - test.y) ** 2)),
            "prediction": prediction,
        }
    return results


def _fit_one(train, estimation, validation, test, *, kernel_gamma, lambdas, partition):
    """Test MSE and selected λ of KRR, ORR and M-ORR with the paper's dyadic partition."""
    oblivious = ObliviousKernel(
        kernel="rbf",
        gamma=kernel_gamma,
        partition="dyadic",
        partition_bounds=(partition["low"], partition["high"]),
        cells_per_axis=partition["cells_per_axis"],
    ).fit(estimation.X, sensitive_features=estimation.S)
    results = fit_and_score(
        train, validation, test, oblivious, kernel_gamma=kernel_gamma, lambdas=lambdas
    )
    for metrics in results.values():
        del metrics["prediction"]
    return results


def run_setting(
    *,
    seed,
    experiment,
    gamma,
    variant,
    variant_params,
    sizes,
    n_repetitions,
    kernel_gamma,
    partition,
):
    """Run all repetitions of one (experiment, variant, γ) setting.

    Random streams are keyed by (``"ridge"``, experiment, γ, repetition) and *not* by the
    variant, so the two protocol variants see the same S, U and standard-normal noise draws
    (common random numbers make their comparison sharper).

    Returns
    -------
    records : list of dict
        One record per (repetition, method).
    """
    lambdas = 2.0 ** np.arange(
        variant_params["log2_lambda_min"], variant_params["log2_lambda_max"] + 1
    )
    records = []
    for repetition in range(n_repetitions):
        rng = generator(seed, "ridge", experiment, gamma, repetition)
        start = time.process_time()
        samples = ridge_splits(
            rng,
            sizes,
            gamma,
            experiment,
            variant_params["noise_variance"],
            partition["low"],
            partition["high"],
        )
        results = _fit_one(
            *samples, kernel_gamma=kernel_gamma, lambdas=lambdas, partition=partition
        )
        cpu_seconds = time.process_time() - start
        for method, metrics in results.items():
            records.append(
                {
                    "study": "ridge",
                    "variant": variant,
                    "experiment": int(experiment),
                    "gamma": float(gamma),
                    "repetition": repetition,
                    "method": method,
                    "seed": int(seed),
                    "seed_keys": ["ridge", int(experiment), float(gamma), repetition],
                    "params": {
                        "kernel": "rbf",
                        "kernel_gamma": kernel_gamma,
                        "lambdas": lambdas.tolist(),
                        "noise_variance": variant_params["noise_variance"],
                        **partition,
                    },
                    "sizes": dict(sizes),
                    **metrics,
                    "cpu_seconds_all_methods": cpu_seconds,
                }
            )
    return records


def fit(job, log):
    """Job ``ridge_fit``: every γ and repetition of one (variant, experiment) → run records."""
    wildcards, params = job.wildcards, job.params
    records = []
    for gamma in params.gammas:
        records += run_setting(
            seed=params.seed,
            experiment=int(wildcards.experiment),
            gamma=float(gamma),
            variant=wildcards.variant,
            variant_params=params.variant_params,
            sizes=params.sizes,
            n_repetitions=params.n_repetitions,
            kernel_gamma=params.kernel_gamma,
            partition=params.partition,
        )
    log.info("%d records", len(records))
    write_records(job.output[0], records, rule=job.rule, wildcards=dict(wildcards))
