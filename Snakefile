"""krepro: reproduce the tables and figures of the kernel-method papers.

Targets: all (default), illustration, students, adult, ridge, cme, dcm_synthetic,
dcm_parkinsons, coverage.
See README.md.
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
include: "workflow/rules/coverage.smk"
include: "workflow/rules/report.smk"


localrules:
    all,
    fetch_dataset,
    illustration,
    ridge,
    cme,
    illustration_report,
    cme_report,
    cme_oblivious_report,
    dcm_synthetic,
    dcm_parkinsons,
    dcm_synthetic_report,
    dcm_parkinsons_report,
    students,
    adult,
    students_report,
    adult_report,
    coverage,
    coverage_report,
    ridge_report,
    report,


rule all:
    default_target: True
    input:
        rules.illustration.input,
        rules.ridge.input,
        rules.cme.input,
        rules.dcm_synthetic.input,
        rules.dcm_parkinsons.input,
        rules.students.input,
        rules.adult.input,
        rules.coverage.input,
        "results/report.md",
