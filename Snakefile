"""krepro: reproduce the tables and figures of the kernel-method papers.

Targets: all (default), illustration, students, adult, adult_full, ridge, cme, dcm_synthetic,
dcm_parkinsons, coverage, rates, projection, snapshot; `snakemake targets` lists them with
what they reproduce and their run times. Every output of a run goes under the config's
results_dir (results/; results/paper/ with config/paper.yaml). See README.md.
"""

from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")


# Resolved next to this file, so that `--directory elsewhere` still finds the defaults.
configfile: Path(workflow.basedir) / "config" / "config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/illustration.smk"
include: "workflow/rules/ridge.smk"
include: "workflow/rules/cme.smk"
include: "workflow/rules/dcm.smk"
include: "workflow/rules/fairness.smk"
include: "workflow/rules/adult_full.smk"
include: "workflow/rules/coverage.smk"
include: "workflow/rules/rates.smk"
include: "workflow/rules/report.smk"


# Run on the submit host, never submitted to a cluster: downloads (compute nodes are often
# offline), targets, the snapshot, and each experiment's summary job (tables, figures and
# report section from the run records: seconds each).
localrules:
    all,
    targets,
    snapshot,
    fetch_dataset,
    illustration,
    students,
    adult,
    adult_full,
    ridge,
    cme,
    dcm_synthetic,
    dcm_parkinsons,
    coverage,
    rates,
    projection,
    report,
    illustration_summary,
    students_summary,
    adult_summary,
    adult_full_summary,
    ridge_summary,
    cme_summary,
    cme_oblivious_summary,
    dcm_synthetic_summary,
    dcm_parkinsons_summary,
    coverage_summary,
    rates_summary,
    projection_summary,


rule all:
    """Every experiment above, and results/report.md: every reproduced number beside the
    paper's, with a verdict.

    Outputs: the outputs of every target, results/report.md.
    Run time on 2 cores: quick 7 min, paper 30 min.
    """
    default_target: True
    input:
        rules.illustration.input,
        rules.ridge.input,
        rules.cme.input,
        rules.dcm_synthetic.input,
        rules.dcm_parkinsons.input,
        rules.students.input,
        rules.adult.input,
        rules.adult_full.input,
        rules.coverage.input,
        rules.rates.input,
        rules.projection.input,
        results("report.md"),


# The run is over: let Snakemake exit without waiting for its scheduler's timers.
onsuccess:
    cancel_scheduler_timers()


onerror:
    cancel_scheduler_timers()


rule targets:
    """Print the experiments (target rules) with what they reproduce, outputs and run times."""
    log:
        logs("targets.log"),
    run:
        Path(log[0]).write_text(describe_targets() + "\n", encoding="utf-8")
        print(describe_targets())
