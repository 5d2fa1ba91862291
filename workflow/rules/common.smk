"""Config validation, helpers for targets and parameters, wildcard constraints."""

import inspect
import textwrap
from pathlib import Path

from snakemake.utils import validate

from krepro.codedeps import code_digest
from krepro.config_checks import check_config
from krepro.configuration import coerce_config
from krepro.runtime import cancel_scheduler_timers

# `--config key={...}` gives nested values as strings: read them as the schema's types.
SCHEMA = Path(workflow.basedir, "workflow", "schemas", "config.schema.yaml")
config.update(coerce_config(config, SCHEMA))
validate(config, schema="../schemas/config.schema.yaml")
check_config(config)

# The papers' numbers live with the code, not in the working directory, so that a run with
# --directory elsewhere still compares against them.
PAPER_REFERENCE = str(Path(workflow.basedir) / "config" / "paper_reference.yaml")

# Every output of a run lies under results_dir (config: `results` for the quick scale,
# `results/paper` for the papers'), with the run's logs and benchmark records, so that the
# scales coexist and each keeps its cache (Snakemake's metadata is keyed by path). Only the
# downloads under resources/ are shared.
RESULTS = config["results_dir"]
BENCHMARKS = f"{RESULTS}/benchmarks"
LOGS = f"{RESULTS}/logs"


def results(path):
    """``<results_dir>/<path>``: a result of this run (a pattern: wildcards pass through)."""
    return f"{RESULTS}/{path}"


def logs(path):
    """``<results_dir>/logs/<path>``: a job's log."""
    return f"{LOGS}/{path}"


def benchmarks(path):
    """``<results_dir>/benchmarks/<path>``: a job's Snakemake benchmark record.

    ``path`` starts with the rule's name (``<rule>.tsv`` or ``<rule>/<wildcards>.tsv``): the
    snapshot sums CPU seconds per rule from it (krepro.report.snapshot).
    """
    return f"{BENCHMARKS}/{path}"


def dcm_repetitions(settings, **reading):
    """The primary reading runs n_repetitions, every other reading reading_repetitions."""
    primary = all(settings["primary"][axis] == value for axis, value in reading.items())
    return settings["n_repetitions" if primary else "reading_repetitions"]


def script_code(script):
    """Digest of a rule's script and every krepro module it imports, transitively.

    A ``params`` entry: editing any of these files reruns the rule (and nothing else does).
    """
    scripts = Path(workflow.basedir) / "workflow" / "scripts"
    return code_digest(scripts / script, Path(workflow.basedir) / "src")


def ridge_variant_params(wildcards):
    """Protocol variant of the ridge experiments (noise variance, λ grid)."""
    return config["ridge"]["variants"][wildcards.variant]


def ridge_sizes(wildcards):
    """Sample sizes of the ridge experiments."""
    keys = ("n_train", "n_estimation", "n_validation", "n_test")
    return {key: config["ridge"][key] for key in keys}


wildcard_constraints:
    dataset="adult|parkinsons",
    filename=r"[A-Za-z0-9_.+-]+",
    variant="[A-Za-z][A-Za-z0-9_]*",
    experiment=r"\d+",


# The experiments, as `snakemake targets` lists them; each rule's docstring says what it
# reproduces, its outputs and its run times (tests/workflow/test_targets.py checks them).
TARGETS = [
    "illustration",
    "students",
    "adult",
    "adult_full",
    "ridge",
    "cme",
    "dcm_synthetic",
    "dcm_parkinsons",
    "coverage",
    "rates",
    "projection",
    "all",
    "snapshot",
]


def snapshot_inputs(wildcards):
    """The files the snapshot publishes: the report, and every table and figure of the run.

    The tables (``tables/*.csv``, ``tables/*.md``) and figures (``figures/*.png``) are found
    among the outputs of the workflow's rules, so that a new table cannot be left out.
    """
    found = {"tables": set(), "figures": set()}
    kinds = {"tables": (".csv", ".md"), "figures": (".png",)}
    for each in workflow.rules:
        for path in map(str, each.output):
            for kind, suffixes in kinds.items():
                wanted = path.startswith(results(f"{kind}/")) and path.endswith(
                    suffixes
                )
                if wanted and "{" not in path:
                    found[kind].add(path)
    return {
        "report": results("report.md"),
        "verdicts": results("verdicts.csv"),
        "provenance": results("provenance.json"),
        **{kind: sorted(paths) for kind, paths in found.items()},
    }


def describe_targets():
    """The target rules with their docstrings, one block each."""
    blocks = []
    for name in TARGETS:
        doc = inspect.cleandoc(workflow.get_rule(name).docstring or "(no description)")
        blocks.append(f"{name}\n{textwrap.indent(doc, '    ')}")
    return "\n\n".join(blocks)

# Scheduling: the longest single jobs (adult_fit, rates_run, projection_run, cme_oblivious_fit,
# adult_full_fit, dcm_fig2_fit) carry a `priority:`, so that they start early and the end of a
# run on few cores is made of short jobs (coverage shards, DCM repetitions).
