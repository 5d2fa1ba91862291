"""content_key: equal arrays share a key, any change of shape, dtype or value changes it."""

from collections import OrderedDict

import numpy as np

from krepro.content_key import cached_by_content, content_key
from tests.concurrency import hammer


def test_equal_content_equal_key():
    X = np.arange(12.0).reshape(3, 4)
    assert content_key(X) == content_key(X.copy()) == content_key(np.asfortranarray(X))
    assert content_key(X, X[:1]) == content_key(X.copy(), X[:1].copy())


def test_shape_dtype_value_and_order_change_the_key():
    X = np.arange(12.0).reshape(3, 4)
    changed = X.copy()
    changed[2, 3] = np.nextafter(changed[2, 3], np.inf)
    keys = {
        content_key(X),
        content_key(X.reshape(4, 3)),
        content_key(X.astype(np.float32)),
        content_key(changed),
        content_key(X, X[:1]),
        content_key(X[:1], X),
    }
    assert len(keys) == 6


def test_cached_by_content_computes_once_per_content_and_evicts_the_oldest():
    cache, calls = OrderedDict(), []

    def lookup(array):
        return cached_by_content(cache, array, lambda: calls.append(1) or array * 2.0, size=2)

    a, b, c = np.arange(3.0), np.arange(4.0), np.arange(5.0)
    first = lookup(a)
    assert lookup(a.copy()) is first and len(calls) == 1
    assert not first.flags.writeable
    lookup(b)
    lookup(c)  # evicts a, the oldest
    assert len(cache) == 2 and len(calls) == 3
    lookup(a)
    assert len(calls) == 4


def test_cached_by_content_is_thread_safe():
    # Before: concurrent hits and evictions raised KeyError in cache.move_to_end (an entry
    # evicted by another thread between the lookup and the move).
    cache = OrderedDict()
    arrays = [np.arange(float(n)) for n in range(1, 8)]  # more contents than entries
    expected = [array * 2.0 for array in arrays]
    mismatches = []

    def work(index):
        for step in range(3000):
            k = (index * 3 + step) % len(arrays)
            value = cached_by_content(cache, arrays[k].copy(), lambda k=k: arrays[k] * 2.0, 3)
            if not np.array_equal(value, expected[k]):
                mismatches.append(k)

    assert hammer(work, n_threads=6) == []
    assert mismatches == []
    assert len(cache) <= 3
