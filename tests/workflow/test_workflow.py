"""The Snakemake workflow as a user runs it: `snakemake` as a subprocess.

Covers the DAG of the default config, `snakemake --lint`, a tiny end-to-end run, determinism
across --cores, and config-schema rejection before any job runs. Everything except the lint
and the default dry-runs happens in temporary working directories (`--directory`), with
tests/config/tiny.yaml as the only config (`--replace-workflow-config --configfile`).

What concerns one study (its runs, its rerun granularity, its refusals) is in its own folder,
``tests/studies/<name>/test_workflow.py``, with these helpers; what the shared tests expect of
each study (jobs per rule, files, determinism) in ``tests/studies/<name>/expected.py``, read
through the registry.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from krepro.data.download import DATASETS
from krepro.studies import STUDIES
from krepro.workflow.snapshot import check_snapshot
from tests.studies.per_study import study_modules

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


def expectations() -> dict:
    """``{name: module}`` of every study's tests/studies/<name>/expected.py: jobs per rule
    (``job_counts``), and where it has them, files besides its outputs (``OUTPUTS``), files
    that must not depend on --cores or on job order (``DETERMINISTIC``), rules a config can
    leave without jobs (``OPTIONAL_RULES``), and the record folder and merged files of the
    kill-and-resume run (``RECORDS``, ``MERGED``)."""
    return study_modules("expected")


def declared(name: str) -> list:
    """Every study's ``name`` list of its expected.py, joined in the registry's order."""
    return [item for module in expectations().values() for item in getattr(module, name, ())]


# Every study's target outputs and report section, the files its expected.py adds, and the
# run's report files.
OUTPUTS = [
    *(f"results/{path}" for study in STUDIES.values() for path in study.outputs),
    *(f"results/{study.section}" for study in STUDIES.values()),
    *declared("OUTPUTS"),
    "results/report.md",
    "results/verdicts.csv",
    "results/provenance.json",
    "results/report/summary.html",
]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Files that must not depend on --cores or on job order: what each study's expected.py
# declares.
DETERMINISTIC = declared("DETERMINISTIC")


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
    """Jobs per rule that the config implies (rules not named here run once): what each
    study's expected.py counts."""
    return {
        rule: count
        for module in expectations().values()
        for rule, count in module.job_counts(config).items()
    }


# Rules that a config can leave without jobs.
OPTIONAL_RULES = set(declared("OPTIONAL_RULES"))


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


@pytest.mark.slow
def test_tiny_run_outputs(tiny_run, tiny):
    for path in OUTPUTS:
        assert (tiny_run / path).is_file(), f"missing {path}"
        assert (tiny_run / path).stat().st_size > 0, f"empty {path}"
    figures = [
        path for study in STUDIES.values() for path in study.outputs if path.endswith(".png")
    ]
    assert figures
    for figure in figures:
        assert (tiny_run / "results" / figure).read_bytes()[:8] == PNG_SIGNATURE, figure


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


# --------------------------------------------------------------------------- rerun granularity


@pytest.mark.slow
def test_unchanged_config_schedules_nothing(tiny_run):
    out = ok(snakemake("-n", workdir=tiny_run, config=TINY_CONFIG))
    assert "Nothing to be done" in out, out
    assert "Job stats:" not in out, out


# --------------------------------------------------------------------------- schema


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


def _unknown_top_level_key(config):
    config["foo"] = 1
    return [r"\bfoo\b"]


def assert_rejected_before_any_job(break_config, dry_run, tiny, tmp_path):
    """The tiny config broken by ``break_config`` (which returns the patterns the refusal must
    match) is refused by snakemake before any job, in a dry run or a real one."""
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


# Every refusal in a dry run (a study's own refusals are in its folder; one of them also in a
# real run: the checks run when the Snakefile is parsed, before any job, with or without -n).
@pytest.mark.parametrize(
    ("break_config", "dry_run"), [(_unknown_top_level_key, True)], ids=["unknown-key"]
)
def test_invalid_config_is_rejected_before_any_job(break_config, dry_run, tiny, tmp_path):
    assert_rejected_before_any_job(break_config, dry_run, tiny, tmp_path)


# --------------------------------------------------------------------------- kill and resume


# The studies of the kill-and-resume run: those whose expected.py names files that merge
# several jobs' records (``MERGED``: fits, shards of repetitions, γ values) — where an order of
# completion could leak into a result. Every rule runs on one thread whatever --cores is.
RESUMED_TARGETS = tuple(
    name for name, module in expectations().items() if getattr(module, "MERGED", None)
)
RESUMED_OUTPUTS = declared("MERGED")
# The folders where their jobs write one JSON record each (``RECORDS``).
RECORD_FOLDERS = declared("RECORDS")


@pytest.mark.slow
def test_killed_run_resumes_without_recomputing_and_cores_do_not_matter(tiny_run, tmp_path):
    """SIGKILL the whole snakemake process group mid-run; unlock and rerun: the run completes,
    finished jobs are not recomputed and every artifact is whole. Both halves run on one core,
    and the deterministic outputs equal the tiny run's on two cores byte for byte: the same
    config gives the same numbers whatever ``--cores`` (RESUMED_TARGETS)."""
    import signal
    import time

    assert len(RESUMED_TARGETS) >= 2 and RECORD_FOLDERS, (RESUMED_TARGETS, RECORD_FOLDERS)
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

    def records():
        return [path for folder in RECORD_FOLDERS for path in (tmp_path / folder).rglob("*.json")]

    deadline = time.monotonic() + 300
    # With --cores 1 jobs run one after the other and snakemake registers a job as finished
    # before it starts the next one: once a third record exists, the older ones are finished
    # jobs (the newest may still belong to a running job).
    while time.monotonic() < deadline and len(records()) < 3:
        assert process.poll() is None, "the run finished before it could be killed"
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    outputs = sorted(records(), key=lambda p: p.stat().st_mtime_ns)
    finished = {p: p.stat().st_mtime_ns for p in outputs[:-1]}
    assert len(finished) >= 2, outputs
    # the run is unfinished: some merged output is still missing
    assert not all((tmp_path / path).exists() for path in RESUMED_OUTPUTS)

    ok(snakemake("--unlock", workdir=tmp_path, config=TINY_CONFIG))
    out = ok(snakemake(*RESUMED_TARGETS, workdir=tmp_path, config=TINY_CONFIG, cores=1))
    for path, mtime in finished.items():
        assert path.stat().st_mtime_ns == mtime, f"{path} was recomputed:\n{out}"
    for record_file in records():
        json.loads(record_file.read_text())  # whole, parseable artifacts
    for path in RESUMED_OUTPUTS:
        one, two = (tmp_path / path).read_bytes(), (tiny_run / path).read_bytes()
        assert one == two, f"{path} differs between --cores 1 and --cores 2"
