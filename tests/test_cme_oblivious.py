"""CME estimator inside the oblivious features: GCV selection, dependence measure, small run."""

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import linalg

from krepro.cme.embedding import CMEConditionalMean, _range_eigenpairs
from krepro.data.synthetic import ridge_sample, ridge_splits
from krepro.fairness.oblivious import ObliviousKernel
from krepro.kernels import gram
from krepro.metrics import _hsic_grams, hsic
from krepro.seeding import generator
from krepro.studies.cme_oblivious.figures import plot_cme_oblivious
from krepro.studies.cme_oblivious.report import cme_oblivious_section, cme_oblivious_verdicts
from krepro.studies.cme_oblivious.run import (
    ESTIMATORS,
    METHODS,
    _oblivious_kernel,
    aggregate,
    run_setting,
    tidy,
)
from krepro.studies.ridge.run import METHODS as RIDGE_METHODS
from krepro.studies.ridge.run import fit_and_score


def test_gcv_scores_match_the_explicit_hat_matrix_formula():
    rng = np.random.default_rng(0)
    m = 50
    S = rng.uniform(-1, 1, m)
    X = np.sin(3 * S)[:, None] + 0.3 * rng.normal(size=(m, 1))
    K_X = gram(X, kernel="rbf", gamma=1.0)
    grid = [1e-4, 1e-3, 1e-2, 1e-1]
    estimator = CMEConditionalMean(gamma=2.0, alphas=grid).fit(S, output_gram=K_X)
    K_S = gram(S, kernel="rbf", gamma=2.0)
    for lam, score in zip(grid, estimator.gcv_scores_, strict=True):
        residual = np.eye(m) - K_S @ np.linalg.inv(K_S + m * lam * np.eye(m))
        brute = m * np.trace(residual @ K_X @ residual.T) / np.trace(residual) ** 2
        assert score == pytest.approx(brute, rel=1e-8)
    assert estimator.alpha_ == grid[int(np.argmin(estimator.gcv_scores_))]
    with pytest.raises(ValueError, match="output_gram"):
        CMEConditionalMean(alphas=grid).fit(S)


def _eigh_gcv_scores(K_S, K_X, grid):
    """GCV from the full eigendecomposition (the selection before the low-rank range)."""
    m = len(K_S)
    w, V = linalg.eigh(K_S)
    w = np.clip(w, 0.0, None)
    rotated = np.einsum("ij,ij->j", V, K_X @ V)
    shrink = m * grid[:, None] / (w[None, :] + m * grid[:, None])
    return m * ((shrink**2) @ rotated) / shrink.sum(axis=1) ** 2


@pytest.mark.parametrize(("d", "gamma", "m"), [(1, 10.0, 400), (2, 10.0, 800), (1, 1e4, 300)])
def test_gcv_from_the_numerical_range_matches_the_full_eigendecomposition(d, gamma, m):
    # A smooth kernel on [0, 1]^d has a numerical rank far below m (the pivoted-Cholesky
    # path); a very narrow one is nearly the identity (full rank: the eigh path). Either way
    # the scores equal those of all m eigenpairs to well within the rounding of eigh's
    # smallest eigenvalues (~1e-13 absolute, relative to mλ ≥ 3e-4 here).
    rng = np.random.default_rng(d)
    S = rng.uniform(size=(m, d))
    X = S.mean(axis=1, keepdims=True) + 0.5 * rng.normal(size=(m, 1))
    K_S, K_X = gram(S, kernel="rbf", gamma=gamma), gram(X, kernel="rbf", gamma=1.0)
    w, V = _range_eigenpairs(K_S)
    assert (len(w) < m // 2) == (gamma == 10.0)
    np.testing.assert_allclose(V.T @ V, np.eye(len(w)), atol=1e-12)
    np.testing.assert_allclose((V * w) @ V.T, K_S, atol=1e-11)
    grid = 10.0 ** np.arange(-6.0, 0.0)
    estimator = CMEConditionalMean(gamma=gamma, alphas=grid).fit(S, output_gram=K_X)
    np.testing.assert_allclose(estimator.gcv_scores_, _eigh_gcv_scores(K_S, K_X, grid), rtol=1e-8)


def test_oblivious_kernel_passes_its_gram_to_the_cme_selection():
    rng = np.random.default_rng(1)
    S = rng.uniform(-5, 5, (80, 2))
    X = S.sum(axis=1, keepdims=True) / np.sqrt(2) + 0.1 * rng.normal(size=(80, 1))
    estimator = CMEConditionalMean(gamma=0.5, alphas=10.0 ** np.arange(-6, 0))
    ok = ObliviousKernel(gamma=1.0, conditional_mean=estimator).fit(X, sensitive_features=S)
    assert ok.conditional_mean_.alpha_ in estimator.alphas
    assert estimator.__dict__.get("alpha_") is None  # the given estimator is cloned
    O = ok.gram(X[:10], S[:10])
    assert np.array_equal(O, O.T) and np.linalg.eigvalsh(O).min() > -1e-10


def test_hsic_separates_dependence_from_independence():
    rng = np.random.default_rng(2)
    a = rng.normal(size=300)
    # A noiseless nonlinear function of a is strongly dependent; fresh noise is not. The
    # biased estimator of an independent pair is O(1/n) ≈ 0.003 here.
    assert hsic(a, a**2) > 10 * hsic(a, rng.normal(size=300))


def test_two_dimensional_sensitive_model():
    sample = ridge_sample(
        generator(0, "t"), 20, gamma=0.0, experiment=2, noise_variance=0.0, sensitive_dim=2
    )
    assert sample.S.shape == (20, 2)
    s_bar = sample.S.sum(axis=1) / np.sqrt(2)
    np.testing.assert_allclose(sample.X[:, 0], s_bar)
    np.testing.assert_allclose(sample.y, s_bar**2 + np.mean(sample.S**2, axis=1))


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


# --------------------------------------------------------------------------- verdicts

REFERENCE = yaml.safe_load(open("config/paper_reference.yaml", encoding="utf-8"))["cme"][
    "oblivious_features"
]


def synthetic_runs(n_reps, *, ratio=None, krr_p=0.001, dims=(1, 2), noise=0.05):
    """Per-run table: KRR with HSIC ≈ 1 (p-value krr_p); ORR and M-ORR with HSIC ≈ ratio ×
    KRR's (``ratio`` maps method to its ratio, default 0.1 for both), multiplicative noise of
    relative sd ``noise``."""
    ratio = {"ORR": 0.1, "M-ORR": 0.1} | (ratio or {})
    rng = np.random.default_rng(0)
    rows = []
    for dim in dims:
        for gamma in (0.0, 0.5):
            for rep in range(n_reps):
                krr = 1.0 + 0.05 * rng.normal()
                rows.append((dim, 1, gamma, rep, "none", "KRR", krr, krr_p))
                for estimator in ("dyadic", "cme"):
                    for method, r in ratio.items():
                        value = r * krr * np.exp(noise * rng.normal())
                        rows.append((dim, 1, gamma, rep, estimator, method, value, 0.3))
    columns = ["sensitive_dim", "experiment", "gamma", "repetition", "estimator", "method"]
    return pd.DataFrame(rows, columns=[*columns, "hsic", "hsic_p_value"])


def verdicts(runs):
    records = cme_oblivious_verdicts(runs, REFERENCE, "test")
    return {r.protocol: r for r in records}


def test_dependence_reduced_has_one_record_per_reading_and_one_primary():
    records = verdicts(synthetic_runs(20))
    assert set(records) == {"dyadic, d = 1", "dyadic, d = 2", "cme, d = 1", "cme, d = 2"}
    assert [p for p, r in records.items() if r.primary] == ["dyadic, d = 1"]
    assert {r.verdict for r in records.values()} == {"reproduced"}
    assert all(r.n_repetitions == 20 and r.paper == "oblivious" for r in records.values())


def test_dependence_reduced_is_a_holm_family_of_superiority_tests():
    record = verdicts(synthetic_runs(20))["dyadic, d = 1"]
    assert record.test == "superiority" and record.family_size == 4  # 2 γ × 2 methods
    assert 0.0 <= record.stability <= 1.0 and record.ci_low > 0
    assert "min_repetitions" not in REFERENCE


def test_dependence_reduced_rules():
    # One method leaves the dependence as it is in every setting: the claim is contradicted
    # (a halving is excluded), never "partly reproduced".
    one_method = verdicts(synthetic_runs(20, ratio={"M-ORR": 1.0}))["dyadic, d = 1"]
    assert one_method.verdict == "not reproduced"
    assert "γ = 0, M-ORR: ratio 1.0" in one_method.detail and "ORR: ratio 0.1" in one_method.detail
    none = verdicts(synthetic_runs(20, ratio={"ORR": 0.9, "M-ORR": 1.0}))
    assert none["dyadic, d = 1"].verdict == "not reproduced"
    # KRR never depends on S: nothing to reduce.
    assert verdicts(synthetic_runs(20, krr_p=0.5))["dyadic, d = 1"].verdict == "inconclusive"
    # A reduction too noisy to establish or exclude: inconclusive, with the repetitions needed.
    noisy = verdicts(synthetic_runs(3, ratio={"ORR": 0.7, "M-ORR": 0.7}, noise=0.8))
    assert noisy["dyadic, d = 1"].verdict == "inconclusive"
    assert "would need about" in noisy["dyadic, d = 1"].detail


def test_section_and_figure_from_a_small_run(tmp_path):
    records = run_setting(
        seed=1,
        sensitive_dim=1,
        experiment=1,
        gamma=0.0,
        sizes={"n_train": 60, "n_estimation": 120, "n_validation": 30, "n_test": 60},
        n_repetitions=2,
        noise_variance=0.1,
        lambdas=2.0 ** np.arange(-3, 3),
        kernel_gamma=1.0,
        partition={"low": -5.0, "high": 5.0, "cells_per_axis": {1: 8, 2: 3}},
        cme={"gamma": 1.0, "alphas": 10.0 ** np.arange(-5, 0)},
        n_permutations=19,
    )
    runs = tidy(records)
    assert runs["hsic_p_value"].between(1 / 20, 1).all()
    table = aggregate(runs)
    section = cme_oblivious_section(table, runs, REFERENCE, scale="test")
    assert section.experiment == "cme_oblivious" and len(section.verdicts) == 2
    plot_cme_oblivious(table, tmp_path / "fig.png")
    assert (tmp_path / "fig.png").stat().st_size > 10_000


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


def test_cme_coefficients_are_computed_once_per_distinct_s(monkeypatch):
    """gram/mixed_gram reuse the CME weights of an S seen before (content-keyed cache)."""
    rng = np.random.default_rng(4)
    X_est, S_est = rng.normal(size=(80, 1)), rng.normal(size=80)
    X, S = rng.normal(size=(30, 1)), rng.normal(size=30)
    X_test, S_test = rng.normal(size=(20, 1)), rng.normal(size=20)

    def kernel():
        cme = CMEConditionalMean(kernel="rbf", gamma=0.5, alpha=1e-2)
        return ObliviousKernel(kernel="rbf", gamma=1.0, conditional_mean=cme).fit(
            X_est, sensitive_features=S_est
        )

    fresh = [kernel() for _ in range(3)]
    expected = [
        fresh[0].gram(X, S),
        fresh[1].gram(X_test, S_test, X, S),
        fresh[2].mixed_gram(X_test, S_test, X),
    ]
    cached = kernel()
    calls = []
    membership = cached.conditional_mean_.membership
    monkeypatch.setattr(
        cached.conditional_mean_, "membership", lambda s: calls.append(len(s)) or membership(s)
    )
    got = [
        cached.gram(X, S),
        cached.gram(X_test, S_test, X, S),
        cached.mixed_gram(X_test, S_test, X),
        cached.gram(X, S + 0.0),  # an equal copy hits the cache too
    ]
    assert sorted(calls) == [20, 30]  # one CME solve per distinct S
    for a, b in zip(got, [*expected, expected[0]], strict=True):
        np.testing.assert_array_equal(a, b)
    cached.fit(X_est, sensitive_features=S_est)
    assert len(cached.coefficients_cache_) == 0  # emptied by fit
