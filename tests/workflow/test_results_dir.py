"""`results_dir`: every output, log and benchmark record of a run goes under it.

The quick scale writes to results/, the papers' scale (config/paper.yaml) to results/paper/:
the two coexist, each with its own cache, and no rule pattern of one scale can match a file
of the other. The schema refuses a results_dir that would leave the working directory.

The runs of one study's target that show it are in the study's folder
(``tests/studies/<name>/test_results_dir.py``), with these helpers.
"""

from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.workflow.test_workflow import DEFAULT_CONFIG, REPO, TINY_CONFIG, job_stats, ok, snakemake

pytestmark = pytest.mark.workflow

PAPER_CONFIG = REPO / "config" / "paper.yaml"
PATH_CALL = re.compile(r'\b(results|logs|benchmarks)\(\s*f?"([^"]*)"')


def files_under(workdir: Path) -> set[str]:
    """Every file of a working directory, Snakemake's own state (.snakemake/) aside."""
    return {
        path.relative_to(workdir).as_posix()
        for path in workdir.rglob("*")
        if path.is_file() and path.relative_to(workdir).parts[0] != ".snakemake"
    }


def job_paths(dry_run: str) -> dict[str, set[str]]:
    """{"output" | "log" | "benchmark": paths} of every job a dry run prints."""
    paths: dict[str, set[str]] = {"output": set(), "log": set(), "benchmark": set()}
    for kind, listed in re.findall(r"^\s+(output|log|benchmark): (.+)$", dry_run, re.MULTILINE):
        paths[kind] |= {path.strip() for path in listed.split(",")}
    return paths


def test_default_and_paper_results_dirs():
    quick = yaml.safe_load(DEFAULT_CONFIG.read_text(encoding="utf-8"))
    paper = yaml.safe_load(PAPER_CONFIG.read_text(encoding="utf-8"))
    assert (quick["results_dir"], paper["results_dir"]) == ("results", "results/paper")


def test_dry_run_puts_every_output_log_and_benchmark_under_results_dir(tmp_path):
    """Tiny config, results_dir elsewhere: all jobs of `all` and `snapshot`, planned."""
    out = ok(
        snakemake(
            "-n", "--forceall", "all", "snapshot", "--config", "results_dir=runs/tiny",
            workdir=tmp_path, config=TINY_CONFIG,
        )
    )  # fmt: skip
    paths = job_paths(out)
    assert len(paths["benchmark"]) == sum(job_stats(out).values()) - 2  # all, snapshot: none
    shared = {p for p in paths["output"] if p.startswith("resources/")}
    assert shared == {
        "resources/adult/adult.data",
        "resources/adult/adult.test",
        "resources/parkinsons/parkinsons_updrs.data",
    }
    for kind, listed in paths.items():
        elsewhere = {p for p in listed - shared if not p.startswith("runs/tiny/")}
        assert not elsewhere, (kind, sorted(elsewhere))
    assert {p.split("/")[2] for p in paths["log"]} == {"logs"}
    assert {p.split("/")[2] for p in paths["benchmark"]} == {"benchmarks"}
    assert not files_under(tmp_path)  # a dry run writes nothing


def test_no_rule_pattern_of_one_scale_can_match_a_file_of_the_other():
    """Every path pattern starts, after results_dir, with a literal directory or file name,
    never a wildcard, and none is `paper`: so `results/<x>/...` of the quick scale can never
    match `results/paper/...` of the papers' scale."""
    patterns = [
        (path.name, match.group(2))
        for path in sorted((REPO / "workflow" / "rules").glob("*.smk"))
        if path.name != "common.smk"  # the helpers themselves
        for match in PATH_CALL.finditer(path.read_text(encoding="utf-8"))
    ]
    assert len(patterns) > 100, patterns
    for source, pattern in patterns:
        first = pattern.split("/")[0]
        assert first and "{" not in first and first != "paper", (source, pattern)


def test_every_rule_that_runs_code_keeps_a_benchmark_record_named_after_it():
    """The snapshot sums CPU seconds per rule from <results_dir>/benchmarks/<rule>[/...].tsv.

    Not the snapshot itself (its record would count it in the run's span) nor `targets`."""
    rules = {}
    for path in sorted((REPO / "workflow" / "rules").glob("*.smk")):
        for block in re.split(r"(?m)^(?=rule \w+:)", path.read_text(encoding="utf-8"))[1:]:
            rules[re.match(r"rule (\w+):", block).group(1)] = block
    runs_code = {
        name for name, block in rules.items() if re.search(r"^    (script|run|shell):", block, re.M)
    }
    assert len(runs_code) > 20, sorted(runs_code)
    for name in sorted(runs_code - {"snapshot"}):
        record = re.search(r'^    benchmark:\s*\n\s+benchmarks\(\s*"([^"]+)"', rules[name], re.M)
        assert record, f"rule {name} has no benchmark: benchmarks(...)"
        assert re.fullmatch(rf"{name}(\.tsv|/.+\.tsv)", record.group(1)), (name, record.group(1))
    assert "benchmark:" not in rules["snapshot"]


BAD_RESULTS_DIRS = [
    "/tmp/abs",
    "../up",
    "results/../../up",
    "results/",
    "./results",
    "resources",
    "",
    "a//b",
]


@pytest.mark.parametrize("value", BAD_RESULTS_DIRS)
def test_schema_refuses_a_bad_results_dir(value):
    """The schema's rule on its own, for every kind of bad value (no snakemake run each)."""
    schema = yaml.safe_load((REPO / "workflow/schemas/config.schema.yaml").read_text("utf-8"))
    config = {**yaml.safe_load(DEFAULT_CONFIG.read_text("utf-8")), "results_dir": value}
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(config))
    assert [list(error.path) for error in errors] == [["results_dir"]], errors
