"""Automatic rerun tracking: editing a krepro module reruns exactly the jobs that import it.

Each rule's ``code`` parameter is a digest of its script and of every krepro module the
script imports, transitively; a study job's script is the generic
workflow/scripts/study_job.py, and its digest adds the job's module (``job_code`` and
``script_code`` in workflow/rules/common.smk, krepro.workflow.codedeps). A copy of the
repository takes over a copy of the tiny run (the ``illustration`` and ``ridge`` targets
are up to date there: the copy's files are the same, so are their digests); then one
module of the copy is edited. ``snakemake -n`` must schedule exactly the jobs whose script
imports it and the jobs downstream of them, and ``snakemake --summary`` must give the status
"params changed" to the outputs of exactly the rules whose script imports it (each output's
recorded params against its rule's params now: an upstream rerun does not mask it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from krepro.studies import STUDIES
from krepro.workflow.codedeps import script_dependencies
from tests.workflow.test_workflow import (
    REPO,
    TINY_CONFIG,
    job_stats,
    ok,
    snakemake_env,
    study_rules,
)

pytestmark = [pytest.mark.workflow, pytest.mark.slow]

TARGETS = ("illustration", "ridge")
ILLUSTRATION_RULES, RIDGE_RULES = (study_rules(name) for name in TARGETS)
DAG_RULES = ILLUSTRATION_RULES | RIDGE_RULES | set(TARGETS)
COPIED = ("Snakefile", "workflow", "src", "config", "profiles")


def run_copy(
    repo: Path, workdir: Path, *args: str, targets: tuple[str, ...] = TARGETS
) -> subprocess.CompletedProcess:
    """snakemake with the copy's Snakefile and library, the tiny config, in ``workdir``.

    Targets go first: options such as --allowed-rules take several values.
    """
    env = snakemake_env()
    env["PYTHONPATH"] = os.pathsep.join([str(repo / "src"), *filter(None, [env.get("PYTHONPATH")])])
    if "KREPRO_DATA_MIRROR" not in env and (REPO.parent / "shared" / "data").is_dir():
        env["KREPRO_DATA_MIRROR"] = str(REPO.parent / "shared" / "data")
    cmd = [
        sys.executable, "-m", "snakemake", "--snakefile", str(repo / "Snakefile"),
        "--directory", str(workdir), "--cores", "2", *targets, *args,
        "--replace-workflow-config", "--configfile", str(TINY_CONFIG),
    ]  # fmt: skip
    return subprocess.run(
        cmd, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, timeout=600, check=False,
    )  # fmt: skip


def rule_outputs(summary: str) -> dict[str, list[str]]:
    """{rule: its output files} from ``snakemake --summary``."""
    outputs: dict[str, list[str]] = {}
    for line in summary.splitlines():
        fields = line.split("\t")
        if len(fields) >= 3 and fields[0].startswith("results/"):
            outputs.setdefault(fields[2], []).append(fields[0])
    return outputs


def output_statuses(summary: str) -> dict[str, tuple[str, str]]:
    """{output file: (rule, status)} from ``snakemake --summary`` (its header names the
    columns)."""
    lines = [line.split("\t") for line in summary.splitlines() if "\t" in line]
    header = next(fields for fields in lines if fields[0] == "output_file")
    rule, status = header.index("rule"), header.index("status")
    return {
        fields[0]: (fields[rule], fields[status])
        for fields in lines
        if fields[0].startswith("results/")
    }


def rule_dependencies() -> dict[str, list[Path]]:
    """{rule: the krepro files its code digest covers} of every rule with a ``script:``."""
    src, scripts = REPO / "src", REPO / "workflow" / "scripts"
    found = {}
    for path in (REPO / "workflow" / "rules").glob("*.smk"):
        for block in re.split(r"(?m)^(?=[ \t]*rule \w+:)", path.read_text(encoding="utf-8"))[1:]:
            name = re.match(r"\s*rule (\w+):", block).group(1)
            job = re.search(r'entry=job_entry\("(\w+)", "(\w+)"\)', block)
            script = re.search(r'^\s+script:\s*\n\s+"\.\./scripts/([\w.]+)"', block, re.M)
            if job:
                module = STUDIES[job.group(1)].module(job.group(2))
                found[name] = script_dependencies(scripts / "study_job.py", src, modules=[module])
            elif script:
                found[name] = script_dependencies(scripts / script.group(1), src)
    return found


@pytest.fixture(scope="module")
def copied_run(tiny_run, tmp_path_factory) -> tuple[Path, Path, dict[str, list[str]]]:
    """A copy of the repository and a copy of the tiny run's working directory: the copy's
    files are the repository's, so the run's recorded code digests hold for it."""
    root = tmp_path_factory.mktemp("code_tracking")
    repo, workdir = root / "repo", root / "work"
    repo.mkdir()
    for name in COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, repo / name)
    shutil.copytree(tiny_run, workdir, symlinks=True)
    assert "Nothing to be done" in ok(run_copy(repo, workdir, "-n"))
    outputs = rule_outputs(ok(run_copy(repo, workdir, "--summary")))
    assert set(outputs) == ILLUSTRATION_RULES | RIDGE_RULES, outputs
    return repo, workdir, outputs


# Jobs that must get "Params have changed" when the module is edited (illustration and ridge
# targets): records.py is used by every job (run records, atomic writes); kernels.py
# by the ridge fits and by the ridge summary (the ridge study imports the estimators);
# studies/render.py by the summaries, which write the report sections; a study's report
# module by its own summary only.
DIRECT = {
    "records.py": ILLUSTRATION_RULES | RIDGE_RULES,
    "kernels.py": {"ridge_fit", "ridge_summary"},
    "studies/render.py": {"illustration_summary", "ridge_summary"},
    "studies/ridge/report.py": {"ridge_summary"},
}
# ... and everything downstream of them (the target rules included).
SCHEDULED = {
    "records.py": DAG_RULES,
    "kernels.py": RIDGE_RULES | {"ridge"},
    "studies/render.py": {"illustration_summary", "ridge_summary", "illustration", "ridge"},
    "studies/ridge/report.py": {"ridge_summary", "ridge"},
}


@pytest.mark.parametrize("module", list(DIRECT))
def test_editing_a_module_reruns_exactly_its_dependent_jobs(copied_run, module):
    repo, workdir, outputs = copied_run
    path = repo / "src" / "krepro" / module
    original = path.read_bytes()

    # the import graph of the scripts agrees with the expectation above
    src = REPO / "src"
    importers = {
        rule
        for rule, files in rule_dependencies().items()
        if rule in DAG_RULES and src / "krepro" / module in files
    }
    assert importers == DIRECT[module]

    try:
        path.write_bytes(original + b"\n# edited\n")
        out = ok(run_copy(repo, workdir, "-n"))
        assert set(job_stats(out)) == SCHEDULED[module], out
        # each output's status, its rule's own params against those recorded with it (an
        # upstream rerun does not mask it): "params changed" or "ok"
        statuses = output_statuses(ok(run_copy(repo, workdir, "--summary")))
        changed = {rule for rule, status in statuses.values() if status == "params changed"}
        assert changed == DIRECT[module], statuses
        assert {status for _, status in statuses.values()} <= {"params changed", "ok"}
        assert {rule for rule, _ in statuses.values()} == set(outputs)
    finally:
        path.write_bytes(original)
    # a revert, or a new modification time alone, reruns nothing
    os.utime(path)
    out = ok(run_copy(repo, workdir, "-n"))
    assert "Nothing to be done" in out, out
