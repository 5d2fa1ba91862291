"""Fixtures shared by the workflow tests: the tiny config and one complete tiny run.

The tiny run is made once per test session: the tests that read it or extend it (snapshot,
reruns, a new study) start from its results instead of running the whole workflow again.
Under pytest-xdist (the workflow lane runs on two workers) the first worker that needs it
makes it, on 2 cores, in the session's shared temporary directory, while the other waits on
a file lock; each worker then works on its own copy (copied with the modification times,
so that Snakemake sees every output up to date), and each test that writes keeps to its own
temporary directory.
"""

from __future__ import annotations

import fcntl
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.workflow.test_workflow import TINY_CONFIG, console_file, load_yaml, ok, snakemake


@pytest.fixture(scope="session")
def tiny() -> dict:
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
    workdir.mkdir(parents=True, exist_ok=True)
    console = ok(snakemake(workdir=workdir, config=TINY_CONFIG, cores=2))
    console_file(workdir).write_text(console, encoding="utf-8")


@pytest.fixture(scope="session")
def tiny_run(request, tmp_path_factory) -> Path:
    """One complete run of the default target with the tiny config (this worker's copy)."""
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
