"""Config validation, helpers for targets and parameters, wildcard constraints."""

import inspect
import textwrap
from pathlib import Path

from snakemake.utils import validate

from krepro.studies import PAPERS, STUDIES
from krepro.studies.verdicts import paper_reference
from krepro.workflow.codedeps import code_digest
from krepro.workflow.config_checks import check_config
from krepro.workflow.configuration import check_config_size, coerce_config
from krepro.workflow.run_times import snapshot_run_times

# Before anything walks the config: a few hundred bytes of YAML aliases can stand for
# billions of values, which validation (and its error message) would expand.
check_config_size(config, workflow.configfiles)
# `--config key={...}` gives nested values as strings: read them as the schema's types.
SCHEMA = Path(workflow.basedir, "workflow", "schemas", "config.schema.yaml")
config.update(coerce_config(config, SCHEMA))
validate(config, schema="../schemas/config.schema.yaml")
check_config(config, STUDIES.values())

# The papers' numbers live with the code, not in the working directory, so that a run with
# --directory elsewhere still compares against them.
PAPER_REFERENCE = str(Path(workflow.basedir) / "config" / "paper_reference.yaml")


def reference_section(*keys, only=None):
    """One block of config/paper_reference.yaml, a `params:` value of a study's summary: an
    edit to the block reruns that summary (params trigger), an edit elsewhere in the file
    reruns nothing of it. `only`: the block's entries the summary reads, where the block
    also holds other studies' blocks (a paper's own claims beside its studies)."""
    block = paper_reference(PAPER_REFERENCE, *keys)
    return block if only is None else {key: block[key] for key in only if key in block}


def study_reference(study):
    """The block of config/paper_reference.yaml that a study's report judges (its `Study`
    record names it)."""
    record = STUDIES[study]
    return reference_section(*record.reference, only=record.reference_only)


def study_readings(study):
    """The readings of a study under this run's config (krepro.studies.readings): the one
    place a rule file learns which readings to run."""
    return STUDIES[study].readings_of(config[study])


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
    snapshot sums CPU seconds per rule from it (krepro.workflow.snapshot).
    """
    return f"{BENCHMARKS}/{path}"


def script_code(script, modules=()):
    """Digest of a rule's script and every krepro module it imports, transitively.

    A ``params`` entry: editing any of these files reruns the rule (and nothing else does).
    ``modules``: further modules the script runs by name (a study job's module).
    """
    scripts = Path(workflow.basedir) / "workflow" / "scripts"
    return code_digest(
        scripts / script, Path(workflow.basedir) / "src", modules=modules
    )


# Every study job runs through one script, which calls the function its rule names.
STUDY_JOB_SCRIPT = "../scripts/study_job.py"


def job_entry(study, job):
    """``params.entry`` of a study job: ``krepro.studies.<study>.<module>:<function>``."""
    return STUDIES[study].entry(job)


def job_code(study, job):
    """``params.code`` of a study job: the generic script and the job's module, with imports."""
    return script_code("study_job.py", modules=[STUDIES[study].module(job)])


wildcard_constraints:
    dataset="adult|parkinsons",
    filename=r"[A-Za-z0-9_.+-]+",
    variant="[A-Za-z][A-Za-z0-9_]*",
    experiment=r"\d+",


# The targets `snakemake targets` lists: every study (krepro.studies.STUDIES, whose records
# say what each reproduces, its outputs and its run times), then these two rules.
WORKFLOW_TARGETS = ["all", "snapshot"]


def study_outputs(study):
    """The files a study's target builds, under this run's results_dir."""
    return [results(path) for path in STUDIES[study].outputs]


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
    """Every target with what it reproduces, its outputs and run times, one block each.

    The papers' scale: CPU seconds of the committed snapshot's run (snapshots/paper).
    """
    provenance = Path(workflow.basedir) / "snapshots" / "paper" / "provenance.json"
    cpu, whole = {}, "not in the committed snapshot"
    if provenance.is_file():
        rules_dir = Path(workflow.basedir) / "workflow" / "rules"
        times = snapshot_run_times(provenance, rules_dir, STUDIES)
        cpu = times["cpu_seconds"]
        whole = (
            f"{times['wall_seconds']:,.0f} s wall-clock on {times['cpu_count']} cores"
            f" ({sum(cpu.values()):,.0f} CPU-s) in the committed snapshot's run"
        )
    described = {
        name: study.describe(cpu.get(name))
        for name, study in STUDIES.items()
        if study.target
    }
    for name in WORKFLOW_TARGETS:
        doc = inspect.cleandoc(workflow.get_rule(name).docstring or "(no description)")
        described[name] = doc.replace(
            "(estimate).", f"(estimate); paper scale {whole}."
        )
    return "\n\n".join(
        f"{name}\n{textwrap.indent(inspect.cleandoc(doc), '    ')}"
        for name, doc in described.items()
    )

# Scheduling: the longest single jobs of the studies (a few minutes each at the papers' scale)
# carry a `priority:` in their rule files, so that they start early and the end of a run on
# few cores is made of short jobs (repetitions and settings).
