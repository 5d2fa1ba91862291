"""CME note: the estimator and its claims against closed-form truths (target: cme)."""


rule cme_run:
    output:
        table=report(
            results("tables/cme.csv"),
            caption="../report/cme_table.rst",
            category="Conditional mean embeddings tables",
        ),
        claims=results("cme/claims.csv"),
        runs=results("cme/runs.csv"),
        sample=results("cme/sample.csv"),
        query=results("cme/query.csv"),
        curves=results("cme/curves.csv"),
        weights=results("cme/weights.csv"),
    log:
        logs("cme/run.log"),
    benchmark:
        benchmarks("cme_run.tsv")
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        seed=config["seed"],
        settings=config["cme"],
        entry=job_entry("cme", "run"),
        code=job_code("cme", "run"),
    script:
        STUDY_JOB_SCRIPT


# The figure and the report section of the CME note in one job (each well under a second).
rule cme_summary:
    input:
        table=results("tables/cme.csv"),
        claims=results("cme/claims.csv"),
        runs=results("cme/runs.csv"),
        sample=results("cme/sample.csv"),
        query=results("cme/query.csv"),
        curves=results("cme/curves.csv"),
        weights=results("cme/weights.csv"),
    output:
        figure=report(
            results("figures/cme.png"),
            caption="../report/cme.rst",
            category="Conditional mean embeddings",
        ),
        json=results("report/cme.json"),
        md=results("report/cme.md"),
    log:
        logs("cme/summary.log"),
    benchmark:
        benchmarks("cme_summary.tsv")
    localrule: True
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        reference=study_reference("cme"),
        readings=study_readings("cme"),
        scale=config["scale"],
        entry=job_entry("cme", "summary"),
        code=job_code("cme", "summary"),
    script:
        STUDY_JOB_SCRIPT
