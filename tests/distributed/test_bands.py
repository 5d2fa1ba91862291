"""Band selection (krepro.distributed.bands) against a naive loop."""

from __future__ import annotations

import numpy as np
import pytest

from krepro.distributed import bootstrap_band, select_bands

# --------------------------------------------------------------------------- oracles


def naive_band(replicates, level):
    """Eqs. (10)–(11) as the authors' code does it: a loop over the tail index i.

    Band i is (v_t(i), v_t(B-1-i)) from the sorted replicates of every component; stop at
    the first i whose joint coverage (strict inequalities, all components) is <= level and
    return i - 1 (at least 0), with its lower/upper order statistics and inside count.
    """
    n_resamples = replicates.shape[1]
    ordered = np.sort(replicates, axis=1)

    def inside(i):
        lower, upper = ordered[:, i], ordered[:, n_resamples - 1 - i]
        return int(np.sum(np.all((lower[:, None] < replicates) & (replicates < upper[:, None]), 0)))

    i = 0
    while inside(i) / n_resamples > level:
        i += 1
    i = max(0, i - 1)
    return i, inside(i), ordered[:, i], ordered[:, n_resamples - 1 - i], inside


@pytest.mark.parametrize(
    ("n_rows", "n_resamples", "level", "kind"),
    [
        (1, 500, 0.95, "normal"),
        (2, 5000, 0.95, "normal"),
        (7, 1000, 0.9, "correlated"),
        (64, 2000, 0.95, "normal"),
        (3, 101, 0.5, "normal"),
        (5, 400, 0.99, "exponential"),
        (6, 800, 0.95, "ties"),
        (4, 600, 0.95, "cauchy"),
        (3, 300, 0.8, "float32"),
        (2, 50, 0.95, "constant"),
    ],
)
def test_select_bands_equals_naive_loop(n_rows, n_resamples, level, kind):
    rng = np.random.default_rng(n_rows * n_resamples)
    shape = (n_rows, n_resamples)
    replicates = {
        "normal": lambda: rng.normal(size=shape),
        "correlated": lambda: rng.normal(size=(1, n_resamples)) + 0.2 * rng.normal(size=shape),
        "exponential": lambda: rng.exponential(size=shape),
        "ties": lambda: np.round(rng.normal(size=shape), 1),
        "cauchy": lambda: rng.standard_cauchy(size=shape),
        "float32": lambda: rng.normal(size=shape).astype(np.float32),
        "constant": lambda: np.zeros(shape),
    }[kind]()
    bands = select_bands(replicates, level)
    index, n_inside, lower, upper, _ = naive_band(replicates, level)
    assert bands.tail_index[0] == index
    assert bands.n_inside[0] == n_inside
    low, high = bands.band(0)
    np.testing.assert_array_equal(low, lower)
    np.testing.assert_array_equal(high, upper)


@pytest.mark.parametrize("kind", ["trend", "huge"])
def test_select_bands_is_exact_whatever_the_threshold_moments(kind):
    # The candidate threshold comes from the first columns' moments: replicates drifting
    # along b make it wrong (slower, still exact); finite float32 values whose sum
    # overflows must not be taken for NaN or infinity.
    rng = np.random.default_rng(31)
    if kind == "trend":
        replicates = rng.normal(size=(5, 3000)) + np.linspace(-4, 4, 3000)
        replicates[2] = -replicates[2]
    else:
        replicates = (rng.uniform(1, 3, size=(3, 2000)) * 1e38).astype(np.float32)
        with np.errstate(over="ignore"):
            assert not np.isfinite(replicates.sum(dtype=np.float32))
    bands = select_bands(replicates, 0.95)
    index, n_inside, lower, upper, _ = naive_band(replicates, 0.95)
    assert bands.tail_index[0] == index
    assert bands.n_inside[0] == n_inside
    low, high = bands.band(0)
    np.testing.assert_array_equal(low, lower)
    np.testing.assert_array_equal(high, upper)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_select_bands_rejects_non_finite_replicates(bad):
    replicates = np.random.default_rng(2).normal(size=(4, 300)).astype(np.float32)
    replicates[3, 17] = bad
    with pytest.raises(ValueError, match="NaN or infinite"):
        select_bands(replicates, 0.95)


def test_nested_sizes_equal_separate_selections():
    rng = np.random.default_rng(8)
    replicates = rng.normal(size=(1, 3000)) * 0.5 + rng.normal(size=(64, 3000))
    sizes = [1, 2, 5, 16, 17, 64]
    nested = select_bands(replicates, 0.95, sizes=sizes)
    for k, size in enumerate(sizes):
        single = select_bands(replicates[:size], 0.95)
        assert nested.tail_index[k] == single.tail_index[0]
        assert nested.n_inside[k] == single.n_inside[0]
        for got, expected in zip(nested.band(k), single.band(0), strict=True):
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("n_rows", [1, 3, 12])
def test_chosen_band_is_the_narrowest_above_the_level(n_rows):
    rng = np.random.default_rng(9 + n_rows)
    replicates = rng.normal(size=(n_rows, 4000))
    bands = select_bands(replicates, 0.95)
    *_, inside = naive_band(replicates, 0.95)
    index = int(bands.tail_index[0])
    assert bands.bootstrap_coverage[0] > 0.95
    assert inside(index) / 4000 > 0.95
    assert inside(index + 1) / 4000 <= 0.95  # the next narrower band falls below


def test_band_modules_are_reexported():
    # The split keeps the public names of krepro.distributed importable.
    import krepro.distributed.bands
    import krepro.distributed.bootstrap

    assert bootstrap_band is krepro.distributed.bootstrap.bootstrap_band
    assert select_bands is krepro.distributed.bands.select_bands
