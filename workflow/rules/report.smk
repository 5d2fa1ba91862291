"""report.md, verdicts.csv, provenance.json under results_dir: every verdict, rendered; and
the snapshot that publishes them (target: snapshot)."""

# One JSON section (verdict records + supporting Markdown) per study, written by that study's
# summary job; the Markdown beside it is the same section rendered on its own.
PAPER_SCALE_COMMAND = "snakemake --configfile config/paper.yaml"


rule report:
    input:
        sections=[results(study.section) for study in STUDIES.values()],
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
    localrule: True
    threads: 1
    resources:
        mem_mb=200,
        runtime=2,
    params:
        config=config,
        config_files=[str(path) for path in workflow.configfiles],
        code_directory=workflow.basedir,
        paper_command=PAPER_SCALE_COMMAND,
        paper_titles={key: paper.title for key, paper in PAPERS.items()},
        entry="krepro.studies.assemble:report_job",
        code=script_code("study_job.py", modules=["krepro.studies.assemble"]),
    script:
        STUDY_JOB_SCRIPT


# No output: `snakemake snapshot` always rewrites the snapshot from the finished run (copies
# and hashes, seconds), and no benchmark record, which would count the snapshot in the run's
# own wall-clock span.
rule snapshot:
    """Publish the finished run as snapshots/<scale>/ (snapshots/paper/ with
    config/paper.yaml): report.md, verdicts.csv, tables/, figures/ and provenance.json (the
    run's provenance, its wall-clock span, CPU seconds per rule and each file's SHA-256).

    Outputs: snapshots/<scale>/report.md, verdicts.csv, provenance.json, tables/, figures/.
    Run time: quick scale about 8 min on 2 cores (estimate).
    """
    input:
        unpack(snapshot_inputs),
    log:
        logs("snapshot.log"),
    localrule: True
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
