"""Settings of the whole test session, so that `python -m pytest` runs the same tests the same
way wherever it is started (the README's test command, CI, an IDE).

* One OpenBLAS thread: the tests' small dense problems only lose to thread contention on a
  2-core machine, and the snakemake runs they start inherit the setting.
* A non-interactive matplotlib backend (no display needed).
* The offline UCI mirror: ``KREPRO_DATA_MIRROR`` when set, else ``shared/data`` beside the
  checkout when present. Tests needing the data skip without it; snakemake runs started by
  the tests download from UCI instead.

Fixtures shared by the workflow tests (tests/workflow/ and each study's
``tests/studies/<name>/test_workflow.py``): the tiny config and one complete tiny run.

The tiny run is made once per test session: the tests that read it or extend it (snapshot,
reruns, a new study, a study's outputs) start from its results instead of running the whole
workflow again. Under pytest-xdist (the workflow lane runs on two workers) the first worker
that needs it makes it, on 2 cores, in the session's shared temporary directory, while the
other waits on a file lock; each worker then works on its own copy (copied with the
modification times, so that Snakemake sees every output up to date), and each test that
writes keeps to its own temporary directory.
"""

import fcntl
import os
import shutil
import sys
from contextlib import contextmanager
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
    """UCI Adult, reference protocol, from the offline mirror (for tests that skip without
    the mirror)."""
    from krepro.data.adult import load_adult

    adult = Path(os.environ.get("KREPRO_DATA_MIRROR", "/nonexistent")) / "adult"
    return load_adult(adult / "adult.data", adult / "adult.test", "reference")


# --------------------------------------------------------------------------- the tiny run
# (tests.workflow.test_workflow is imported when a fixture is first used: the unit tests
# do not load the workflow's helpers)


@pytest.fixture(scope="session")
def tiny() -> dict:
    from tests.workflow.test_workflow import TINY_CONFIG, load_yaml

    return load_yaml(TINY_CONFIG)


@contextmanager
def _exclusive(lock_path: Path):
    """An exclusive lock on ``lock_path`` (POSIX ``flock``), held for the block."""
    with open(lock_path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _make_tiny_run(workdir: Path) -> None:
    """The default target with the tiny config, on 2 cores; its console beside ``workdir``
    (written last: a console file means a complete run)."""
    from tests.workflow.test_workflow import TINY_CONFIG, console_file, ok, snakemake

    workdir.mkdir(parents=True, exist_ok=True)
    console = ok(snakemake(workdir=workdir, config=TINY_CONFIG, cores=2))
    console_file(workdir).write_text(console, encoding="utf-8")


@pytest.fixture(scope="session")
def tiny_run(request, tmp_path_factory) -> Path:
    """One complete run of the default target with the tiny config (this worker's copy)."""
    from tests.workflow.test_workflow import console_file

    own = tmp_path_factory.mktemp("tiny_run")
    if not hasattr(request.config, "workerinput"):  # not a pytest-xdist worker: in place
        _make_tiny_run(own)
        return own
    # The basetemp's parent belongs to this session and is shared by its workers.
    session_dir = tmp_path_factory.getbasetemp().parent
    shared = session_dir / "tiny_run_shared"
    with _exclusive(session_dir / "tiny_run_shared.lock"):
        if not console_file(shared).is_file():
            shutil.rmtree(shared, ignore_errors=True)  # a failed attempt's leftovers
            _make_tiny_run(shared)
    shutil.copytree(shared, own, symlinks=True, dirs_exist_ok=True)
    shutil.copy2(console_file(shared), console_file(own))
    return own
