"""Fixtures shared by the workflow tests: the tiny config and one complete tiny run.

The tiny run is session-wide: the tests that extend it (snapshot, reruns, a new study) start
from its results instead of running the whole workflow again. Under pytest-xdist with
``--dist loadgroup`` (the workflow lane in ``.ci/run``) those tests share one worker, so the
tiny run is made once, and so do the tests of a module-scoped fixture (the code-tracking
copy); every other workflow test runs on the other worker meanwhile, each in its own
temporary directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_workflow import TINY_CONFIG, console_file, load_yaml, ok, snakemake

_OWN_DIRECTORY = {"tmp_path", "tmp_path_factory", "tiny_run"}


def pytest_collection_modifyitems(items):
    """xdist groups (``--dist loadgroup``): the users of one expensive shared fixture run on
    one worker, and so do the workflow tests without a directory of their own (dry runs and
    ``--lint`` in the checkout, which share its ``.snakemake`` lock)."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        workflow = item.get_closest_marker("workflow") is not None
        if "tiny_run" in fixtures:
            item.add_marker(pytest.mark.xdist_group("tiny_run"))
        elif item.path.name == "test_code_tracking.py":
            item.add_marker(pytest.mark.xdist_group("code_tracking"))
        elif workflow and not fixtures & _OWN_DIRECTORY:
            item.add_marker(pytest.mark.xdist_group("checkout"))


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
