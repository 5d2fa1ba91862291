"""Oblivious features for continuous S: dyadic partition vs CME (target: cme_oblivious)."""

from krepro.studies.readings import job_repetitions

CME_OBLIVIOUS = config["cme_oblivious"]
# The readings (krepro.studies.cme_oblivious.readings): estimator × d. One job per (d,
# experiment) fits every estimator on the same draws.
CME_OBLIVIOUS_READINGS = study_readings("cme_oblivious")
CME_OBLIVIOUS_RUNS = expand(
    results("cme_oblivious/runs/d-{dim}/experiment-{experiment}.json"),
    dim=[dim for dim, in job_repetitions(CME_OBLIVIOUS_READINGS, ("sensitive_dim",))],
    experiment=CME_OBLIVIOUS["experiments"],
)


rule cme_oblivious_fit:
    output:
        results("cme_oblivious/runs/d-{dim}/experiment-{experiment}.json"),
    log:
        logs("cme_oblivious/fit/d-{dim}/experiment-{experiment}.log"),
    benchmark:
        benchmarks("cme_oblivious_fit/d-{dim}/experiment-{experiment}.tsv")
    priority: 1
    threads: 1
    resources:
        mem_mb=800,
        runtime=20,
    params:
        seed=config["seed"],
        settings=CME_OBLIVIOUS,
        entry=job_entry("cme_oblivious", "fit"),
        code=job_code("cme_oblivious", "fit"),
    script:
        STUDY_JOB_SCRIPT


# Aggregate table, figure and report section in one job (each well under a second).
rule cme_oblivious_summary:
    input:
        runs=CME_OBLIVIOUS_RUNS,
    output:
        runs=results("cme_oblivious/cme_oblivious.csv"),
        table=report(
            results("tables/cme_oblivious.csv"),
            caption="../report/cme_oblivious_table.rst",
            category="Conditional mean embeddings tables",
        ),
        figure=report(
            results("figures/cme_oblivious.png"),
            caption="../report/cme_oblivious.rst",
            category="Conditional mean embeddings",
        ),
        json=results("report/cme_oblivious.json"),
        md=results("report/cme_oblivious.md"),
    log:
        logs("cme_oblivious/summary.log"),
    benchmark:
        benchmarks("cme_oblivious_summary.tsv")
    localrule: True
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        reference=study_reference("cme_oblivious"),
        readings=CME_OBLIVIOUS_READINGS,
        scale=config["scale"],
        entry=job_entry("cme_oblivious", "summary"),
        code=job_code("cme_oblivious", "summary"),
    script:
        STUDY_JOB_SCRIPT
