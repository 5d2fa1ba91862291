"""The blockwise ObliviousKernel: tile size, thread count, cached products, memory.

The identities of the oblivious Gram matrix itself (explicit feature space, Algorithm 1) are
in ``test_oblivious.py``, run there with the default and with a tiny tile size.
"""

import tracemalloc

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import krepro.fairness.oblivious
from krepro.cme import CMEConditionalMean
from krepro.fairness.oblivious import ObliviousKernel

DYADIC = {"partition": "dyadic", "partition_bounds": (-5.0, 5.0), "cells_per_axis": 16}
CONFIGS = {
    "rbf-dyadic": {"kernel": "rbf", "gamma": 0.7, **DYADIC},
    "poly-values": {"kernel": "poly", "degree": 2, "gamma": 0.3},
    "rbf-cme": {"kernel": "rbf", "gamma": 0.5, "conditional_mean": CMEConditionalMean(gamma=0.5)},
}


def _data(seed=0, m=260, n=301, n_test=97, d=2, values=False):
    rng = np.random.default_rng(seed)

    def half(size):
        S = rng.uniform(-5.0, 5.0, size)
        X = 0.3 * S[:, None] + rng.normal(size=(size, d))
        return X, (np.round(S / 4.0) if values else S)

    return half(m), half(n), half(n_test)


def _all_grams(ok, train, test):
    (X, S), (X_t, S_t) = train, test
    return {
        "train": ok.gram(X, S),
        "test": ok.gram(X_t, S_t, X, S),
        "mixed": ok.mixed_gram(X_t, S_t, X),
        "Q": ok.component_gram_,
    }


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_results_do_not_depend_on_the_tile_size(config):
    est, train, test = _data(values=config == "poly-values")
    results = {}
    # 7 and 64: many tiles, uneven last tiles (260, 301 and 97 are not multiples); 1000: one
    for tile_size in (7, 64, 1000):
        ok = ObliviousKernel(**CONFIGS[config], tile_size=tile_size)
        results[tile_size] = _all_grams(ok.fit(*est[:1], sensitive_features=est[1]), train, test)
        O = results[tile_size]["train"]
        np.testing.assert_array_equal(O, O.T)
    for tile_size in (7, 64):
        for name, value in results[tile_size].items():
            # entries O(1)-O(10): only the order of the floating-point sums differs
            np.testing.assert_allclose(value, results[1000][name], rtol=0, atol=1e-12)


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_results_do_not_depend_on_the_thread_count(config):
    est, train, test = _data(1, m=700, n=650, values=config == "poly-values")
    results = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads):
            ok = ObliviousKernel(**CONFIGS[config])
            results.append(_all_grams(ok.fit(est[0], sensitive_features=est[1]), train, test))
    for name, value in results[0].items():
        if config == "rbf-cme":
            # The CME's weights come from a threaded LAPACK solve (krepro.cme), which
            # rounds differently with 2 threads; the tiled products add nothing to that.
            np.testing.assert_allclose(value, results[1][name], rtol=0, atol=1e-12)
        else:
            np.testing.assert_array_equal(value, results[1][name])


def test_products_with_the_estimation_sample_are_cached(monkeypatch):
    est, (X, S), (X_t, S_t) = _data(2)
    calls = []
    original = krepro.fairness.oblivious.cross_products

    def counting(tiles, E, n_rows, tile_size):
        calls.append(n_rows)
        return original(tiles, E, n_rows, tile_size)

    monkeypatch.setattr(krepro.fairness.oblivious, "cross_products", counting)
    ok = ObliviousKernel(**CONFIGS["rbf-dyadic"]).fit(est[0], sensitive_features=est[1])
    O = ok.gram(X, S)
    assert calls == [len(X)]
    np.testing.assert_array_equal(ok.gram(X, S), O)  # repeated call: no new products
    O_test = ok.gram(X_t, S_t, X, S)  # test × train: products of the test points only
    assert calls == [len(X), len(X_t)]
    mixed = ok.mixed_gram(X_t, S_t, X)
    np.testing.assert_array_equal(ok.gram(X_t, S_t, X.copy(), S), O_test)  # same content
    assert calls == [len(X), len(X_t)]

    X_changed = X.copy()
    X_changed[5, 0] += 1e-9  # the cache is keyed by content, not by the array object
    ok.gram(X_t, S_t, X_changed, S)
    assert calls == [len(X), len(X_t), len(X)]

    ok.fit(X, sensitive_features=S)  # a new estimation sample empties the cache
    ok.gram(X, S)
    assert calls == [len(X), len(X_t), len(X), len(X)]

    # cached and freshly computed products give the same matrices
    fresh = ObliviousKernel(**CONFIGS["rbf-dyadic"]).fit(est[0], sensitive_features=est[1])
    np.testing.assert_array_equal(fresh.mixed_gram(X_t, S_t, X), mixed)
    np.testing.assert_array_equal(fresh.gram(X_t, S_t, X, S), O_test)


def test_many_point_sets_keep_the_cache_bounded():
    est, (X, S), _ = _data(3)
    ok = ObliviousKernel(**CONFIGS["rbf-dyadic"]).fit(est[0], sensitive_features=est[1])
    for shift in range(10):
        ok.gram(X + shift, S)
    assert len(ok.products_cache_) == krepro.fairness.oblivious._PRODUCT_CACHE_SIZE


def _peak_bytes(function):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = function()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


def test_memory_is_the_output_plus_tiles():
    """fit never holds an m × m block; gram holds its n × n output and a few tiles."""
    n = m = 1500
    est, (X, S), _ = _data(4, m=m, n=n, d=1)
    ok = ObliviousKernel(**CONFIGS["rbf-dyadic"])
    fit_peak, _ = _peak_bytes(lambda: ok.fit(est[0], sensitive_features=est[1]))
    # a 256² tile is 0.5 MiB; one m × m block would be 17 MiB
    assert fit_peak < 0.1 * m * m * 8
    gram_peak, O = _peak_bytes(lambda: ok.gram(X, S))
    assert O.shape == (n, n)
    # the output (17 MiB) plus tiles, n × 34 one-hot factors and n × 17 products
    assert gram_peak < n * n * 8 + 4 * 2**20
