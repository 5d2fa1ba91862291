"""Oblivious data, App. E.3 and Props. 2, 3: projection of the oblivious features onto
M = φ[X] (target: projection)."""

PROJECTION = config["projection"]


rule projection_run:
    output:
        results("projection/runs/gamma-{gamma}.json"),
    log:
        logs("projection/run/gamma-{gamma}.log"),
    benchmark:
        benchmarks("projection_run/gamma-{gamma}.tsv")
    wildcard_constraints:
        gamma=r"[0-9.]+",
    priority: 1
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        seed=config["seed"],
        settings=PROJECTION,
        entry=job_entry("projection", "run"),
        code=job_code("projection", "run"),
    script:
        STUDY_JOB_SCRIPT


# Table, figure and report section in one job (each well under a second).
rule projection_summary:
    input:
        runs=expand(
            results("projection/runs/gamma-{gamma}.json"),
            gamma=[f"{g:g}" for g in PROJECTION["gammas"]],
        ),
    output:
        runs=results("projection/projection.csv"),
        table=report(
            results("tables/projection.csv"),
            caption="../report/projection_table.rst",
            category="Oblivious features tables",
        ),
        figure=report(
            results("figures/oblivious_projection.png"),
            caption="../report/oblivious_projection.rst",
            category="Oblivious features",
        ),
        json=results("report/projection.json"),
        md=results("report/projection.md"),
    log:
        logs("projection/summary.log"),
    benchmark:
        benchmarks("projection_summary.tsv")
    localrule: True
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        reference=study_reference("projection"),
        readings=study_readings("projection"),
        settings=PROJECTION,
        scale=config["scale"],
        entry=job_entry("projection", "summary"),
        code=job_code("projection", "summary"),
    script:
        STUDY_JOB_SCRIPT
