"""krepro: reproduce the tables and figures of the kernel-method papers.

Targets: all (default), illustration, students, adult, adult_full, ridge, cme, dcm_synthetic,
dcm_parkinsons, coverage, rates, projection; `snakemake targets` lists them with what they
reproduce and their run times. See README.md.
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
# offline), targets, and the small aggregation, figure and report jobs (seconds each).
localrules:
    all,
    targets,
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
    report,
    illustration_figure,
    illustration_report,
    students_aggregate,
    students_figure,
    students_report,
    adult_aggregate,
    adult_report,
    adult_full_aggregate,
    adult_full_figure,
    adult_full_report,
    ridge_aggregate,
    ridge_figure,
    ridge_report,
    cme_figure,
    cme_report,
    cme_oblivious_aggregate,
    cme_oblivious_figure,
    cme_oblivious_report,
    dcm_synthetic_aggregate,
    dcm_fig2_figure,
    dcm_synthetic_report,
    dcm_parkinsons_aggregate,
    dcm_nystrom_figure,
    dcm_parkinsons_report,
    coverage_aggregate,
    coverage_figure,
    coverage_report,
    rates,
    projection,
    rates_aggregate,
    rates_figure,
    rates_report,
    projection_aggregate,
    projection_figure,
    projection_report,


rule all:
    """Every experiment above, and results/report.md: every reproduced number beside the
    paper's, with a verdict.

    Outputs: the outputs of every target, results/report.md.
    Run time on 2 cores: quick 7 min, paper 1.5 h.
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
        "results/report.md",


rule targets:
    """Print the experiments (target rules) with what they reproduce, outputs and run times."""
    log:
        "logs/targets.log",
    run:
        Path(log[0]).write_text(describe_targets() + "\n", encoding="utf-8")
        print(describe_targets())
