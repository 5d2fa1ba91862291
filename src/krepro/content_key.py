"""Content keys of arrays, for caches keyed by the data rather than by object identity."""

from __future__ import annotations

import hashlib
import threading

import numpy as np

__all__ = ["cached_by_content", "content_key"]

# Guards the reads and writes of every cache passed to cached_by_content (each takes
# microseconds; the computations run outside it). One lock for all caches keeps fitted
# estimators free of lock attributes, which neither pickle nor deep-copy.
_CACHE_LOCK = threading.Lock()


def content_key(*arrays):
    """BLAKE2b digest (16 bytes, hex) of the arrays' shapes, dtypes and bytes, in order.

    Equal keys mean equal arrays (up to a 2⁻¹²⁸ collision); a copy of an array has the key of
    the original, a view with other strides has the key of its contiguous copy.

    Parameters
    ----------
    *arrays : array-like

    Returns
    -------
    str
    """
    digest = hashlib.blake2b(digest_size=16)
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(repr((array.shape, array.dtype.str)).encode())
        digest.update(array.data)
    return digest.hexdigest()


def cached_by_content(cache, array, compute, size):
    """``compute()`` for ``array``, through a least-recently-used cache keyed by its content.

    A hit needs an equal key *and* an exact comparison with the stored copy of ``array``;
    a miss stores ``(array.copy(), value)`` with ``value`` made read-only and evicts the
    oldest entries beyond ``size``.

    Thread-safe: several threads may share one cache (a fitted estimator's, say). Only the
    reads and writes of ``cache`` hold a lock, briefly; hashing, the comparison and
    ``compute()`` run outside it, so threads do not wait for each other's computations. Two
    threads missing the same content at once both compute it (deterministically, so either
    value may be kept).

    Parameters
    ----------
    cache : collections.OrderedDict
    array : ndarray
        The input ``value`` depends on (its content only).
    compute : callable
        No arguments; returns an ndarray.
    size : int
        Largest number of entries kept.

    Returns
    -------
    ndarray
        Read-only.
    """
    key = content_key(array)
    with _CACHE_LOCK:
        cached = cache.get(key)
    if cached is not None and np.array_equal(cached[0], array):
        with _CACHE_LOCK:
            if key in cache:  # another thread may have evicted it meanwhile
                cache.move_to_end(key)
        return cached[1]
    value = compute()
    value.flags.writeable = False
    entry = (array.copy(), value)
    with _CACHE_LOCK:
        cache[key] = entry
        cache.move_to_end(key)
        while len(cache) > size:
            cache.popitem(last=False)
    return value
