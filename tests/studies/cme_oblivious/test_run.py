"""cme_oblivious study runs: a small run, and the run setting against the per-estimator
refit it replaced."""

import numpy as np
import pytest

from krepro.data.synthetic import ridge_splits
from krepro.metrics import _hsic_grams
from krepro.seeding import generator
from krepro.studies.cme_oblivious.readings import ESTIMATORS
from krepro.studies.cme_oblivious.run import METHODS, _oblivious_kernel, run_setting
from krepro.studies.cme_oblivious.tables import aggregate, tidy
from krepro.studies.ridge.run import METHODS as RIDGE_METHODS
from krepro.studies.ridge.run import fit_and_score


def _small_run(sensitive_dim, n_estimation):
    records = run_setting(
        seed=1,
        sensitive_dim=sensitive_dim,
        experiment=1,
        gamma=0.0,
        sizes={"n_train": 60, "n_estimation": n_estimation, "n_validation": 30, "n_test": 60},
        n_repetitions=2,
        noise_variance=0.1,
        lambdas=2.0 ** np.arange(-3, 3),
        kernel_gamma=1.0,
        partition={"low": -5.0, "high": 5.0, "cells_per_axis": {1: 8, 2: 3}},
        cme={"gamma": 1.0, "alphas": 10.0 ** np.arange(-5, 0)},
        n_permutations=49,
    )
    return aggregate(tidy(records))


def test_small_run_has_both_estimators_and_krr_once():
    table = _small_run(sensitive_dim=2, n_estimation=60)
    pairs = set(zip(table["estimator"], table["method"], strict=True))
    assert pairs == {
        ("none", "KRR"),
        ("dyadic", "ORR"),
        ("dyadic", "M-ORR"),
        ("cme", "ORR"),
        ("cme", "M-ORR"),
    }
    assert (table["n_reps"] == 2).all()


def test_oblivious_predictions_lose_the_dependence_on_s():
    table = _small_run(sensitive_dim=1, n_estimation=300)
    krr = table[table["method"] == "KRR"].iloc[0]
    oblivious = table[table["method"] == "ORR"]
    # γ = 0, d = 1: X = S and Y = S² + ε, so KRR predicts ≈ S² (|corr| ≈ 1); the oblivious
    # predictions keep only within-cell / estimation-error dependence.
    assert krr["abs_corr_s2_mean"] > 0.95
    assert (oblivious["abs_corr_s2_mean"] < 0.6).all()
    assert (oblivious["hsic_mean"] < krr["hsic_mean"]).all()


# ------------------------------------------------------ equivalence with the old computation


def _old_hsic_test(a, b, *, n_permutations, random_state):
    """hsic_test before it gathered one permutation at a time: broadcast fancy indexing of
    32 permutations at once and an einsum (kept as the reference)."""
    K_centred, L = _hsic_grams(a, b)
    n = len(L)
    statistic = float(np.sum(K_centred * L) / n**2)
    rng = np.random.default_rng(random_state)
    permutations = rng.permuted(np.tile(np.arange(n), (n_permutations, 1)), axis=1)
    exceed = 0
    for start in range(0, n_permutations, 32):
        block = permutations[start : start + 32]
        permuted = L[block[:, :, None], block[:, None, :]]
        values = np.einsum("ij,pij->p", K_centred, permuted) / n**2
        exceed += int(np.count_nonzero(values >= statistic * (1 - 1e-12)))
    return statistic, (1 + exceed) / (1 + n_permutations)


def _old_run_setting(
    *, seed, sensitive_dim, experiment, gamma, sizes, n_repetitions, noise_variance, lambdas,
    kernel_gamma, partition, cme, n_permutations,
):  # fmt: skip
    """run_setting as it was: ``fit_and_score`` (KRR refitted) per estimator."""
    records = []
    for repetition in range(n_repetitions):
        rng = generator(seed, "cme_oblivious", sensitive_dim, experiment, gamma, repetition)
        train, estimation, validation, test = ridge_splits(
            rng, sizes, gamma, experiment, noise_variance, partition["low"], partition["high"],
            sensitive_dim=sensitive_dim,
        )  # fmt: skip
        s_signal = test.S**2 if sensitive_dim == 1 else np.mean(test.S**2, axis=1)
        for estimator in ESTIMATORS:
            oblivious = _oblivious_kernel(
                estimator, kernel_gamma=kernel_gamma, partition=partition, cme=cme,
                sensitive_dim=sensitive_dim,
            ).fit(estimation.X, sensitive_features=estimation.S)  # fmt: skip
            results = fit_and_score(
                train, validation, test, oblivious, kernel_gamma=kernel_gamma, lambdas=lambdas
            )
            for method in METHODS:
                if method == "KRR" and estimator != ESTIMATORS[0]:
                    continue
                prediction = results[method].pop("prediction")
                statistic, p_value = _old_hsic_test(
                    prediction, test.S, n_permutations=n_permutations,
                    random_state=generator(
                        seed, "cme_oblivious", "hsic", sensitive_dim, experiment, gamma,
                        repetition, estimator, method,
                    ),
                )  # fmt: skip
                records.append(
                    {
                        "estimator": "none" if method == "KRR" else estimator,
                        "method": method,
                        **results[method],
                        "hsic": statistic,
                        "hsic_p_value": p_value,
                        "corr_s2": float(np.corrcoef(prediction, s_signal)[0, 1]),
                    }
                )
    return records


def test_the_methods_are_the_ridge_studys():
    """The study keeps its own copy of §7.2's methods (a study imports no other study)."""
    assert METHODS == RIDGE_METHODS


@pytest.mark.parametrize(("sensitive_dim", "experiment", "gamma"), [(1, 2, 0.25), (2, 1, 0.75)])
def test_run_setting_equals_the_per_estimator_refit(sensitive_dim, experiment, gamma):
    settings = {
        "seed": 3,
        "sensitive_dim": sensitive_dim,
        "experiment": experiment,
        "gamma": gamma,
        "sizes": {"n_train": 80, "n_estimation": 90, "n_validation": 30, "n_test": 50},
        "n_repetitions": 2,
        "noise_variance": 0.1,
        "lambdas": 2.0 ** np.arange(-5, 6),
        "kernel_gamma": 1.0,
        "partition": {"low": -5.0, "high": 5.0, "cells_per_axis": {1: 16, 2: 4}},
        "cme": {"gamma": 1.0, "alphas": 10.0 ** np.arange(-7, 0)},
        "n_permutations": 99,
    }
    new, old = run_setting(**settings), _old_run_setting(**settings)
    assert len(new) == len(old) == 2 * 5
    for record, reference in zip(new, old, strict=True):
        for key, value in reference.items():
            if isinstance(value, float):
                assert record[key] == pytest.approx(value, rel=1e-10, abs=1e-12), key
            else:
                assert record[key] == value, key
    # The p-values are not all 1/(1 + permutations) or 1: the comparison is informative.
    assert len({r["hsic_p_value"] for r in new}) > 2
