"""The cluster profile on a real (one-node) SLURM: sbatch submission, retries, same results.

Runs only with KREPRO_SLURM_TEST=1 (set by .ci/run), as root: the fixture installs and
starts a local SLURM with .ci/slurm_local.sh and stops the daemons it started (by PID).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.workflow.test_workflow import REPO, TINY_CONFIG, fail_once, ok, snakemake

pytestmark = [
    pytest.mark.workflow,
    pytest.mark.slurm,
    pytest.mark.skipif(
        os.environ.get("KREPRO_SLURM_TEST") != "1",
        reason="set KREPRO_SLURM_TEST=1 (as root) to start a local SLURM and test the profile",
    ),
]

SCRIPT = REPO / ".ci" / "slurm_local.sh"
PROFILE = REPO / "profiles" / "slurm"
RIDGE_TABLES = ["results/tables/ridge.csv", "results/ridge/ridge.csv"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    state = tmp_path_factory.mktemp("slurm_state")
    env = {**os.environ, "KREPRO_SLURM_STATE": str(state)}
    subprocess.run(["bash", str(SCRIPT), "start"], env=env, check=True, timeout=900)
    yield state
    subprocess.run(["bash", str(SCRIPT), "stop"], env=env, check=True, timeout=120)
    status = subprocess.run(
        ["bash", str(SCRIPT), "status"], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert "running" not in status, status


def test_profile_submits_through_sbatch_retries_and_matches_local(
    cluster, tiny_run, tmp_path, monkeypatch
):
    """The ridge target through sbatch equals the local tiny run's (``tiny_run``)."""
    local, remote = tiny_run, tmp_path / "slurm"
    remote.mkdir()

    # Only what a one-node test cluster needs: no account, its partition, squeue for status
    # (no accounting database), short polling; the test also keeps the per-job SLURM logs.
    # The first attempt of every ridge_fit job fails on purpose (tests/workflow/fault_injection).
    monkeypatch.setenv("KREPRO_SLURM_ACCOUNT", "")
    monkeypatch.setenv("KREPRO_SLURM_PARTITION", "debug")
    fail_once(monkeypatch, tmp_path / "markers", "ridge_fit")
    out = ok(
        snakemake(
            "ridge",
            "--profile",
            str(PROFILE),
            "--slurm-status-command",
            "squeue",
            "--slurm-init-seconds-before-status-checks",
            "2",
            "--latency-wait",
            "5",
            "--slurm-keep-successful-logs",  # keep the evidence that each job ran under SLURM
            workdir=remote,
            config=TINY_CONFIG,
            slurm=True,
        )
    )
    assert len(list((tmp_path / "markers").glob("ridge_fit.*"))) == 4, out

    # Jobs went through sbatch: the plugin's per-job logs and the controller's allocations.
    slurm_logs = list((remote / ".snakemake" / "slurm_logs").rglob("*.log"))
    fitted = [p for p in slurm_logs if "rule_ridge_fit" in p.parts]
    assert len(fitted) == 8, slurm_logs  # 4 jobs, each failed once and retried
    # The controller starts jobs from the main scheduler ("Allocate JobId=") or the backfill
    # scheduler ("Started JobId="): two attempts of each of the 4 ridge_fit jobs; the summary
    # (tables, figure, report section) and the target are local rules.
    controller_log = (cluster / "log" / "slurmctld.log").read_text()
    started = set(re.findall(r"(?:Allocate|Started) JobId=(\d+)", controller_log))
    assert len(started) == 8, controller_log

    for path in RIDGE_TABLES:
        assert (remote / path).read_bytes() == (local / path).read_bytes(), path
    for record_file in (remote / "results" / "ridge" / "runs").rglob("*.json"):
        json.loads(record_file.read_text())


def test_unset_account_variable_is_visible_in_the_profile():
    text = Path(PROFILE / "config.yaml").read_text()
    assert '"${KREPRO_SLURM_ACCOUNT}"' in text and '"${KREPRO_SLURM_PARTITION}"' in text
    assert "cpus_per_task" not in text.split("set-resources:")[0].split("default-resources:")[1]
