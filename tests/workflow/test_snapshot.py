"""The published snapshot: krepro.workflow.snapshot on a fake results tree (publishing, and
repairing a publish killed between its renames), and the committed snapshots/paper/ (every
file it lists present with its SHA-256, paper scale, ≤ 30 min)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from krepro.workflow.runtime import CPU_RECORD_SUFFIX, job, job_cpu_seconds
from krepro.workflow.snapshot import (
    SnapshotError,
    check_snapshot,
    read_benchmarks,
    read_cpu_records,
    repair_snapshot,
    run_timing,
    verdict_disagreements,
    write_snapshot,
)

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "snapshots" / "paper"
HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
PROVENANCE = {"commit": "abc", "dirty": False, "scale": "paper", "config_sha256": "0" * 64}


def benchmark(path: Path, seconds: float, cpu: float | str, end: float) -> None:
    """A Snakemake benchmark record of one job that ended at ``end`` (its mtime)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{HEADER}{seconds}\t0:00:01\t1\t1\t1\t1\t0\t0\t50\t{cpu}\n")
    os.utime(path, (end, end))


@pytest.fixture
def run(tmp_path) -> Path:
    """A finished run's results_dir: report, verdicts, provenance, tables, figures, records."""
    root = tmp_path / "results" / "paper"
    (root / "tables").mkdir(parents=True)
    (root / "figures").mkdir()
    (root / "report.md").write_text("# Report\n")
    (root / "verdicts.csv").write_text("experiment,verdict\nstudy,reproduced\n")
    (root / "provenance.json").write_text(json.dumps(PROVENANCE))
    (root / "tables" / "study.csv").write_text("a,b\n1,2\n")
    (root / "tables" / "dcm_table3.md").write_text("| a |\n|---|\n| 1 |\n")
    (root / "figures" / "fig4.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    bench = root / "benchmarks"
    t0 = 1_700_000_000.0
    benchmark(bench / "study_fit" / "paper_text" / "experiment-1.tsv", 10.0, 9.5, t0 + 10)
    benchmark(bench / "study_fit" / "paper_text" / "experiment-2.tsv", 20.0, 19.0, t0 + 25)
    benchmark(bench / "study_summary.tsv", 2.0, "NA", t0 + 40)
    return root


def snapshot_of(run: Path, destination: Path, **changes) -> dict:
    arguments = {
        "report": run / "report.md",
        "verdicts": run / "verdicts.csv",
        "provenance": run / "provenance.json",
        "tables": sorted((run / "tables").iterdir()),
        "figures": sorted((run / "figures").iterdir()),
        "benchmarks": run / "benchmarks",
    } | changes
    return write_snapshot(destination, **arguments)


def test_snapshot_files_map_provenance_and_timing(run, tmp_path):
    destination = tmp_path / "snapshots" / "paper"
    record = snapshot_of(run, destination)

    expected = {
        "report.md": run / "report.md",
        "verdicts.csv": run / "verdicts.csv",
        "tables/study.csv": run / "tables" / "study.csv",
        "tables/dcm_table3.md": run / "tables" / "dcm_table3.md",
        "figures/fig4.png": run / "figures" / "fig4.png",
    }
    assert record["files"] == {
        name: hashlib.sha256(source.read_bytes()).hexdigest() for name, source in expected.items()
    }
    for name, source in expected.items():
        assert (destination / name).read_bytes() == source.read_bytes()
    assert sorted(p.relative_to(destination).as_posix() for p in destination.rglob("*.*")) == (
        sorted([*expected, "provenance.json"])
    )
    written = json.loads((destination / "provenance.json").read_text())
    assert written == record
    assert {k: written[k] for k in PROVENANCE} == PROVENANCE  # the run's keys, unchanged
    # Jobs: [0, 10], [5, 25], [38, 40] (start = end - s): the span is 40 s.
    assert written["wall_seconds"] == pytest.approx(40.0)
    assert written["rule_cpu_seconds"] == {"study_fit": 28.5, "study_summary": 0.0}
    assert check_snapshot(destination) == {}
    # No staging or retired directory is left beside the snapshot.
    assert [p.name for p in destination.parent.iterdir()] == ["paper"]


def test_check_snapshot_finds_edited_missing_and_unlisted_files(run, tmp_path):
    destination = tmp_path / "snapshots" / "paper"
    snapshot_of(run, destination)
    (destination / "report.md").write_text("# Edited\n")
    (destination / "figures" / "fig4.png").unlink()
    (destination / "tables" / "extra.csv").write_text("x\n")
    assert check_snapshot(destination) == {
        "report.md": "SHA-256 differs",
        "figures/fig4.png": "missing",
        "tables/extra.csv": "not listed in provenance.json",
    }


def test_snapshot_replaces_the_previous_one_whole(run, tmp_path):
    destination = tmp_path / "snapshots" / "paper"
    snapshot_of(run, destination)
    (run / "tables" / "study.csv").unlink()
    (destination / "stale.txt").write_text("left over")
    record = snapshot_of(run, destination)
    assert "tables/study.csv" not in record["files"]
    assert not (destination / "tables" / "study.csv").exists()
    assert not (destination / "stale.txt").exists()
    assert [p.name for p in destination.parent.iterdir()] == ["paper"]


def test_missing_table_fails_clearly_and_keeps_the_old_snapshot(run, tmp_path):
    destination = tmp_path / "snapshots" / "paper"
    snapshot_of(run, destination)
    before = {p: p.read_bytes() for p in destination.rglob("*") if p.is_file()}
    missing = run / "tables" / "other_table.csv"
    tables = [*sorted((run / "tables").iterdir()), missing]
    with pytest.raises(SnapshotError, match=r"missing table .*other_table\.csv"):
        snapshot_of(run, destination, tables=tables)
    assert {p: p.read_bytes() for p in destination.rglob("*") if p.is_file()} == before
    assert [p.name for p in destination.parent.iterdir()] == ["paper"]


def test_two_tables_with_one_name_are_refused(run, tmp_path):
    other = run / "other" / "study.csv"
    other.parent.mkdir()
    other.write_text("x\n")
    tables = [run / "tables" / "study.csv", other]
    with pytest.raises(SnapshotError, match=r"both be tables/study\.csv"):
        snapshot_of(run, tmp_path / "snapshots" / "paper", tables=tables)
    assert not (tmp_path / "snapshots" / "paper").exists()


def tree(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` by its relative path, with its bytes."""
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def hidden_beside(destination: Path) -> list[str]:
    return sorted(p.name for p in destination.parent.iterdir() if p.name.startswith("."))


def test_second_rename_failing_puts_the_previous_snapshot_back(run, tmp_path, monkeypatch):
    destination = tmp_path / "snapshots" / "paper"
    snapshot_of(run, destination)
    before = tree(destination)
    (run / "report.md").write_text("# New report\n")
    real_replace = os.replace

    def replace(source, target):
        if Path(source).name.startswith(".paper.staging-"):
            raise OSError("disk gone")
        real_replace(source, target)

    monkeypatch.setattr("krepro.workflow.snapshot.os.replace", replace)
    with pytest.raises(OSError, match="disk gone"):
        snapshot_of(run, destination)
    assert tree(destination) == before
    assert hidden_beside(destination) == []


# A publish in a subprocess that dies (os._exit: no cleanup, as under SIGKILL) at the second
# rename, after the previous snapshot was moved aside and before the new one took its place.
KILLED_PUBLISH = """
import json, os, sys
from pathlib import Path
import krepro.workflow.snapshot as snapshot

real_replace = os.replace
def replace(source, target):
    if Path(source).name.startswith(".paper.staging-"):
        os._exit(9)
    real_replace(source, target)
snapshot.os.replace = replace
arguments = json.loads(sys.argv[1])
snapshot.write_snapshot(arguments.pop("destination"), **arguments)
"""


def kill_a_publish(run: Path, destination: Path) -> None:
    arguments = {
        "destination": str(destination),
        "report": str(run / "report.md"),
        "verdicts": str(run / "verdicts.csv"),
        "provenance": str(run / "provenance.json"),
        "tables": [str(p) for p in sorted((run / "tables").iterdir())],
        "figures": [str(p) for p in sorted((run / "figures").iterdir())],
        "benchmarks": str(run / "benchmarks"),
    }
    path = [str(REPO / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_PUBLISH, json.dumps(arguments)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(path)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert killed.returncode == 9, killed.stderr


@pytest.mark.parametrize("next_run", ["repair", "publish", "failed-publish"])
def test_publish_killed_between_its_renames_is_repaired_by_the_next_run(run, tmp_path, next_run):
    destination = tmp_path / "snapshots" / "paper"
    snapshot_of(run, destination)
    before = tree(destination)
    (run / "report.md").write_text("# New report\n")
    kill_a_publish(run, destination)
    # The crash left neither snapshot in place: the old one retired, the new one staged.
    assert not destination.exists()
    left = hidden_beside(destination)
    assert [name.split("-")[0] for name in left] == [".paper.retired", ".paper.staging"]

    if next_run == "repair":
        done = repair_snapshot(destination)
        assert done[0].startswith(f"restored {destination} from .paper.retired-")
        assert len(done) == 3  # restored, and the two directories removed
        assert tree(destination) == before
        assert repair_snapshot(destination) == []  # nothing left to repair
    elif next_run == "publish":
        record = snapshot_of(run, destination)
        assert (destination / "report.md").read_text() == "# New report\n"
        assert json.loads((destination / "provenance.json").read_text()) == record
    else:  # a publish that fails on a missing input still puts the old snapshot back
        with pytest.raises(SnapshotError, match="missing"):
            snapshot_of(run, destination, report=run / "absent.md")
        assert tree(destination) == before
    assert check_snapshot(destination) == {}
    assert hidden_beside(destination) == []


def test_leftovers_of_earlier_versions_are_repaired_and_other_directories_kept(run, tmp_path):
    """Earlier versions named staging and retired directories alike (``.paper.<8 chars>``)."""
    destination = tmp_path / "snapshots" / "paper"
    snapshot_of(run, destination)
    before = tree(destination)
    retired = tmp_path / "snapshots" / ".paper.k2_x9q0z"
    retired.mkdir()
    destination.rename(retired / "paper")
    staging = tmp_path / "snapshots" / ".paper.ab12cd34"
    (staging / "tables").mkdir(parents=True)
    (staging / "report.md").write_text("# Half-written\n")
    mine = tmp_path / "snapshots" / ".paper.backup"
    mine.mkdir()
    done = repair_snapshot(destination)
    assert done == [
        f"restored {destination} from .paper.k2_x9q0z (a publish was interrupted)",
        f"removed {staging}",
        f"removed {retired}",
    ]
    assert tree(destination) == before
    assert hidden_beside(destination) == [".paper.backup"]


def test_timing_from_synthetic_benchmark_records(tmp_path):
    assert run_timing(tmp_path / "none") == (0.0, {})
    benchmark(tmp_path / "a.tsv", 100.0, 90.0, 1000.0)  # [900, 1000]
    benchmark(tmp_path / "b" / "x" / "y.tsv", 30.0, 29.0, 2000.0)  # [1970, 2000]
    benchmark(tmp_path / "b" / "z.tsv", 1.5, 1.25, 1500.0)  # [1498.5, 1500]
    jobs = read_benchmarks(tmp_path)
    assert list(jobs["rule"]) == ["a", "b", "b"]
    assert list(jobs["start"]) == [900.0, 1970.0, 1498.5]
    # A second session (b, hours later) stretches the span: resumed runs span every session.
    assert run_timing(tmp_path) == (pytest.approx(1100.0), {"a": 90.0, "b": 30.25})


def test_benchmark_record_without_cpu_time_is_refused(tmp_path):
    (tmp_path / "r.tsv").write_text("s\n1.0\n")
    with pytest.raises(SnapshotError, match="cpu_time"):
        read_benchmarks(tmp_path)


# --------------------------------------------------------------------------- committed snapshot


needs_snapshot = pytest.mark.skipif(
    not COMMITTED.is_dir(),
    reason="snapshots/paper/ is not committed yet: it is written by "
    "`snakemake snapshot --configfile config/paper.yaml --cores 2` (README, The results)",
)
# The papers' scale runs in 30 minutes on 2 cores (the committed run's provenance.json holds
# the measured wall_seconds and the CPU seconds of every rule).
WALL_GOAL_SECONDS = 1800


def committed_provenance():
    return json.loads((COMMITTED / "provenance.json").read_text(encoding="utf-8"))


@needs_snapshot
def test_committed_paper_snapshot_is_whole():
    provenance = committed_provenance()
    assert provenance["scale"] == "paper"
    assert provenance["dirty"] is False, "the snapshot must come from a committed tree"
    assert {"report.md", "verdicts.csv"} <= set(provenance["files"])
    for name, digest in provenance["files"].items():
        path = COMMITTED / name
        assert path.is_file(), f"{name} is listed in provenance.json but missing"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest, name
    assert check_snapshot(COMMITTED) == {}
    assert provenance["wall_seconds"] > 0
    assert provenance["rule_cpu_seconds"], "no CPU seconds per rule"


@needs_snapshot
@pytest.mark.skipif(not (REPO / ".git").exists(), reason="not a git checkout")
def test_committed_paper_snapshot_names_a_commit_of_this_history():
    commit = committed_provenance()["commit"]
    found = subprocess.run(
        ["git", "merge-base", "--is-ancestor", commit, "HEAD"], cwd=REPO, check=False
    )
    assert found.returncode == 0, f"{commit} is not an ancestor of HEAD"


@needs_snapshot
@pytest.mark.xfail(
    strict=True,
    reason="the committed run took 2,592 s on 2 cores (4,851 CPU-s; README, Paper scale); remove"
    " this marker with the first snapshot that meets the goal",
)
def test_committed_paper_snapshot_ran_within_30_minutes():
    assert committed_provenance()["wall_seconds"] <= WALL_GOAL_SECONDS


def test_exact_cpu_records_replace_sampled_cpu_time(tmp_path):
    benchmarks, logs = tmp_path / "benchmarks", tmp_path / "logs"
    benchmark(benchmarks / "a.tsv", 100.0, 15.0, 1000.0)  # sampled: misses the job's end
    benchmark(benchmarks / "b.tsv", 10.0, 9.0, 1000.0)
    for name, rule, cpu in [
        ("a/1.log", "a", 60.0),
        ("a/2.log", "a", 38.5),
        ("s.log", "snapshot", 4.0),
    ]:
        path = logs / (name + CPU_RECORD_SUFFIX)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"rule": rule, "cpu_seconds": cpu}))
    assert list(read_cpu_records(logs)["rule"]) == ["a", "a", "snapshot"]
    # a: exact sum of its two jobs; b: no record, sampled value; snapshot: not part of the run.
    assert run_timing(benchmarks, logs)[1] == {"a": 98.5, "b": 9.0}
    assert run_timing(benchmarks)[1] == {"a": 15.0, "b": 9.0}


def test_job_writes_its_exact_cpu_record(tmp_path):
    log = tmp_path / "x.log"
    fake = SimpleNamespace(log=[str(log)], rule="r", wildcards={"k": 1}, threads=1)
    with job(fake):
        before = job_cpu_seconds()
        sum(i * i for i in range(300_000))
    record = json.loads(Path(str(log) + CPU_RECORD_SUFFIX).read_text())
    assert record["rule"] == "r" and record["wildcards"] == {"k": "1"}
    assert record["cpu_seconds"] > before > 0
    assert "CPU-s" in log.read_text()


def test_verdict_disagreements_ignore_inconclusive_quick_and_non_robust_paper():
    columns = ["experiment", "claim_id", "primary", "verdict", "robustness"]
    quick = pd.DataFrame(
        [
            ["e", "a", True, "reproduced", "robust"],
            ["e", "b", True, "inconclusive", "single"],
            ["e", "c", True, "reproduced", "fragile"],
            ["e", "d", True, "not reproduced", "robust"],
            ["e", "d", False, "reproduced", "robust"],
        ],
        columns=columns,
    )
    paper = pd.DataFrame(
        [
            ["e", "a", True, "reproduced", "robust"],
            ["e", "b", True, "not reproduced", "robust"],
            ["e", "c", True, "not reproduced", "fragile"],
            ["e", "d", True, "reproduced", "robust"],
            ["e", "d", False, "not reproduced", "robust"],
        ],
        columns=columns,
    )
    found = verdict_disagreements(quick, paper)
    assert found.to_dict("records") == [
        {
            "experiment": "e",
            "claim_id": "d",
            "quick": "not reproduced",
            "paper": "reproduced",
            "robustness": "robust",
        }
    ]
    assert verdict_disagreements(paper, paper).empty
