"""Coverage study runs (krepro.studies.coverage.run): protocol, library path, shards, seeds."""

from __future__ import annotations

import numpy as np
import pytest

from krepro.distributed import DistributedKernelRidge, bootstrap_band
from krepro.seeding import generator
from krepro.studies.coverage.readings import shard_ranges
from krepro.studies.coverage.run import (
    CoverageSettings,
    draw_sample,
    load_shards,
    noise_sd,
    penalty,
    run_repetition,
    run_shard,
    save_shard,
    settings_from_config,
    true_function,
)
from krepro.studies.coverage.tables import aggregate, tidy

TINY = CoverageSettings(
    n_samples=512,
    partitions=(4, 8, 16),
    targets=(2, 4, 8),
    n_resamples=300,
    confidence_level=0.95,
    rho=penalty(512, 1e-3, 3),
)


# --------------------------------------------------------------------------- protocol


def test_penalty_is_the_authors_value():
    # Protocol note §1.6: rho = 1e-3 N^(-6/7) = 7.4403e-8 at N = 2^16; ablation N^(-8/9).
    assert penalty(2**16, 1e-3, 3) == pytest.approx(7.4403e-8, rel=1e-4)
    assert penalty(2**16, 1e-3, 4) == pytest.approx(1e-3 * 2 ** (-16 * 8 / 9), rel=1e-12)


def test_sample_follows_the_protocol():
    x, y, targets = draw_sample(3, 0, 200_000, 8)
    assert x.min() >= 0 and x.max() < 1 and len(targets) == 8
    z = (y - true_function(x)) / noise_sd(x)  # standardised noise: N(0, 1)
    assert abs(z.mean()) < 0.01 and abs(z.var() - 1) < 0.015
    assert noise_sd(0.5) == 1.0 and noise_sd(0.0) == pytest.approx(np.e)
    # Same seed and repetition: same draw; the prediction set's prefix does not depend on
    # how many points are drawn (T-configurations are nested).
    x2, _, targets2 = draw_sample(3, 0, 200_000, 4)
    np.testing.assert_array_equal(x, x2)
    np.testing.assert_array_equal(targets[:4], targets2)
    assert not np.array_equal(draw_sample(3, 1, 10, 2)[0], x[:10])


def test_settings_from_config():
    section = {
        "n_samples": 1024,
        "partitions": [8, 16],
        "targets": [2, 4],
        "n_resamples": 100,
        "confidence_level": 0.9,
        "kernel": {"nu": 2.5, "length_scale": 0.5},
        "variants": {"a": {"rho_scale": 1e-3, "rho_smoothness": 4, "n_repetitions": 3}},
    }
    settings = settings_from_config(section, "a")
    assert settings.partitions == (8, 16) and settings.nu == 2.5
    assert settings.rho == pytest.approx(penalty(1024, 1e-3, 4))


def test_repetition_equals_the_library_path():
    # The shared-draw, nested, one-bootstrap-per-P repetition gives exactly what the plain
    # estimator + bootstrap_band give for each (P, T) configuration on its own.
    seed, repetition = 5, 2
    result = run_repetition(seed, repetition, TINY, bootstrap_dtype=np.float64, rank_tolerance=None)
    x, y, targets = draw_sample(seed, repetition, TINY.n_samples, max(TINY.targets))
    for j, p in enumerate(TINY.partitions):
        model = DistributedKernelRidge(n_partitions=p, rho=TINY.rho).fit(x[:, None], y)
        for k, t in enumerate(TINY.targets):
            local = model.predict_local(targets[:t, None])
            band = bootstrap_band(
                local,
                TINY.confidence_level,
                TINY.n_resamples,
                random_state=generator(seed, "coverage", repetition, "bootstrap", p),
            )
            truth = true_function(targets[:t])
            assert result["tail_index"][j, k] == band.tail_index
            assert result["n_inside"][j, k] == round(band.bootstrap_coverage * 300)
            assert result["covered"][j, k, 0] == band.covers(truth, "percentile")
            assert result["covered"][j, k, 1] == band.covers(truth, "basic")
            mse = np.mean((band.estimate - truth) ** 2)
            assert result["squared_error"][j, k] == pytest.approx(mse, rel=1e-8)


def test_statespace_solver_equals_the_dense_path():
    # The O(n) solver against the dense Cholesky path on the paper's penalty and kernel:
    # bootstrap bands to 1e-8 (exact float64 product), identical tail indices, inside
    # counts and coverage indicators, also with the default float32 low-rank product.
    settings = CoverageSettings(
        n_samples=8192,
        partitions=(32, 64, 256, 1024),
        targets=(2, 16, 128),
        n_resamples=1000,
        confidence_level=0.95,
        rho=penalty(65536, 1e-3, 3),
    )
    for repetition in range(3):
        for options in ({"bootstrap_dtype": np.float64, "rank_tolerance": None}, {}):
            fast, dense = (
                run_repetition(7, repetition, settings, solver=solver, return_bands=True, **options)
                for solver in ("statespace", "dense")
            )  # fmt: skip
            for key in ("covered", "tail_index", "n_inside"):
                np.testing.assert_array_equal(fast[key], dense[key])
            np.testing.assert_allclose(fast["squared_error"], dense["squared_error"], rtol=1e-7)
            if options:
                for p in settings.partitions:
                    for tail in ("lower_tail", "upper_tail"):
                        ours, ref = (
                            getattr(fast["bands"][p], tail),
                            getattr(dense["bands"][p], tail),
                        )
                        scale = np.nanmax(np.abs(ref))
                        np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-8 * scale)


# --------------------------------------------------------------------------- shards


def _strip(shard):
    return {k: v for k, v in shard.items() if k != "cpu_seconds"}


def test_shard_size_does_not_change_results():
    whole = run_shard(7, 0, 4, TINY)
    pieces = [run_shard(7, a, b, TINY) for a, b in shard_ranges(4, 3)]
    joined = {k: np.concatenate([piece[k] for piece in pieces]) for k in whole}
    for key, value in _strip(whole).items():
        np.testing.assert_array_equal(value, joined[key], err_msg=key)


def test_same_seed_gives_identical_tables(tmp_path):
    def table(seed, shard_size):
        paths = []
        for variant in ("a", "b"):
            for first, stop in shard_ranges(4, shard_size):
                path = tmp_path / f"{seed}-{shard_size}-{variant}-{first}.npz"
                save_shard(path, run_shard(seed, first, stop, TINY), TINY, variant, seed)
                paths.append(path)
        runs = tidy(load_shards(paths))
        return runs.to_csv(index=False), aggregate(runs, 0.95, (2,)).to_csv(index=False)

    first = table(11, 4)
    assert table(11, 4) == first
    assert table(11, 1) == first  # and whatever the sharding
    assert table(12, 4)[0] != first[0]


def test_shard_roundtrip_and_tidy_checks(tmp_path):
    shard = run_shard(1, 0, 2, TINY)
    save_shard(tmp_path / "s.npz", shard, TINY, "v", 1)
    (loaded,) = load_shards([tmp_path / "s.npz"])
    np.testing.assert_array_equal(loaded["covered"], shard["covered"])
    assert str(loaded["variant"]) == "v" and float(loaded["setting_rho"]) == TINY.rho
    runs = tidy([loaded])
    assert len(runs) == 2 * 3 * 3
    assert set(runs.columns) >= {"covered_percentile", "covered_basic", "squared_error"}
    later = dict(loaded, repetition=loaded["repetition"] + 1)  # repetitions 1, 2: no 0
    with pytest.raises(ValueError, match=r"repetitions must be 0\.\.R-1"):
        tidy([later])
