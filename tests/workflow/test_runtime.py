"""krepro.workflow.runtime.job: log lines carry the job's rule and wildcards; no test hooks inside.

The test-only fault injection (tests/workflow/fault_injection/sitecustomize.py) is checked
here too, without Snakemake or SLURM: it wraps ``job`` from outside the library.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from krepro.workflow import runtime

REPO = Path(__file__).resolve().parents[2]
HOOK_DIR = REPO / "tests" / "workflow" / "fault_injection"


def fake_snakemake(log, rule="ridge_fit", **wildcards):
    """The attributes of Snakemake's `snakemake` object that `job` reads."""
    return SimpleNamespace(rule=rule, wildcards=wildcards, log=[str(log)], threads=1)


@pytest.fixture(autouse=True)
def restore_logging():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
    root.handlers[:] = handlers
    root.setLevel(level)
    logging.captureWarnings(False)


def test_log_lines_carry_rule_and_wildcards(tmp_path):
    log = tmp_path / "job.log"
    with runtime.job(fake_snakemake(log, variant="paper_text", experiment=1)) as logger:
        logger.info("fitted %d settings", 3)
    lines = log.read_text(encoding="utf-8").splitlines()
    assert lines, "nothing logged"
    label = "ridge_fit[variant=paper_text, experiment=1]: "
    assert all(f" INFO {label}" in line for line in lines), lines
    assert any(line.endswith(f"{label}fitted 3 settings") for line in lines), lines


def test_job_without_wildcards_and_percent_signs(tmp_path):
    log = tmp_path / "job.log"
    with runtime.job(fake_snakemake(log, rule="report")) as logger:
        logger.info("done")
    assert " INFO report: done" in log.read_text(encoding="utf-8")
    assert runtime.job_label(fake_snakemake(log, rule="r", q="50%")) == "r[q=50%]"
    with runtime.job(fake_snakemake(log, rule="r", q="50%")) as logger:
        logger.info("x")
    assert " INFO r[q=50%]: x" in log.read_text(encoding="utf-8")


def test_failure_is_logged_with_the_job_label_and_reraised(tmp_path):
    log = tmp_path / "job.log"
    with pytest.raises(ZeroDivisionError), runtime.job(fake_snakemake(log, experiment=2)):
        1 / 0  # noqa: B018
    text = log.read_text(encoding="utf-8")
    assert "ERROR ridge_fit[experiment=2]: job failed" in text
    assert "ZeroDivisionError" in text


def test_the_library_has_no_fault_injection():
    source = Path(runtime.__file__).read_text(encoding="utf-8")
    assert "KREPRO_FAIL_ONCE" not in source
    assert "os.environ" not in source


FAIL_TWICE = textwrap.dedent(
    """
    import sys
    from types import SimpleNamespace
    from krepro.workflow.runtime import job

    for attempt in (1, 2):
        for experiment in (1, 2):
            snakemake = SimpleNamespace(rule=sys.argv[1], wildcards={"experiment": experiment},
                                        log=[sys.argv[2]], threads=1)
            try:
                with job(snakemake):
                    pass
                print(attempt, experiment, "ok")
            except RuntimeError as error:
                print(attempt, experiment, "failed:", error)
    """
)


@pytest.mark.parametrize("rule", ["ridge_fit", "ridge_aggregate"])
def test_fault_injection_hook_fails_first_attempts_only_of_listed_rules(rule, tmp_path):
    """In a fresh interpreter with the hook first on PYTHONPATH (as the SLURM test runs)."""
    markers = tmp_path / "markers"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HOOK_DIR), str(REPO / "src")])
    env["KREPRO_FAIL_ONCE"] = f"{markers}:ridge_fit,other_rule"
    result = subprocess.run(
        [sys.executable, "-c", FAIL_TWICE, rule, str(tmp_path / "job.log")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stdout.splitlines()
    if rule == "ridge_fit":
        assert lines[:2] == [
            "1 1 failed: injected failure of ridge_fit (KREPRO_FAIL_ONCE)",
            "1 2 failed: injected failure of ridge_fit (KREPRO_FAIL_ONCE)",
        ]
        assert sorted(p.name for p in markers.iterdir()) == [
            "ridge_fit.experiment-1",
            "ridge_fit.experiment-2",
        ]
    else:
        assert lines[:2] == ["1 1 ok", "1 2 ok"]
        assert not markers.exists()
    assert lines[2:] == ["2 1 ok", "2 2 ok"]


def test_without_the_hook_nothing_fails(tmp_path):
    env = dict(os.environ, KREPRO_FAIL_ONCE=f"{tmp_path / 'markers'}:ridge_fit")
    env["PYTHONPATH"] = str(REPO / "src")
    result = subprocess.run(
        [sys.executable, "-c", FAIL_TWICE, "ridge_fit", str(tmp_path / "job.log")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.splitlines() == ["1 1 ok", "1 2 ok", "2 1 ok", "2 2 ok"]
