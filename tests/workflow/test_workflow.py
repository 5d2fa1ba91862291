"""The Snakemake workflow as a user runs it: `snakemake` as a subprocess.

Covers the DAG of the default config, `snakemake --lint`, a tiny end-to-end run, rerun
granularity (a ridge parameter reruns only the ridge jobs), determinism across --cores, and
config-schema rejection before any job runs. Everything except the lint and the default
dry-runs happens in temporary working directories (`--directory`), with
tests/config/tiny.yaml as the only config (`--replace-workflow-config --configfile`).
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from krepro.data.download import DATASETS
from krepro.studies import STUDIES
from krepro.studies.verdicts import KINDS, detail_disagreements
from krepro.workflow.snapshot import check_snapshot
from tests.studies.dcm_parkinsons.test_run import parkinsons_fit_jobs

pytestmark = pytest.mark.workflow

REPO = Path(__file__).resolve().parents[2]
SNAKEFILE = REPO / "Snakefile"
DEFAULT_CONFIG = REPO / "config" / "config.yaml"
TINY_CONFIG = REPO / "tests" / "config" / "tiny.yaml"
FAULT_INJECTION = Path(__file__).resolve().parent / "fault_injection"

TIMEOUT_S = 600
CONDA_LINT = "Specify a conda environment or container for each rule"
VERDICTS = ("reproduced", "partly reproduced", "inconclusive", "not reproduced")


def study_rules(name: str) -> set[str]:
    """The rules of a study's own rule file, workflow/rules/<name>.smk."""
    text = (REPO / "workflow" / "rules" / f"{name}.smk").read_text(encoding="utf-8")
    return set(re.findall(r"(?m)^\s*rule (\w+):", text))  # indented: inside an `if`


ILLUSTRATION_RULES = study_rules("illustration")
RIDGE_RULES = study_rules("ridge")
# Every study's target outputs and report section, and the run's report files.
OUTPUTS = [
    *(f"results/{path}" for study in STUDIES.values() for path in study.outputs),
    *(f"results/{study.section}" for study in STUDIES.values()),
    "results/tables/ridge_best_constant.csv",
    "results/ridge/ridge.csv",
    "results/illustration/points.csv",
    "results/coverage/repetitions.csv",
    "results/report.md",
    "results/verdicts.csv",
    "results/provenance.json",
    "results/report/summary.html",
]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Files that must not depend on --cores or on job order (the run records also hold CPU
# times, so they are compared through the tidy table results/ridge/ridge.csv).
DETERMINISTIC = [
    "results/tables/ridge.csv",
    "results/ridge/ridge.csv",
    "results/tables/ridge_best_constant.csv",
    "results/tables/illustration.csv",
    "results/illustration/points.csv",
    "results/tables/cme.csv",
    "results/tables/cme_oblivious.csv",
    "results/tables/dcm_table3.csv",
    "results/dcm_synthetic/fig2_projections.csv",
    "results/tables/students.csv",
    "results/tables/adult_table1.csv",
    "results/tables/coverage_table1.csv",
    "results/coverage/repetitions.csv",
    "results/tables/oblivious_rates.csv",
    "results/tables/projection.csv",
]


# --------------------------------------------------------------------------- helpers


NO_SLURM_CONTROLLER = Path(__file__).resolve().parent / "no_slurm_controller"


def snakemake_env(*, slurm: bool = False) -> dict[str, str]:
    """The test session's environment: offline machines (and CI) read the UCI files from
    KREPRO_DATA_MIRROR (tests/conftest.py defaults it to the mirror beside the checkout);
    without it the download rule goes to UCI.

    Unless ``slurm``, the stand-in ``scontrol`` of tests/workflow/no_slurm_controller comes
    first on PATH: the SLURM executor plugin asks ``scontrol`` for the cluster's config at
    every snakemake start, which takes ~9 s where a SLURM client has no controller to ask
    (the CI machine once the SLURM test has stopped its cluster).
    """
    env = dict(os.environ)
    if not slurm:
        env["PATH"] = os.pathsep.join([str(NO_SLURM_CONTROLLER), env.get("PATH", os.defpath)])
    return env


def snakemake_command(
    *args: str,
    workdir: Path | None = None,
    config: Path | None = None,
    cores: int = 2,
) -> list[str]:
    """The snakemake command line; targets go in `args` (before --configfile, which takes
    several values).

    With `workdir`, the workflow runs there (`--directory`); with `config`, that file is the
    whole config (`--replace-workflow-config`).
    """
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE)]
    if workdir is not None:
        cmd += ["--directory", str(workdir)]
    cmd += ["--cores", str(cores), *args]
    if config is not None:
        cmd += ["--replace-workflow-config", "--configfile", str(config)]
    return cmd


def snakemake(
    *args: str,
    workdir: Path | None = None,
    config: Path | None = None,
    cores: int = 2,
    slurm: bool = False,
) -> subprocess.CompletedProcess:
    """Run :func:`snakemake_command` (in `workdir` if given); output is stdout and stderr
    combined. ``slurm``: with the machine's own ``scontrol`` (:func:`snakemake_env`)."""
    return subprocess.run(
        snakemake_command(*args, workdir=workdir, config=config, cores=cores),
        env=snakemake_env(slurm=slurm),
        cwd=workdir if workdir is not None else REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def fail_once(monkeypatch, marker_dir: Path, *rules: str) -> None:
    """Make the first attempt of every job of `rules` fail, in the snakemake runs this test
    starts: the test-only hook tests/workflow/fault_injection/sitecustomize.py, put first on
    PYTHONPATH; it leaves one marker file per failed job in `marker_dir`."""
    paths = [str(FAULT_INJECTION), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    monkeypatch.setenv("KREPRO_FAIL_ONCE", f"{marker_dir}:{','.join(rules)}")


def ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, f"snakemake failed ({result.returncode}):\n{result.stdout}"
    return result.stdout


def job_stats(output: str) -> dict[str, int]:
    """The first "Job stats:" table of snakemake's output, as {rule: count}."""
    lines = output.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == "Job stats:"]
    assert starts, f"no 'Job stats:' table in the output:\n{output}"
    counts: dict[str, int] = {}
    for line in lines[starts[0] + 1 :]:
        fields = line.split()
        if fields == ["job", "count"] or set(line.strip()) <= {"-", " "}:
            continue
        match = re.fullmatch(r"\s*(\S+)\s+(\d+)\s*", line)
        assert match, f"unexpected line in the job stats table: {line!r}"
        rule, count = match.group(1), int(match.group(2))
        if rule == "total":
            assert count == sum(counts.values()), f"total {count} != sum of {counts}"
            return counts
        counts[rule] = count
    raise AssertionError(f"job stats table without a 'total' line:\n{output}")


def load_yaml(path: Path) -> dict:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def write_yaml(path: Path, data: dict) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(data, handle, sort_keys=False)
    return path


def n_ridge_fits(config: dict) -> int:
    ridge = config["ridge"]
    return len(ridge["variants"]) * len(ridge["experiments"])


def n_coverage_shards(config: dict) -> int:
    settings = config["coverage"]
    return sum(
        math.ceil(variant["n_repetitions"] / settings["shard_size"])
        for variant in settings["variants"].values()
    )


def n_cme_oblivious_fits(config: dict) -> int:
    settings = config["cme_oblivious"]
    return len(settings["sensitive_dims"]) * len(settings["experiments"])


def markdown_tables(text: str) -> list[list[dict[str, str]]]:
    """Every pipe table of a Markdown document, as lists of {header: cell}."""
    tables, block = [], []
    for line in [*text.splitlines(), ""]:
        if line.strip().startswith("|"):
            block.append([cell.strip() for cell in line.strip().strip("|").split("|")])
            continue
        if len(block) >= 2:
            header, rows = block[0], [r for r in block[1:] if not set("".join(r)) <= set("-: ")]
            tables.append([dict(zip(header, row, strict=True)) for row in rows])
        block = []
    return tables


# --------------------------------------------------------------------------- fixtures


def console_file(workdir: Path) -> Path:
    """Where the tiny_run fixture keeps the console output of its run (beside the workdir)."""
    return workdir.with_name(f"{workdir.name}_console.txt")


# --------------------------------------------------------------------------- DAG and lint


def expected_job_counts(config: dict) -> dict[str, int]:
    """Jobs per rule that the config implies (rules not named here run once)."""
    return {
        "ridge_fit": n_ridge_fits(config),
        "cme_oblivious_fit": n_cme_oblivious_fits(config),
        "dcm_synthetic_fit": len(config["dcm_synthetic"]["etas"])
        * len(config["dcm_synthetic"]["gammas"])
        * len(config["dcm_synthetic"]["centring"])
        * len(config["dcm_synthetic"]["b_scale"]),
        **parkinsons_fit_jobs(config),
        "students_fit": sum(
            len(spec["variants"]) for spec in config["students"]["c_selections"].values()
        ),
        "coverage_shard": n_coverage_shards(config),
        "rates_run": len(config["rates"]["finite"]["n_values"])
        + len(config["rates"]["continuous"]["dims"]),
        "projection_run": len(config["projection"]["gammas"]),
        "adult_fit": len(config["adult"]["protocols"])
        * len(config["adult"]["run_grids"])
        * config["adult"]["n_splits"],
        "adult_full_fit": len(config["adult_full"]["methods"]),
        "fair_regression_fit": len(config["fair_regression"]["datasets"]),
    }


# Rules that a config can leave without jobs (Parkinson's: one fit rule per reading layout).
OPTIONAL_RULES = {"dcm_parkinsons_fit", "dcm_parkinsons_fit_readings"}


@pytest.mark.parametrize("target", [*STUDIES, "all"])
def test_default_config_dry_run_schedules_expected_rules(target):
    """`snakemake -n` in the repository, default config: the DAG of each target is its own
    rule file's rules (all of them for `all`, with the report), the downloads its studies
    declare, and nothing else.

    --forceall makes the plan independent of whatever results/ the checkout already holds.
    """
    out = ok(snakemake("-n", "--forceall", target))
    assert "Shell command: None" not in out  # script rules have no shell command to print
    stats = job_stats(out)
    studies = list(STUDIES) if target == "all" else [target]
    expected = set().union(*(study_rules(name) for name in studies)) | {target}
    expected |= {"report"} if target == "all" else set()
    config = load_yaml(DEFAULT_CONFIG)
    counts = expected_job_counts(config)
    optional = OPTIONAL_RULES - set(counts)
    assert set(stats) - {"fetch_dataset"} == expected - optional, out
    # Downloads: the files of the data sets the studies declare, each fetched once.
    datasets = {dataset for name in studies for dataset in STUDIES[name].datasets}
    fetched = set(re.findall(r"output: resources/(\w+)/[\w.]+", out))
    assert fetched == datasets, (fetched, datasets)
    counts["fetch_dataset"] = len(set(re.findall(r"output: (resources/\w+/[\w.]+)", out)))
    assert all(name in DATASETS for name in datasets)
    for rule, count in stats.items():
        assert count == counts.get(rule, 1), (rule, stats)


def test_lint_reports_only_the_conda_advice():
    """`snakemake --lint` finds nothing but the per-rule conda-environment advice."""
    result = snakemake("--lint")
    out = result.stdout
    # snakemake --lint exits 1 whenever it reports anything, 0 when it reports nothing.
    assert result.returncode in (0, 1), out
    assert "Traceback" not in out, out
    assert not re.search(r"^\w*(Error|Exception)\b", out, flags=re.MULTILINE), out
    lints = re.findall(r"^\s+\* (.+?):?\s*$", out, flags=re.MULTILINE)
    if result.returncode == 1:
        assert lints, f"snakemake --lint failed without naming a lint:\n{out}"
    other = [lint for lint in lints if CONDA_LINT not in lint]
    assert not other, f"unexpected lints {other}:\n{out}"


def scheduler_span_seconds() -> float:
    """The ``max-jobs-per-timespan`` span of profiles/default (``"<jobs>/<number>s"``)."""
    profile = load_yaml(REPO / "profiles" / "default" / "config.yaml")
    match = re.fullmatch(r"(\d+)/(\d+)s", str(profile["max-jobs-per-timespan"]))
    assert match, profile["max-jobs-per-timespan"]
    return float(match.group(2))


def test_snakemake_exits_within_one_scheduler_span(tmp_path):
    """profiles/default sets a 10-s ``max-jobs-per-timespan`` span (a documented option): the
    scheduler's re-evaluation passes are 10 times rarer than with the default 1-s span, and a
    finished run waits at most one span for the last pending re-evaluation before it exits."""
    span = scheduler_span_seconds()
    assert 1 < span <= 10, span
    process = subprocess.Popen(
        snakemake_command("targets", workdir=tmp_path, config=TINY_CONFIG, cores=1),
        env=snakemake_env(),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines, done_at = [], None
    for line in process.stdout:
        lines.append(line)
        if done_at is None and "(100%) done" in line:
            done_at = time.monotonic()
    returncode = process.wait(timeout=TIMEOUT_S)
    exited_at = time.monotonic()
    output = "".join(lines)
    assert returncode == 0, output
    assert done_at is not None, output
    assert exited_at - done_at < span + 5, (exited_at - done_at, output)


# --------------------------------------------------------------------------- tiny run


@pytest.mark.smoke
def test_one_study_runs_end_to_end(tmp_path):
    """The fast lane's end-to-end run: ``snakemake adult`` on the tiny config, from the UCI
    download (the offline mirror, checksums verified) through the fits to Table 1, its
    figure and its report section. The whole tiny run (every study and the report) is the
    workflow lane's ``tiny_run``."""
    out = ok(snakemake("adult", workdir=tmp_path, config=TINY_CONFIG))
    stats = job_stats(out)
    assert {"adult_fit", "adult_summary", "adult"} <= set(stats), out
    assert not set(stats) & {"report", "all"}, out  # the target, not the default
    for path in (*STUDIES["adult"].outputs, STUDIES["adult"].section):
        assert (tmp_path / "results" / path).stat().st_size > 0, path
    assert (tmp_path / "results/figures/adult_table1.png").read_bytes()[:8] == PNG_SIGNATURE
    table = pd.read_csv(tmp_path / "results/tables/adult_table1.csv")
    assert len(table) > 0 and table.notna().any(axis=None)


@pytest.mark.slow
def test_tiny_run_outputs(tiny_run, tiny):
    for path in OUTPUTS:
        assert (tiny_run / path).is_file(), f"missing {path}"
        assert (tiny_run / path).stat().st_size > 0, f"empty {path}"
    figures = (
        "oblivious_fig2.png",
        "oblivious_fig4.png",
        "cme.png",
        "cme_oblivious.png",
        "fair_regression.png",
    )
    for figure in (*figures, "coverage_fig1.png", "coverage_fig1_lines.png", "coverage_rmse.png"):
        assert (tiny_run / "results/figures" / figure).read_bytes()[:8] == PNG_SIGNATURE


def test_tiny_run_adult_primary_methods_only_in_the_primary_reading(tiny_run, tiny):
    adult = tiny["adult"]
    runs = pd.read_csv(tiny_run / "results/adult/adult.csv")
    primary = (adult["primary_protocol"], adult["primary_grid"])
    for (protocol, grid), methods in runs.groupby(["protocol", "grid"])["method"]:
        variants = {
            v["method"]
            for v in adult["variants"].values()
            if (v["protocol"], v["grid"]) == (protocol, grid)
        }
        expected = set(adult["methods"]) | variants
        if (protocol, grid) == primary:
            expected |= set(adult["primary_methods"])
        assert set(methods) == expected, (protocol, grid, sorted(set(methods)))


@pytest.mark.slow
def test_tiny_run_ridge_table(tiny_run, tiny):
    ridge = tiny["ridge"]
    table = pd.read_csv(tiny_run / "results/tables/ridge.csv")
    required = {"variant", "experiment", "gamma", "method", "mse_mean", "mse_sd", "n_reps"}
    assert required <= set(table.columns), table.columns
    assert set(table["method"]) == {"KRR", "ORR", "M-ORR"}
    assert set(table["variant"]) == set(ridge["variants"])
    assert set(table["experiment"]) == set(ridge["experiments"])
    assert sorted(set(table["gamma"])) == pytest.approx(sorted(ridge["gammas"]))
    keys = ["variant", "experiment", "gamma", "method"]
    assert not table.duplicated(keys).any()
    assert len(table) == len(ridge["variants"]) * len(ridge["experiments"]) * len(
        ridge["gammas"]
    ) * len({"KRR", "ORR", "M-ORR"})
    assert (table["n_reps"] == ridge["n_repetitions"]).all()
    assert all(math.isfinite(v) and v > 0 for v in table["mse_mean"])
    assert (table["mse_sd"] >= 0).all()

    # The aggregate is the mean over the tidy per-repetition table.
    runs = pd.read_csv(tiny_run / "results/ridge/ridge.csv")
    assert {*keys, "repetition", "test_mse"} <= set(runs.columns), runs.columns
    per_setting = runs.groupby(keys)["test_mse"].agg(["mean", "size"]).reset_index()
    merged = table.merge(per_setting, on=keys, validate="one_to_one")
    assert len(merged) == len(table)
    assert (merged["size"] == ridge["n_repetitions"]).all()
    assert merged["mse_mean"].to_numpy() == pytest.approx(merged["mean"].to_numpy(), rel=1e-9)


@pytest.mark.slow
def test_tiny_run_report_verdicts_on_best_constant(tiny_run, tiny):
    """report.md compares the best S-independent MSE with the paper's 56.2 and 224.8.

    The reproduced value is a closed form, Var(S²)·c² + Var ε for S ~ U[low, high] (c = 1
    in experiment 1, 2 in experiment 2), so the verdict does not depend on the tiny sizes.
    """
    ridge = tiny["ridge"]
    report = (tiny_run / "results/report.md").read_text(encoding="utf-8")
    assert "Ridge" in report and "Illustration" in report
    paper = {1: 56.2, 2: 224.8}
    low, high = ridge["partition"]["low"], ridge["partition"]["high"]
    var_s2 = (high**5 - low**5) / (5 * (high - low)) - (
        (high**3 - low**3) / (3 * (high - low))
    ) ** 2

    rows = [
        row
        for table in markdown_tables(report)
        for row in table
        if {"experiment", "variant", "paper", "tolerance"} <= set(row)
    ]
    assert rows, f"no best-constant table (experiment | variant | paper | … ):\n{report}"
    seen = set()
    for row in rows:
        experiment, variant = int(row["experiment"]), row["variant"]
        seen.add((experiment, variant))
        assert float(row["paper"]) == pytest.approx(paper[experiment])
        reproduced = next(value for key, value in row.items() if key.startswith("reproduced"))
        expected = var_s2 * experiment**2 + ridge["variants"][variant]["noise_variance"]
        assert float(reproduced) == pytest.approx(expected, abs=1e-3)
    assert seen == {(e, v) for e in ridge["experiments"] for v in ridge["variants"]}

    # The verdicts as data: one row per (experiment, claim, reading), one primary per claim.
    verdicts = pd.read_csv(tiny_run / "results/verdicts.csv")
    assert set(verdicts["verdict"]) <= set(VERDICTS)
    assert set(verdicts["robustness"]) <= {"robust", "fragile", "single"}
    assert (verdicts["scale"] == tiny["scale"]).all()
    primaries = verdicts[verdicts["primary"]].groupby(["experiment", "claim_id"]).size()
    assert (primaries == 1).all(), primaries[primaries != 1]
    best = verdicts[verdicts["claim_id"] == "best_constant_mse"]
    # Closed form, within the 2% tolerance of config/paper_reference.yaml (about 1.1% off).
    assert set(best["verdict"]) == {"reproduced"} and best["n_repetitions"].isna().all()
    # Every claim has a kind; a claim judged over repetitions states its test, its interval
    # and its stability, and no detail states another verdict than its row.
    assert set(verdicts["kind"]) <= set(KINDS)
    judged = verdicts[verdicts["n_repetitions"].notna() & (verdicts["kind"] != "identity")]
    assert judged["test"].notna().all(), judged[judged["test"].isna()][["experiment", "claim_id"]]
    # (no stability where the tiny grid holds none of a claim's settings, e.g. coverage's
    # P >= 256, or a reading has fewer than two repetitions: nothing to resample)
    assert judged["stability"].dropna().between(0, 1).all()
    assert "min_repetitions" not in verdicts.columns
    disagreements = [
        (row.experiment, row.claim_id, row.protocol)
        for row in verdicts.itertuples(index=False)
        if detail_disagreements(row)
    ]
    assert not disagreements

    provenance = json.loads((tiny_run / "results/provenance.json").read_text(encoding="utf-8"))
    assert provenance["scale"] == tiny["scale"]
    assert {"commit", "dirty", "config_sha256", "versions", "date"} <= set(provenance)
    assert report.index("## Provenance") < report.index("## Scorecard") < report.index("Ridge")


@pytest.mark.slow
def test_tiny_run_console_is_readable(tiny_run):
    """No "Shell command: None" for script rules; job log lines name their job."""
    console = console_file(tiny_run).read_text(encoding="utf-8")
    assert "Shell command: None" not in console
    labelled = re.findall(r" INFO (ridge_fit\[variant=\w+, experiment=\d\]): done in ", console)
    assert len(set(labelled)) == n_ridge_fits(load_yaml(TINY_CONFIG)), console
    assert re.search(r" INFO ridge_summary: done in ", console), console


@pytest.mark.slow
def test_tiny_run_console_ends_with_the_report(tiny_run, tiny):
    """A run that writes report.md names it, and the HTML command, in its last lines."""
    console = console_file(tiny_run).read_text(encoding="utf-8")
    tail = "\n".join(console.splitlines()[-6:])
    results = tiny.get("results_dir", "results")
    assert f"Report: {results}/report.md" in tail, tail
    assert f" --report {results}/report.html" in tail, tail
    assert f"--configfile {TINY_CONFIG}" in tail, tail


@pytest.mark.slow
def test_tiny_run_snapshot_and_html_report(tiny_run, tiny):
    """`snakemake snapshot` after the run: only the snapshot job runs; snapshots/<scale>/
    holds the report, verdicts, every table and figure, and provenance.json with the run's
    provenance, its span, CPU seconds per rule (every rule that ran has a benchmark record)
    and each file's SHA-256. The HTML report renders the summary jobs' figures and tables."""
    out = ok(snakemake("snapshot", workdir=tiny_run, config=TINY_CONFIG))
    assert job_stats(out) == {"snapshot": 1}, out
    snapshot = tiny_run / "snapshots" / tiny["scale"]
    assert check_snapshot(snapshot) == {}
    provenance = json.loads((snapshot / "provenance.json").read_text(encoding="utf-8"))
    results = tiny_run / "results"
    published = {
        f"{path.parent.name}/{path.name}"
        for pattern in ("tables/*.csv", "tables/*.md", "figures/*.png")
        for path in results.glob(pattern)
    }
    assert set(provenance["files"]) == {"report.md", "verdicts.csv"} | published
    assert (snapshot / "report.md").read_bytes() == (results / "report.md").read_bytes()
    run_provenance = json.loads((results / "provenance.json").read_text(encoding="utf-8"))
    assert {key: provenance[key] for key in run_provenance} == run_provenance
    ran = set(job_stats(console_file(tiny_run).read_text(encoding="utf-8"))) - {"all"}
    assert set(provenance["rule_cpu_seconds"]) == ran
    assert 0 < provenance["wall_seconds"] < TIMEOUT_S

    ok(snakemake("--report", "report.html", workdir=tiny_run, config=TINY_CONFIG))
    html = (tiny_run / "report.html").read_text(encoding="utf-8")
    for name in ("oblivious_fig4.png", "coverage_rmse.png", "dcm_table4.csv", "verdicts.csv"):
        assert name in html, name
    # The landing page (workflow/report/workflow.rst) names this run's scale and links the
    # scorecard.
    assert "This run:" in html and "summary.html" in html


@pytest.mark.slow
def test_failed_job_shows_its_log_and_a_retry_recovers(tiny_run, tmp_path, monkeypatch):
    """The first attempt of every ridge_fit job fails (test-only hook): without retries the
    run stops and shows the failing job's log path and its lines; with one retry it completes
    with the same numbers as an undisturbed run."""
    fail_once(monkeypatch, tmp_path / "markers", "ridge_fit")
    failing = tmp_path / "failing"
    failing.mkdir()
    result = snakemake("ridge", workdir=failing, config=TINY_CONFIG)
    out = result.stdout
    assert result.returncode != 0, out
    log = re.search(r"log: (results/logs/ridge/fit/\w+/experiment-\d\.log)", out)
    assert log, out
    assert f"Logfile {log.group(1)}:" in out, out
    assert re.search(r"ERROR ridge_fit\[variant=\w+, experiment=\d\]: job failed", out), out
    assert "RuntimeError: injected failure of ridge_fit" in out, out

    fail_once(monkeypatch, tmp_path / "markers_retry", "ridge_fit")
    retried = tmp_path / "retried"
    retried.mkdir()
    out = ok(snakemake("ridge", "--retries", "1", workdir=retried, config=TINY_CONFIG))
    assert len(list((tmp_path / "markers_retry").glob("ridge_fit.*"))) == n_ridge_fits(
        load_yaml(TINY_CONFIG)
    ), out
    for path in ["results/tables/ridge.csv", "results/ridge/ridge.csv"]:
        assert (retried / path).read_bytes() == (tiny_run / path).read_bytes(), path


# --------------------------------------------------------------------------- rerun granularity


@pytest.mark.slow
def test_unchanged_config_schedules_nothing(tiny_run):
    out = ok(snakemake("-n", workdir=tiny_run, config=TINY_CONFIG))
    assert "Nothing to be done" in out, out
    assert "Job stats:" not in out, out


@pytest.mark.slow
@pytest.mark.parametrize("how", ["whole-config", "configfile-overlay", "config-option"])
def test_ridge_parameter_reruns_only_ridge(tiny_run, tiny, tmp_path, how):
    """Changing ridge.n_repetitions reruns ridge_fit and what depends on it, nothing else,
    whether the change comes as a whole config, a partial overlay or `--config` (README)."""
    n_repetitions = tiny["ridge"]["n_repetitions"] + 1
    if how == "whole-config":
        changed = copy.deepcopy(tiny)
        changed["ridge"]["n_repetitions"] = n_repetitions
        config = write_yaml(tmp_path / "changed.yaml", changed)
        out = ok(snakemake("-n", workdir=tiny_run, config=config))
    elif how == "configfile-overlay":
        overlay = write_yaml(tmp_path / "overlay.yaml", {"ridge": {"n_repetitions": n_repetitions}})
        args = ("-n", "--replace-workflow-config", "--configfile", str(TINY_CONFIG), str(overlay))
        out = ok(snakemake(*args, workdir=tiny_run))
    else:
        override = f'ridge={{"n_repetitions": {n_repetitions}}}'
        out = ok(snakemake("-n", "--config", override, workdir=tiny_run, config=TINY_CONFIG))
    stats = job_stats(out)
    assert set(stats) == RIDGE_RULES | {"report", "all"}, out
    assert stats["ridge_fit"] == n_ridge_fits(tiny), stats
    assert "Params have changed" in out, out


# --------------------------------------------------------------------------- determinism


# --------------------------------------------------------------------------- schema


def test_config_option_overrides_a_nested_key():
    """The README's `snakemake ridge --config 'ridge={"n_repetitions": 5}'`: the nested value
    arrives as a string and is read as the schema's integer; only ridge jobs are planned."""
    out = ok(snakemake("-n", "--forceall", "ridge", "--config", 'ridge={"n_repetitions": 5}'))
    assert set(job_stats(out)) == RIDGE_RULES | {"ridge"}, out


@pytest.mark.parametrize(
    ("override", "patterns"),
    [
        ('ridge={"n_repetitions": abc}', ["n_repetitions", "'abc' is not of type 'integer'"]),
        ('ridge={"partition": {"low": low}}', [r"\['partition'\]\['low'\]", "'low'"]),
        ('ridge={"gammas": [0, 1.5]}', ["gammas", r"1\.5 is greater than the maximum of 1"]),
        # Used to run every ridge fit and fail in ridge_summary (KeyError: needs γ = 0 and 1).
        (
            'ridge={"gammas": [0.5], "n_repetitions": 2}',
            [r"ridge\.gammas = \[0\.5\] must contain 0 and 1"],
        ),
    ],
    ids=["not-an-integer", "nested-not-a-number", "out-of-range", "ridge-gammas-without-ends"],
)
def test_config_option_with_a_bad_value_is_refused_naming_the_key(override, patterns, tmp_path):
    result = snakemake("-n", "ridge", "--config", override, workdir=tmp_path, cores=1)
    out = result.stdout
    assert result.returncode != 0, out
    assert "Job stats:" not in out, out
    for pattern in patterns:
        assert re.search(pattern, out), f"{pattern!r} not in the output:\n{out}"


def test_alias_bomb_config_file_is_refused_at_once(tmp_path):
    """A YAML alias bomb ("billion laughs": 9 levels of 9 aliases, 4·10⁸ values in about 400
    bytes) given with --configfile: refused naming the file, in seconds, not expanded by the
    schema validation (which ran past any timeout before the size guard)."""
    names = [f"l{level}" for level in range(9)]
    lines = [f"{names[0]}: &{names[0]} [{', '.join(['lol'] * 9)}]"]
    lines += [
        f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]"
        for previous, name in itertools.pairwise(names)
    ]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE), "--directory",
           str(tmp_path), "--cores", "1", "-n", "--configfile", str(bomb)]  # fmt: skip
    # The process's own CPU time, not the wall clock: on a loaded machine (two test workers
    # on two cores) the wall time of snakemake's start-up alone varies; a bomb that is
    # expanded burns CPU (3.8 s wall for the refusal on an idle machine, over 60 s before).
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(
        cmd, cwd=tmp_path, env=snakemake_env(), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, timeout=60, check=False,
    )  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert result.returncode != 0, result.stdout
    assert cpu < 10, f"refused after {cpu:.1f} CPU-s:\n{result.stdout}"
    assert f"config file {bomb} holds" in result.stdout, result.stdout
    assert "Job stats:" not in result.stdout


def _typo_in_ridge(config):
    config["ridge"]["n_repetitons"] = config["ridge"].pop("n_repetitions")
    return ["n_repetitons"]


def _unknown_top_level_key(config):
    config["foo"] = 1
    return [r"\bfoo\b"]


def _gamma_above_one(config):
    config["ridge"]["gammas"] = [0.0, 0.5, 1.5]
    return ["gammas", r"(?<![\d.])1\.5(?!\d)"]


def _negative_size(config):
    config["ridge"]["n_train"] = -7
    return ["n_train", r"(?<![\d.])-7(?!\d)"]


def _lambda_min_above_max(config):
    config["ridge"]["variants"]["paper_text"]["log2_lambda_min"] = 7
    return [r"ridge\.variants\.paper_text\.log2_lambda_min = 7", r"log2_lambda_max = 5"]


def _as_many_training_domains_as_domains(config):
    config["dcm_synthetic"]["n_train_domains"] = config["dcm_synthetic"]["n_domains"]
    return [r"dcm_synthetic\.n_train_domains", r"dcm_synthetic\.n_domains"]


# Every refusal in a dry run; one of them also in a real run (the checks run when the
# Snakefile is parsed, before any job, with or without -n: the other real runs would repeat it).
@pytest.mark.parametrize(
    ("break_config", "dry_run"),
    [
        (_typo_in_ridge, True),
        (_unknown_top_level_key, True),
        (_gamma_above_one, True),
        (_negative_size, True),
        (_lambda_min_above_max, True),
        (_as_many_training_domains_as_domains, True),
        (_as_many_training_domains_as_domains, False),
    ],
    ids=[
        "typo",
        "unknown-key",
        "gamma-1.5",
        "negative-size",
        "lambda-min>max",
        "domains",
        "domains-run",
    ],
)
def test_invalid_config_is_rejected_before_any_job(break_config, dry_run, tiny, tmp_path):
    config = copy.deepcopy(tiny)
    patterns = break_config(config)
    path = write_yaml(tmp_path / "invalid.yaml", config)
    workdir = tmp_path / "work"
    workdir.mkdir()
    result = snakemake(*(["-n"] if dry_run else []), workdir=workdir, config=path, cores=1)
    out = result.stdout
    assert result.returncode != 0, out
    assert "Job stats:" not in out, out
    for pattern in patterns:
        assert re.search(pattern, out), f"{pattern!r} not in the output:\n{out}"
    assert not (workdir / "results").exists()
    assert not (workdir / "logs").exists()


# --------------------------------------------------------------------------- kill and resume


# The studies of the kill-and-resume run: each merges several jobs' records (ridge's fits,
# coverage's shards of repetitions, projection's γ values) — where an order of completion
# could leak into a result. Every rule runs on one thread whatever --cores is.
RESUMED_TARGETS = ("ridge", "coverage", "projection")
RESUMED_OUTPUTS = [
    "results/tables/ridge.csv",
    "results/ridge/ridge.csv",
    "results/tables/ridge_best_constant.csv",
    "results/tables/coverage_table1.csv",
    "results/coverage/repetitions.csv",
    "results/tables/projection.csv",
]


@pytest.mark.slow
def test_killed_run_resumes_without_recomputing_and_cores_do_not_matter(tiny_run, tmp_path):
    """SIGKILL the whole snakemake process group mid-run; unlock and rerun: the run completes,
    finished jobs are not recomputed and every artifact is whole. Both halves run on one core,
    and the deterministic outputs equal the tiny run's on two cores byte for byte: the same
    config gives the same numbers whatever ``--cores`` (RESUMED_TARGETS)."""
    import signal
    import time

    assert set(RESUMED_OUTPUTS) <= set(DETERMINISTIC)
    cmd = [
        sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE),
        "--directory", str(tmp_path), "--cores", "1", *RESUMED_TARGETS,
        "--replace-workflow-config", "--configfile", str(TINY_CONFIG),
    ]  # fmt: skip
    process = subprocess.Popen(
        cmd, cwd=tmp_path, env=snakemake_env(), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    runs = tmp_path / "results" / "ridge" / "runs"
    deadline = time.monotonic() + 300
    # With --cores 1 jobs run one after the other and snakemake registers a job as finished
    # before it starts the next one: once a third ridge output exists, the older ones are
    # finished jobs (the newest may still belong to a running job).
    while time.monotonic() < deadline and len(list(runs.rglob("*.json"))) < 3:
        assert process.poll() is None, "the run finished before it could be killed"
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    outputs = sorted(runs.rglob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    finished = {p: p.stat().st_mtime_ns for p in outputs[:-1]}
    assert len(finished) >= 2, outputs
    assert not (tmp_path / "results" / "tables" / "ridge.csv").exists()  # ridge unfinished

    ok(snakemake("--unlock", workdir=tmp_path, config=TINY_CONFIG))
    out = ok(snakemake(*RESUMED_TARGETS, workdir=tmp_path, config=TINY_CONFIG, cores=1))
    for path, mtime in finished.items():
        assert path.stat().st_mtime_ns == mtime, f"{path} was recomputed:\n{out}"
    for record_file in runs.rglob("*.json"):
        json.loads(record_file.read_text())  # whole, parseable artifacts
    for path in RESUMED_OUTPUTS:
        one, two = (tmp_path / path).read_bytes(), (tiny_run / path).read_bytes()
        assert one == two, f"{path} differs between --cores 1 and --cores 2"
