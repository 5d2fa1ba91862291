"""Fixtures shared by the workflow tests: the tiny config and one complete tiny run.

The tiny run is session-wide: the tests that extend it (snapshot, reruns, a new study) start
from its results instead of running the whole workflow again (once per pytest-xdist
worker: the workflow lane runs on two, each test in its own temporary directory).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_workflow import TINY_CONFIG, console_file, load_yaml, ok, snakemake


@pytest.fixture(scope="session")
def tiny() -> dict:
    return load_yaml(TINY_CONFIG)


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory) -> Path:
    """One complete run of the default target with the tiny config, on 2 cores."""
    workdir = tmp_path_factory.mktemp("tiny_run")
    console = ok(snakemake(workdir=workdir, config=TINY_CONFIG, cores=2))
    console_file(workdir).write_text(console, encoding="utf-8")
    return workdir
