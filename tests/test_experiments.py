"""Small real runs of the experiment modules: ground truth and regression checks."""

import numpy as np
import pytest

from krepro.data.synthetic import ridge_best_constant_mse, ridge_sample, uniform_moment
from krepro.seeding import generator
from krepro.studies.illustration.run import dependence_summary
from krepro.studies.illustration.run import run as run_illustration
from krepro.studies.ridge.run import aggregate, run_setting, tidy

SIZES = {"n_train": 80, "n_estimation": 80, "n_validation": 40, "n_test": 40}
PARTITION = {"low": -5.0, "high": 5.0, "cells_per_axis": 4}
PAPER_TEXT = {"noise_variance": 0.1, "log2_lambda_min": -5, "log2_lambda_max": 5}


def _run(gamma, experiment=1, n_repetitions=3, variant_params=PAPER_TEXT, seed=3):
    return run_setting(
        seed=seed,
        experiment=experiment,
        gamma=gamma,
        variant="paper_text",
        variant_params=variant_params,
        sizes=SIZES,
        n_repetitions=n_repetitions,
        kernel_gamma=1.0,
        partition=PARTITION,
    )


def test_best_constant_closed_form_matches_monte_carlo():
    # Var(S²) for S ~ U[-5, 5] is 125 − (25/3)² = 500/9; check the formula and a simulation.
    assert uniform_moment(2, -5.0, 5.0) == pytest.approx(25 / 3)
    assert ridge_best_constant_mse(1, 0.1) == pytest.approx(500 / 9 + 0.1)
    assert ridge_best_constant_mse(2, 0.1) == pytest.approx(2000 / 9 + 0.1)
    sample = ridge_sample(generator(0, "mc"), 400_000, gamma=0.0, experiment=2, noise_variance=0.1)
    # Monte-Carlo sd of Var(Y) with 4e5 draws is ≈ 0.4 here; 1.5 is ~4 sd.
    assert np.var(sample.y) == pytest.approx(ridge_best_constant_mse(2, 0.1), abs=1.5)


def test_ridge_sample_follows_the_data_model():
    sample = ridge_sample(generator(1, "t"), 50, gamma=0.3, experiment=2, noise_variance=0.0)
    # Without noise Y = X² + S² exactly, and X = γU + (1 − γ)S stays inside [-5, 5].
    np.testing.assert_allclose(sample.y, sample.X[:, 0] ** 2 + sample.S**2)
    assert np.all(np.abs(sample.X) <= 5.0)
    with pytest.raises(ValueError, match="gamma"):
        ridge_sample(generator(1, "t"), 5, gamma=1.5, experiment=1, noise_variance=0.1)
    with pytest.raises(ValueError, match="experiment"):
        ridge_sample(generator(1, "t"), 5, gamma=0.5, experiment=3, noise_variance=0.1)


def test_ridge_setting_records_and_ground_truth_ordering():
    records = _run(gamma=0.0)
    assert len(records) == 3 * 3
    runs = tidy(records)
    table = aggregate(runs)
    assert set(table["method"]) == {"KRR", "ORR", "M-ORR"}
    assert (table["n_reps"] == 3).all()
    means = table.set_index("method")["mse_mean"]
    # γ = 0: X = S, so KRR fits Y = S² + ε almost perfectly while oblivious methods are
    # restricted to (nearly) S-independent predictions: their MSE is of order Var(S²) ≈ 56.
    assert means["KRR"] < 1.0
    assert means["ORR"] > 20.0 and means["M-ORR"] > 20.0
    lambdas = set(runs["lambda"])
    assert lambdas <= {2.0**k for k in range(-5, 6)}


def test_ridge_setting_is_reproducible_and_keyed_by_seed():
    first, second = _run(gamma=0.5), _run(gamma=0.5)
    assert [r["test_mse"] for r in first] == [r["test_mse"] for r in second]
    other = _run(gamma=0.5, seed=4)
    assert [r["test_mse"] for r in first] != [r["test_mse"] for r in other]


def test_variants_share_draws_through_common_random_numbers():
    # Streams are keyed by (experiment, γ, repetition), not by the variant: two variants see
    # the same S and U, and noise that differs only by its scale.
    from krepro.data.synthetic import ridge_splits

    draws = {
        variance: ridge_splits(generator(3, "ridge", 1, 0.5, 0), SIZES, 0.5, 1, variance, -5.0, 5.0)
        for variance in (0.1, 0.01)
    }
    for part_a, part_b in zip(draws[0.1], draws[0.01], strict=True):
        np.testing.assert_array_equal(part_a.S, part_b.S)
        np.testing.assert_array_equal(part_a.X, part_b.X)
        noise_a, noise_b = part_a.y - part_a.X[:, 0] ** 2, part_b.y - part_b.X[:, 0] ** 2
        np.testing.assert_allclose(noise_a, np.sqrt(10.0) * noise_b, atol=1e-12)
    renamed = run_setting(
        seed=3,
        experiment=1,
        gamma=0.5,
        variant="another_name",
        variant_params=PAPER_TEXT,
        sizes=SIZES,
        n_repetitions=2,
        kernel_gamma=1.0,
        partition=PARTITION,
    )
    original = _run(gamma=0.5, n_repetitions=2)
    assert [r["test_mse"] for r in renamed] == [r["test_mse"] for r in original]


def test_illustration_oblivious_features_lose_the_dependence_on_s():
    frame = run_illustration(seed=0, n_points=2000, n_estimation=20000, cells_per_axis=32)
    summary = dependence_summary(frame, seed=0, n_permutations=20).set_index(
        ["setting", "features"]
    )
    for setting in ("quadratic", "sine"):
        raw = summary.loc[(setting, "raw")]
        oblivious = summary.loc[(setting, "oblivious")]
        # Population ⟨h, Z⟩ is uncorrelated with S; with 32 cells and 2000 points the sample
        # correlation's sd is ≈ 0.02, so 0.1 leaves room for the within-cell remainder.
        assert abs(oblivious["corr_with_s"]) < 0.1
        assert oblivious["variance_explained_by_s"] < 0.25 * raw["variance_explained_by_s"]
        assert raw["variance_explained_by_s"] > 0.3
        # Raw h(X) depends on S strongly: no permutation reaches its distance correlation.
        assert raw["dcor_p_value"] == 1 / 21
        assert oblivious["distance_correlation"] < raw["distance_correlation"]
