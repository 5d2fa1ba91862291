"""Adding a study touches its own folder, its rule file and its config sections, nothing else.

A copy of the repository gets a throw-away study ``toy`` (draws a normal sample, checks "its
mean is 0" against a reference section) in exactly the places the README names for a new
study: ``src/krepro/studies/toy/`` (its claim a check of the judging driver),
``tests/studies/toy/``, ``workflow/rules/toy.smk``, a ``toy`` section in
``config/config.yaml``, ``config/paper.yaml``, ``config/paper_reference.yaml`` and the config
schema. Without any other edit, ``snakemake toy`` runs it, ``snakemake targets`` lists it, and
the default target puts its section and verdicts in ``report.md`` and ``verdicts.csv``; no
computing job of the tiny run is redone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.workflow.test_workflow import (
    REPO,
    TINY_CONFIG,
    job_stats,
    load_yaml,
    ok,
    snakemake_env,
    write_yaml,
)

pytestmark = [pytest.mark.workflow, pytest.mark.slow]

COPIED = ("Snakefile", "workflow", "src", "config", "profiles", "tests")

STUDY_INIT = '''
"""A throw-away study: the mean of a standard normal sample is 0."""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="toy",
    paper=PAPERS["cme"],
    order=1000,
    summary="Toy: the mean of a standard normal sample is 0.",
    outputs=("tables/toy.csv", "report/toy.md"),
    quick_run_time="1 s",
    jobs={"draw": "run:draw", "summary": "report:summary"},
    reference=("cme", "toy"),
)
'''
STUDY_RUN = '''
"""Draws of the toy study."""

import numpy as np

from krepro.records import write_records


def draw(job, log):
    """Job ``toy_draw``: one sample per repetition, from the config's seed."""
    seeds = np.random.SeedSequence(job.params.seed).spawn(job.params.n_repetitions)
    records = [
        {"repetition": k, "mean": float(np.random.default_rng(s).normal(size=job.params.n).mean())}
        for k, s in enumerate(seeds)
    ]
    log.info("%d records", len(records))
    write_records(job.output[0], records, rule=job.rule, wildcards={})
'''
STUDY_REPORT = '''
"""Checks, verdicts and section of the toy study."""

import pandas as pd

from krepro.records import atomic_write_text, read_records
from krepro.stats import mean_se
from krepro.studies.claims import judge_claim
from krepro.studies.judging import ClaimSet, Outcome, judge_readings
from krepro.studies.readings import Reading
from krepro.studies.render import write_section
from krepro.studies.verdicts import Section


def _zero_mean(means, claim, seed):
    result, stability = judge_claim(claim, means, seed=seed)
    return Outcome(f"Mean {means.mean():.3f}.", result, stability, measured=f"{means.mean():.3f}")


CHECKS = {"zero_mean": _zero_mean}


def toy_verdicts(means, reference, *, scale):
    """One verdict per claim of the toy study."""
    reading = Reading("primary", repetitions=len(means))
    claims = ClaimSet("toy", "cme", reference, scale)
    return judge_readings(claims, CHECKS, [reading], lambda r: means)


def summary(job, log):
    """Job ``toy_summary``: the table and the report section."""
    means = pd.DataFrame(read_records([job.input.runs]))["mean"].to_numpy()
    mean, se = mean_se(means)
    atomic_write_text(job.output.table, pd.DataFrame({"mean": [mean], "se": [se]}).to_csv())
    verdicts = toy_verdicts(means, job.params.reference, scale=job.params.scale)
    section = Section(experiment="toy", title="Toy study", verdicts=verdicts)
    write_section(section, job.output.json, job.output.md)
'''
STUDY_TEST = '''
"""The toy study's verdicts, without its section."""

import numpy as np

from krepro.studies.toy.report import toy_verdicts

REFERENCE = {"claims": {"zero_mean": {"text": "The mean is 0.", "source": "a toy",
                                      "test": "equivalence", "margin": 1.0}}}


def test_a_sample_centred_on_zero_has_a_zero_mean():
    (verdict,) = toy_verdicts(np.linspace(-0.5, 0.5, 20), REFERENCE, scale="test")
    assert verdict.verdict == "reproduced" and verdict.protocol == "primary"
'''
RULES = '''
"""Toy study (target: toy)."""


rule toy_draw:
    output:
        results("toy/runs.json"),
    log:
        logs("toy/draw.log"),
    benchmark:
        benchmarks("toy_draw.tsv")
    threads: 1
    resources:
        mem_mb=200,
        runtime=2,
    params:
        seed=config["seed"],
        n=config["toy"]["n"],
        n_repetitions=config["toy"]["n_repetitions"],
        entry=job_entry("toy", "draw"),
        code=job_code("toy", "draw"),
    script:
        STUDY_JOB_SCRIPT


rule toy_summary:
    localrule: True
    input:
        runs=results("toy/runs.json"),
    output:
        table=results("tables/toy.csv"),
        json=results("report/toy.json"),
        md=results("report/toy.md"),
    log:
        logs("toy/summary.log"),
    benchmark:
        benchmarks("toy_summary.tsv")
    threads: 1
    resources:
        mem_mb=200,
        runtime=2,
    params:
        reference=study_reference("toy"),
        scale=config["scale"],
        entry=job_entry("toy", "summary"),
        code=job_code("toy", "summary"),
    script:
        STUDY_JOB_SCRIPT
'''
SECTION = {"n": 50, "n_repetitions": 4}
SCHEMA = {
    "type": "object",
    "description": "The toy study.",
    "additionalProperties": False,
    "required": ["n", "n_repetitions"],
    "properties": {
        "n": {"type": "integer", "minimum": 2, "description": "Sample size."},
        "n_repetitions": {"type": "integer", "minimum": 2, "description": "Repetitions."},
    },
}
REFERENCE = {
    "claims": {
        "zero_mean": {
            "text": "The mean is 0.",
            "source": "a toy",
            "test": "equivalence",
            "margin": 1.0,
        }
    },
}


def add_study(repo: Path) -> list[Path]:
    """Write the toy study into a copy of the repository; returns the files it touched."""
    folder = repo / "src" / "krepro" / "studies" / "toy"
    folder.mkdir()
    touched = []
    for name, text in {
        "__init__.py": STUDY_INIT,
        "run.py": STUDY_RUN,
        "report.py": STUDY_REPORT,
    }.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        touched.append(folder / name)
    tests = repo / "tests" / "studies" / "toy"
    tests.mkdir(parents=True)
    (tests / "test_report.py").write_text(textwrap.dedent(STUDY_TEST).lstrip(), encoding="utf-8")
    touched.append(tests / "test_report.py")
    rules = repo / "workflow" / "rules" / "toy.smk"
    rules.write_text(textwrap.dedent(RULES).lstrip(), encoding="utf-8")
    touched.append(rules)
    for config in ("config.yaml", "paper.yaml"):
        path = repo / "config" / config
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("\n" + yaml.safe_dump({"toy": SECTION}, sort_keys=False))
        touched.append(path)
    reference = repo / "config" / "paper_reference.yaml"
    data = load_yaml(reference)
    data["cme"]["toy"] = REFERENCE
    write_yaml(reference, data)
    schema = repo / "workflow" / "schemas" / "config.schema.yaml"
    data = load_yaml(schema)
    data["properties"]["toy"] = SCHEMA
    write_yaml(schema, data)
    touched += [reference, schema]
    return touched


def run_copy(repo: Path, workdir: Path, *args: str, config: Path) -> subprocess.CompletedProcess:
    """snakemake with the copy's Snakefile and library (PYTHONPATH), in ``workdir``."""
    env = snakemake_env()
    env["PYTHONPATH"] = os.pathsep.join([str(repo / "src"), *filter(None, [env.get("PYTHONPATH")])])
    cmd = [
        sys.executable, "-m", "snakemake", "--snakefile", str(repo / "Snakefile"),
        "--directory", str(workdir), "--cores", "2", *args,
        "--replace-workflow-config", "--configfile", str(config),
    ]  # fmt: skip
    return subprocess.run(
        cmd, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, timeout=600, check=False,
    )  # fmt: skip


def test_a_new_study_runs_lists_and_reports_with_no_other_edit(tiny_run, tmp_path):
    repo, workdir = tmp_path / "repo", tmp_path / "work"
    repo.mkdir()
    for name in COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, repo / name)
    touched = add_study(repo)
    # The tiny run's results and Snakemake's records of them, so that only new jobs run.
    shutil.copytree(tiny_run, workdir, symlinks=True)
    config = write_yaml(tmp_path / "tiny_toy.yaml", {**load_yaml(TINY_CONFIG), "toy": SECTION})

    out = ok(run_copy(repo, workdir, "toy", config=config))
    assert set(job_stats(out)) == {"toy_draw", "toy_summary", "toy"}, out
    table = pd.read_csv(workdir / "results" / "tables" / "toy.csv")
    assert len(table) == 1 and table["se"].iloc[0] > 0

    listing = ok(run_copy(repo, workdir, "targets", "--quiet", "all", config=config))
    assert "\ntoy\n    Toy: the mean of a standard normal sample is 0." in listing, listing
    assert "Outputs: results/tables/toy.csv, results/report/toy.md." in listing, listing

    out = ok(run_copy(repo, workdir, config=config))
    # No job of the tiny run reruns, not even a summary: each reads only its own block of
    # the reference file that gained the toy's block. Only the report gathers the new section.
    assert set(job_stats(out)) == {"report", "all"}, out
    report = (workdir / "results" / "report.md").read_text(encoding="utf-8")
    assert "Toy study" in report and "The mean is 0." in report
    verdicts = pd.read_csv(workdir / "results" / "verdicts.csv")
    toy = verdicts[verdicts["experiment"] == "toy"]
    assert list(toy["claim_id"]) == ["zero_mean"]
    assert toy["verdict"].iloc[0] in {"reproduced", "inconclusive"}
    assert set(verdicts["experiment"]) > {"toy"}  # the other studies' verdicts are still there

    # Its test reaches the verdicts without the section.
    env = snakemake_env()
    env["PYTHONPATH"] = str(repo / "src")
    test = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
         str(repo / "tests" / "studies" / "toy")],
        cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        timeout=300, check=False,
    )  # fmt: skip
    assert test.returncode == 0 and "1 passed" in test.stdout, test.stdout

    # What differs from the repository: the study's folder, its rule file, three config files
    # and the schema, nothing else.
    changed = sorted(
        str(path.relative_to(repo))
        for path in repo.rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and (
            not (REPO / path.relative_to(repo)).is_file()
            or (REPO / path.relative_to(repo)).read_bytes() != path.read_bytes()
        )
    )
    assert changed == [
        "config/config.yaml",
        "config/paper.yaml",
        "config/paper_reference.yaml",
        "src/krepro/studies/toy/__init__.py",
        "src/krepro/studies/toy/report.py",
        "src/krepro/studies/toy/run.py",
        "tests/studies/toy/test_report.py",
        "workflow/rules/toy.smk",
        "workflow/schemas/config.schema.yaml",
    ]
    assert sorted(str(path.relative_to(repo)) for path in touched) == changed
