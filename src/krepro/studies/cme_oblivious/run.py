r"""Oblivious features with continuous S: the paper's dyadic partition vs the CME estimator.

The ridge experiments of §7.2 (and a variant with a 2-d sensitive feature, where a partition
with the same number of cells is coarser per axis) are run with two estimators of
:math:`E[\varphi(X)\mid S]` inside the oblivious features:

* ``dyadic`` — the paper's plug-in estimator on a regular partition of the box;
* ``cme`` — the conditional mean embedding :math:`\sum_v\alpha_v(s)\varphi(x_v)`,
  :math:`\alpha(s) = (K_S + m\lambda I)^{-1}k_S(s)` (:class:`krepro.cme.CMEConditionalMean`).

For each we record the test MSE of ORR and M-ORR (KRR as reference) and how much the test
predictions still depend on S: the HSIC between predictions and S (Gaussian kernels, median
bandwidths; :func:`krepro.metrics.hsic_test`) with its permutation p-value, and the
correlation of the predictions with :math:`\frac1d\lVert S\rVert^2`.

KRR does not use S: per repetition its Gram matrices and its λ path (one eigendecomposition,
:func:`krepro.fairness.ridge.ridge_path`) are computed once and shared by both estimators;
M-ORR reuses that path with the oblivious cross products of each estimator. The numbers equal
those of :func:`krepro.studies.ridge.run.fit_and_score` run per estimator
(``tests/studies/cme_oblivious/test_run.py`` keeps that computation as the reference).

Job ``fit`` runs every γ and repetition of one (d, experiment) setting with every estimator of
:data:`krepro.studies.cme_oblivious.readings.ESTIMATORS`; :mod:`.tables` makes the run table
and the aggregate table of the summary job.
"""

from __future__ import annotations

import time

import numpy as np

from krepro.cme import CMEConditionalMean
from krepro.data.synthetic import ridge_splits
from krepro.fairness.oblivious import ObliviousKernel
from krepro.fairness.ridge import ridge_path, select_by_validation
from krepro.kernels import gram
from krepro.metrics import hsic_test
from krepro.records import write_records
from krepro.seeding import generator
from krepro.studies.cme_oblivious.readings import ESTIMATORS

__all__ = ["METHODS", "fit", "run_setting"]

#: The methods of §7.2, in the ridge study's order (``krepro.studies.ridge.run.METHODS``;
#: studies do not import each other, and the test suite checks that the two agree).
METHODS = ("KRR", "ORR", "M-ORR")


def _oblivious_kernel(estimator, *, kernel_gamma, partition, cme, sensitive_dim):
    if estimator == "dyadic":
        return ObliviousKernel(
            kernel="rbf",
            gamma=kernel_gamma,
            partition="dyadic",
            partition_bounds=(partition["low"], partition["high"]),
            cells_per_axis=partition["cells_per_axis"][sensitive_dim],
        )
    return ObliviousKernel(
        kernel="rbf",
        gamma=kernel_gamma,
        conditional_mean=CMEConditionalMean(kernel="rbf", gamma=cme["gamma"], alphas=cme["alphas"]),
    )


def _select(path, lambdas, validation_cross, validation, test_cross, test):
    """λ by validation MSE along ``path``; test MSE and predictions at that λ (as
    :func:`krepro.studies.ridge.run.fit_and_score`)."""
    best, validation_mse = select_by_validation(path, validation_cross, validation.y)
    prediction = test_cross @ path[:, best]
    return {
        "lambda": float(lambdas[best]),
        "validation_mse": float(validation_mse[best]),
        "test_mse": float(np.mean((prediction - test.y) ** 2)),
        "prediction": prediction,
    }


def _krr(train, validation, test, *, kernel_gamma, lambdas):
    """KRR's λ path and its selected fit; the path is M-ORR's too."""
    path = ridge_path(gram(train.X, kernel="rbf", gamma=kernel_gamma), train.y, lambdas)
    cross = [gram(s.X, train.X, kernel="rbf", gamma=kernel_gamma) for s in (validation, test)]
    return path, _select(path, lambdas, cross[0], validation, cross[1], test)


def _oblivious_fits(train, validation, test, oblivious, krr_path, lambdas):
    """ORR (its own path on the oblivious Gram) and M-ORR (KRR's path, oblivious cross
    products of the validation and test points) for one fitted ``oblivious`` kernel."""
    orr_path = ridge_path(oblivious.gram(train.X, train.S), train.y, lambdas)
    return {
        "ORR": _select(
            orr_path,
            lambdas,
            oblivious.gram(validation.X, validation.S, train.X, train.S),
            validation,
            oblivious.gram(test.X, test.S, train.X, train.S),
            test,
        ),
        "M-ORR": _select(
            krr_path,
            lambdas,
            oblivious.mixed_gram(validation.X, validation.S, train.X),
            validation,
            oblivious.mixed_gram(test.X, test.S, train.X),
            test,
        ),
    }


def run_setting(
    *,
    seed,
    sensitive_dim,
    experiment,
    gamma,
    sizes,
    n_repetitions,
    noise_variance,
    lambdas,
    kernel_gamma,
    partition,
    cme,
    n_permutations,
):
    """All repetitions of one (d, experiment, γ) setting, both estimators.

    Parameters
    ----------
    partition : dict
        ``low``, ``high`` and ``cells_per_axis`` keyed by the dimension d (e.g. ``{1: 16,
        2: 4}``: 16 cells in both cases).
    cme : dict
        ``gamma`` of the CME estimator's kernel on S and the grid ``alphas`` from which its λ
        is chosen by generalised cross-validation (per repetition).
    n_permutations : int
        Permutations of the HSIC independence test of predictions and S (p-value
        ``hsic_p_value`` per record).

    Returns
    -------
    records : list of dict
        One per (repetition, estimator, method); KRR does not use S and is recorded once.
    """
    records = []
    for repetition in range(n_repetitions):
        rng = generator(seed, "cme_oblivious", sensitive_dim, experiment, gamma, repetition)
        train, estimation, validation, test = ridge_splits(
            rng,
            sizes,
            gamma,
            experiment,
            noise_variance,
            partition["low"],
            partition["high"],
            sensitive_dim=sensitive_dim,
        )
        s_signal = test.S**2 if sensitive_dim == 1 else np.mean(test.S**2, axis=1)
        start = time.process_time()
        krr_path, krr = _krr(train, validation, test, kernel_gamma=kernel_gamma, lambdas=lambdas)
        krr_seconds = time.process_time() - start
        for estimator in ESTIMATORS:
            start = time.process_time()
            oblivious = _oblivious_kernel(
                estimator,
                kernel_gamma=kernel_gamma,
                partition=partition,
                cme=cme,
                sensitive_dim=sensitive_dim,
            ).fit(estimation.X, sensitive_features=estimation.S)
            results = {
                "KRR": krr,
                **_oblivious_fits(train, validation, test, oblivious, krr_path, lambdas),
            }
            # KRR's share counts in every estimator's time, as when each refitted it
            cpu_seconds = time.process_time() - start + krr_seconds
            for method in METHODS:
                if method == "KRR" and estimator != ESTIMATORS[0]:
                    continue
                prediction = results[method].pop("prediction")
                statistic, p_value = hsic_test(
                    prediction,
                    test.S,
                    n_permutations=n_permutations,
                    random_state=generator(
                        seed, "cme_oblivious", "hsic", sensitive_dim, experiment, gamma,
                        repetition, estimator, method,
                    ),
                )  # fmt: skip
                records.append(
                    {
                        "study": "cme_oblivious",
                        "sensitive_dim": int(sensitive_dim),
                        "experiment": int(experiment),
                        "gamma": float(gamma),
                        "repetition": repetition,
                        "estimator": "none" if method == "KRR" else estimator,
                        "method": method,
                        "seed": int(seed),
                        **{k: v for k, v in results[method].items() if k != "prediction"},
                        "hsic": statistic,
                        "hsic_p_value": p_value,
                        "corr_s2": float(np.corrcoef(prediction, s_signal)[0, 1]),
                        "cpu_seconds": cpu_seconds,
                    }
                )
    return records


def fit(job, log):
    """Job ``cme_oblivious_fit``: every γ and repetition of one (d, experiment) setting, both
    estimators → run records."""
    settings, dim = job.params.settings, int(job.wildcards.dim)
    partition = settings["partition"]
    records = []
    for gamma in settings["gammas"]:
        records += run_setting(
            seed=job.params.seed,
            sensitive_dim=dim,
            experiment=int(job.wildcards.experiment),
            gamma=float(gamma),
            sizes={
                key: settings[key] for key in ("n_train", "n_estimation", "n_validation", "n_test")
            },
            n_repetitions=settings["n_repetitions"],
            noise_variance=settings["noise_variance"],
            lambdas=2.0 ** np.arange(settings["log2_lambda_min"], settings["log2_lambda_max"] + 1),
            kernel_gamma=settings["kernel_gamma"],
            partition={
                "low": partition["low"],
                "high": partition["high"],
                "cells_per_axis": {
                    1: partition["cells_per_axis_1d"],
                    2: partition["cells_per_axis_2d"],
                },
            },
            n_permutations=settings["hsic_permutations"],
            cme={
                "gamma": settings["cme"]["gamma"],
                "alphas": 10.0
                ** np.arange(
                    settings["cme"]["log10_alpha_min"], settings["cme"]["log10_alpha_max"] + 1
                ),
            },
        )
    log.info("%d records", len(records))
    write_records(job.output[0], records, rule=job.rule, wildcards=dict(job.wildcards))
