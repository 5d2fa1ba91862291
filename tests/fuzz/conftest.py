"""The fuzz lane's memory ceiling; its Hypothesis settings are in ``fuzz_settings.py``.

During each fuzz test the process may map at most :data:`MEMORY_CEILING` bytes: an input that
makes an estimator allocate far beyond its data (say ``cells_per_axis ** d`` cells) then
fails the property with a ``MemoryError`` instead of exhausting the machine.
"""

from __future__ import annotations

import resource

import pytest

MEMORY_CEILING = 6 * 2**30  # the fuzz data need < 100 MiB; a bare process maps ~0.7 GiB


@pytest.fixture(autouse=True)
def memory_ceiling():
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    ceiling = MEMORY_CEILING if hard == resource.RLIM_INFINITY else min(MEMORY_CEILING, hard)
    resource.setrlimit(resource.RLIMIT_AS, (ceiling, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
