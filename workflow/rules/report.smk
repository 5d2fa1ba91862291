"""report.md, verdicts.csv, provenance.json under results_dir: every verdict, rendered; and
the snapshot that publishes them (target: snapshot)."""

# One JSON section (verdict records + supporting Markdown) per experiment, written by that
# experiment's summary rule; the Markdown beside it is the same section rendered on its own.
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
            results("report/{experiment}.json"), experiment=REPORT_EXPERIMENTS
        ),
    output:
        report=report(
            results("report.md"), caption="../report/report.rst", category="Report"
        ),
        verdicts=report(
            results("verdicts.csv"),
            caption="../report/verdicts.rst",
            category="Report",
        ),
        summary=report(
            results("report/summary.html"),
            caption="../report/summary.rst",
            category="Report",
        ),
        provenance=results("provenance.json"),
    log:
        logs("report.log"),
    benchmark:
        benchmarks("report.tsv")
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


# No output: `snakemake snapshot` always rewrites the snapshot from the finished run (copies
# and hashes, seconds), and no benchmark record, which would count the snapshot in the run's
# own wall-clock span.
rule snapshot:
    """Publish the finished run as snapshots/<scale>/ (snapshots/paper/ with
    config/paper.yaml): report.md, verdicts.csv, tables/, figures/ and provenance.json (the
    run's provenance, its wall-clock span, CPU seconds per rule and each file's SHA-256).

    Outputs: snapshots/<scale>/report.md, verdicts.csv, provenance.json, tables/, figures/.
    Run time on 2 cores: quick 7 min, paper 30 min.
    """
    input:
        unpack(snapshot_inputs),
    log:
        logs("snapshot.log"),
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        destination=f"snapshots/{config['scale']}",
        benchmarks=BENCHMARKS,
        logs=LOGS,
        code=script_code("snapshot.py"),
    script:
        "../scripts/snapshot.py"
