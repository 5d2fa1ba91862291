"""Settings of the whole test session, so that `python -m pytest` runs the same tests the same
way wherever it is started (the README's test command, CI, an IDE).

* One OpenBLAS thread: the tests' small dense problems only lose to thread contention on a
  2-core machine, and the snakemake runs they start inherit the setting.
* A non-interactive matplotlib backend (no display needed).
* The offline UCI mirror: ``KREPRO_DATA_MIRROR`` when set, else ``shared/data`` beside the
  checkout when present. Tests needing the data skip without it; snakemake runs started by
  the tests download from UCI instead.
"""

import os
import sys
from pathlib import Path

import pytest
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parents[1]
DEFAULT_MIRROR = REPO.parent / "shared" / "data"
BLAS_LIMITS = pytest.StashKey()

# Before numpy and matplotlib are imported by any test module (conftest.py comes first).
os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["MPLBACKEND"] = "Agg"
if not os.environ.get("KREPRO_DATA_MIRROR") and DEFAULT_MIRROR.is_dir():
    os.environ["KREPRO_DATA_MIRROR"] = str(DEFAULT_MIRROR)


def pytest_configure(config):
    """In case a plugin imported numpy or matplotlib before this file was read."""
    if "matplotlib" in sys.modules:
        sys.modules["matplotlib"].use("Agg")
    # Kept for the whole session (threadpoolctl restores the old limits only on request).
    config.stash[BLAS_LIMITS] = threadpool_limits(limits=1, user_api="blas")


@pytest.fixture(scope="module")
def reference():
    """UCI Adult, reference protocol, from the offline mirror (tests/data/test_adult.py and
    tests/studies/adult/test_run.py, which skip without the mirror)."""
    from krepro.data.adult import load_adult

    adult = Path(os.environ.get("KREPRO_DATA_MIRROR", "/nonexistent")) / "adult"
    return load_adult(adult / "adult.data", adult / "adult.test", "reference")
