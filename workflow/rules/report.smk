"""results/report.md, results/verdicts.csv, results/provenance.json: every verdict, rendered."""

# One JSON section (verdict records + supporting Markdown) per experiment, written by that
# experiment's report rule; the Markdown beside it is the same section rendered on its own.
REPORT_EXPERIMENTS = [
    "illustration",
    "students",
    "adult",
    "adult_full",
    "ridge",
    "cme",
    "cme_oblivious",
    "dcm_synthetic",
    "dcm_parkinsons",
    "coverage",
    "rates",
    "projection",
]
PAPER_SCALE_COMMAND = "snakemake --configfile config/paper.yaml"


rule report:
    input:
        sections=expand(
            "results/report/{experiment}.json", experiment=REPORT_EXPERIMENTS
        ),
    output:
        report=report(
            "results/report.md", caption="../report/report.rst", category="Report"
        ),
        verdicts=report(
            "results/verdicts.csv", caption="../report/verdicts.rst", category="Report"
        ),
        summary=report(
            "results/report/summary.html",
            caption="../report/summary.rst",
            category="Report",
        ),
        provenance="results/provenance.json",
    log:
        "logs/report.log",
    threads: 1
    resources:
        mem_mb=200,
        runtime=2,
    params:
        config=config,
        config_files=[str(path) for path in workflow.configfiles],
        code_directory=workflow.basedir,
        paper_command=PAPER_SCALE_COMMAND,
        code=script_code("report.py"),
    script:
        "../scripts/report.py"
