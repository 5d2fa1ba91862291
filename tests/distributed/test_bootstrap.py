"""Bootstrap counts, deviations and bands (krepro.distributed.bootstrap) against naive
oracles."""

from __future__ import annotations

import numpy as np
import pytest

from krepro.distributed import (
    DistributedKernelRidge,
    bootstrap_band,
    bootstrap_counts,
    bootstrap_deviations,
)

# --------------------------------------------------------------------------- bootstrap


@pytest.mark.parametrize("n_partitions", [1, 3, 64, 100, 4096])
def test_bootstrap_counts_are_multinomial(n_partitions):
    counts = bootstrap_counts(np.random.default_rng(5), 400, n_partitions)
    assert counts.shape == (400, n_partitions)
    assert np.all(counts.sum(axis=1) == n_partitions) and counts.min() >= 0
    # Multinomial(P, 1/P): mean 1, variance 1 - 1/P per cell.
    if n_partitions > 1:
        assert abs(counts.mean() - 1.0) < 1e-12
        assert abs(counts.var() - (1 - 1 / n_partitions)) < 0.1


@pytest.mark.parametrize("n_partitions", [4, 64, 4096])
@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_counts_from_raw_words_equal_the_counted_draws(n_partitions, dtype):
    # The fused path (power of two, 4 | P) must count exactly the draws of
    # _draw_partitions, whatever the block the resamples are drawn in.
    from krepro.distributed.bootstrap import _count, _draw_partitions, _raw_counts

    draws = _draw_partitions(np.random.default_rng(11), 300, n_partitions)
    expected = _count(draws, n_partitions, dtype)
    rng = np.random.default_rng(11)
    fused = np.vstack([_raw_counts(rng, rows, n_partitions, dtype) for rows in (1, 99, 200)])
    assert fused.dtype == expected.dtype
    np.testing.assert_array_equal(fused, expected)
    np.testing.assert_array_equal(
        bootstrap_counts(np.random.default_rng(11), 300, n_partitions, dtype), expected
    )


def test_bootstrap_deviations_are_resampled_means():
    rng = np.random.default_rng(6)
    local = rng.normal(size=(37, 5))
    deviations = bootstrap_deviations(local, 300, random_state=7)
    # Same stream, drawn the way bootstrap_deviations draws it (chunks of 1000 rows).
    counts = bootstrap_counts(np.random.default_rng(7), 300, 37)
    expected = (counts @ local / 37 - local.mean(axis=0)).T
    np.testing.assert_allclose(deviations, expected, atol=1e-12)
    single = bootstrap_deviations(local, 300, random_state=7, dtype=np.float32)
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, expected, atol=1e-5)


def test_low_rank_bootstrap_product_is_within_its_tolerance():
    # Smooth local curves (a few basis functions plus tiny noise) are numerically low-rank:
    # the factorised product must move each replicate by at most tolerance * |w_b| |D_t| / P
    # (Cauchy-Schwarz with the residual bound), and a full-rank input must fall back to the
    # exact product.
    rng = np.random.default_rng(12)
    grid = np.linspace(0, 1, 300)
    basis = np.array([np.cos(np.pi * k * grid) for k in range(12)])
    local = rng.normal(size=(2000, 12)) @ basis + 1e-9 * rng.normal(size=(2000, 300))
    centred = local - local.mean(axis=0)
    exact = bootstrap_deviations(local, 700, random_state=4)
    for tolerance in (1e-6, 1e-8):
        approx = bootstrap_deviations(local, 700, random_state=4, rank_tolerance=tolerance)
        counts = bootstrap_counts(np.random.default_rng(4), 700, 2000)
        bound = tolerance * np.outer(
            np.linalg.norm(centred, axis=0), np.linalg.norm(counts, axis=1)
        )
        assert np.all(np.abs(approx - exact) <= bound / 2000 + 1e-15)
        assert np.abs(approx - exact).max() > 0  # the factorised path was taken
    noise = rng.normal(size=(300, 200))
    np.testing.assert_array_equal(
        bootstrap_deviations(noise, 50, random_state=1, rank_tolerance=1e-6),
        bootstrap_deviations(noise, 50, random_state=1),
    )


@pytest.mark.parametrize("n_basis", [20, 62, 80])
def test_low_rank_first_try_gives_the_full_test_matrix_factors(n_basis):
    # The first try (leading columns of the test matrix, rank by the whole residual) must
    # give the rank and factors of the full test matrix (to rounding), and fall back to it
    # when its columns do not suffice (rank above _LOW_RANK_FIRST).
    from krepro.distributed import bootstrap

    rng = np.random.default_rng(n_basis)
    grid = np.linspace(0, 1, 512)
    basis = np.array([np.cos(np.pi * k * grid) for k in range(n_basis)])
    local = rng.normal(size=(1500, n_basis)) * 0.9 ** np.arange(n_basis) @ basis
    centred = local - local.mean(axis=0)
    norms = np.einsum("ij,ij->j", centred, centred)
    k_max = bootstrap._LOW_RANK_MAX
    full = bootstrap._range_factors(centred, bootstrap._test_matrix(512, k_max), norms, 1e-6)
    got = bootstrap._low_rank(centred, 1e-6)
    assert full is not None and got is not None
    assert got[0].shape == full[0].shape
    if n_basis > bootstrap._LOW_RANK_FIRST:
        assert got[0].shape[1] > bootstrap._LOW_RANK_FIRST
    scale = np.abs(centred).max()
    np.testing.assert_allclose(got[0] @ got[1], full[0] @ full[1], rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(got[0] @ got[1], centred, rtol=0, atol=1e-6 * scale)


def test_bootstrap_band_fields():
    rng = np.random.default_rng(10)
    local = rng.normal(size=(200, 6)) + np.arange(6)
    band = bootstrap_band(local, confidence_level=0.9, n_resamples=2000, random_state=3)
    estimate = local.mean(axis=0)
    np.testing.assert_allclose(band.estimate, estimate)
    np.testing.assert_allclose(band.basic_lower, 2 * estimate - band.upper)
    np.testing.assert_allclose(band.basic_upper, 2 * estimate - band.lower)
    assert np.all(band.lower < estimate) and np.all(estimate < band.upper)
    assert band.bootstrap_coverage > 0.9
    assert band.tail_probability == (band.tail_index + 1) / 2000
    assert band.covers(estimate) and band.covers(estimate, "basic")
    assert not band.covers(band.upper)
    again = bootstrap_band(local, confidence_level=0.9, n_resamples=2000, random_state=3)
    np.testing.assert_array_equal(again.lower, band.lower)
    with pytest.raises(ValueError, match="confidence_level"):
        bootstrap_band(local, confidence_level=1.0)
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_band(np.full((3, 2), np.nan))


@pytest.mark.parametrize(
    ("local_shape", "options", "name"),
    [
        ((1, 4), {}, "n_partitions = 1"),
        ((1,), {}, "n_partitions = 1"),
        ((8, 4), {"n_resamples": 1}, "n_resamples = 1"),
        ((8, 4), {"n_resamples": 0}, "n_resamples = 0"),
        ((8, 4), {"n_resamples": 100.5}, "n_resamples = 100.5"),
        ((8, 4), {"confidence_level": 0.0}, "confidence_level"),
    ],
)
def test_bootstrap_band_rejects_degenerate_arguments(local_shape, options, name):
    # One partition or one resample would give a zero-width band with coverage 0.
    local = np.random.default_rng(0).normal(size=local_shape)
    with pytest.raises(ValueError, match=name):
        bootstrap_band(local, **options)


@pytest.mark.slow
def test_bands_reach_nominal_coverage_on_an_easy_case():
    # Homoscedastic noise (sd 1), N = 8192, P = 128 partitions, T = 4 prediction points,
    # B = 1000: the regime where the paper finds nominal coverage (P > 128 at N = 2^16).
    # 300 repetitions: standard error of a coverage of 0.95 is 0.0126; the tolerance 0.04
    # (3.2 standard errors) also absorbs the bootstrap's known small under-coverage at
    # finite P (its variance is (P-1)/P of the true one). Measured: 0.963 (percentile),
    # 0.953 (basic).
    rng = np.random.default_rng(11)
    n, p, t = 8192, 128, 4
    rho = 1e-3 * n ** (-6 / 7)
    covered = np.zeros(2)
    for _ in range(300):
        X = rng.uniform(size=(n, 1))
        y = np.sin(2 * np.pi * X[:, 0]) + rng.normal(size=n)
        Z = rng.uniform(size=(t, 1))
        truth = np.sin(2 * np.pi * Z[:, 0])
        model = DistributedKernelRidge(n_partitions=p, rho=rho).fit(X, y)
        band = model.predict_band(Z, n_resamples=1000, random_state=rng)
        covered += [band.covers(truth), band.covers(truth, "basic")]
    coverage = covered / 300
    assert np.all(np.abs(coverage - 0.95) <= 0.04), coverage
