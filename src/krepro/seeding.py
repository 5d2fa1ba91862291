"""Random streams derived from config seeds with :class:`numpy.random.SeedSequence`.

Every random draw in the project comes from :func:`generator`, keyed by the config seed and
by *what* is drawn (study name, setting, repetition) — never by job order or process — so the
same config gives the same numbers whatever the number of cores, the sharding or the order in
which a scheduler runs the jobs.
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["as_generator", "generator", "seed_sequence", "stable_key"]


def stable_key(value):
    """Map a key component (str, int or float) to a non-negative integer, stably across runs.

    Strings are hashed with CRC-32 (Python's ``hash`` is salted per process); floats are
    represented by their value in millionths, so ``0.1`` and ``0.1000000001`` agree.
    """
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        if value < 0:
            raise ValueError(f"Integer seed keys must be non-negative, got {value}.")
        return int(value)
    if isinstance(value, (float, np.floating)):
        if value < 0:
            raise ValueError(f"Float seed keys must be non-negative, got {value}.")
        return round(float(value) * 1_000_000)
    if isinstance(value, str):
        return zlib.crc32(value.encode("utf-8"))
    raise TypeError(f"Unsupported seed key {value!r} of type {type(value).__name__}.")


def seed_sequence(seed, *keys):
    """``SeedSequence(seed, spawn_key=keys)`` with keys made stable by :func:`stable_key`."""
    return np.random.SeedSequence(int(seed), spawn_key=tuple(stable_key(k) for k in keys))


def generator(seed, *keys):
    """A :class:`numpy.random.Generator` for the stream ``(seed, *keys)``."""
    return np.random.default_rng(seed_sequence(seed, *keys))


def as_generator(random_state):
    """A :class:`numpy.random.Generator` from a library function's ``random_state`` argument.

    ``None`` (fresh entropy), an int or a :class:`~numpy.random.SeedSequence` seed a new
    generator (an int ``k`` gives ``default_rng(k)``); a Generator is used as it is; a legacy
    :class:`~numpy.random.RandomState` seeds a new generator from four of its draws.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1, size=4))
    return np.random.default_rng(random_state)
