"""results/report.md: every reproduced number beside the paper's, with a verdict."""

REPORT_SECTIONS = [
    "results/report/illustration.md",
    "results/report/students.md",
    "results/report/adult.md",
    "results/report/ridge.md",
    "results/report/cme.md",
    "results/report/cme_oblivious.md",
    "results/report/dcm_synthetic.md",
    "results/report/dcm_parkinsons.md",
    "results/report/coverage.md",
]


rule report:
    input:
        REPORT_SECTIONS,
    output:
        report("results/report.md", caption="../report/report.rst", category="Report"),
    log:
        "logs/report.log",
    threads: 1
    resources:
        mem_mb=200,
        runtime=2,
    params:
        code=script_code("report.py"),
    script:
        "../scripts/report.py"
