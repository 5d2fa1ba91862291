"""Oblivious data, Props. 5 and 6: rates of the E[φ(X)|S] estimators, measured (target:
rates)."""

from krepro.studies.rates import setting_names

RATES = config["rates"]
# One run job per setting (finite_k<k>, continuous_d<d>).
RATES_SETTINGS = setting_names(RATES)


rule rates_run:
    output:
        results("rates/runs/{setting}.json"),
    log:
        logs("rates/run/{setting}.log"),
    benchmark:
        benchmarks("rates_run/{setting}.tsv")
    wildcard_constraints:
        setting=r"finite_k\d+|continuous_d\d+",
    priority: 2
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        seed=config["seed"],
        settings=RATES,
        entry=job_entry("rates", "run"),
        code=job_code("rates", "run"),
    script:
        STUDY_JOB_SCRIPT


# CPU time of the oblivious Gram matrix over a grid of n (paper §1, §6: O(n²)); one thread,
# so that BLAS runs on the job's single core and the CPU time is that of one core.
rule rates_gram_cost:
    output:
        results("rates/gram_cost.json"),
    log:
        logs("rates/gram_cost.log"),
    benchmark:
        benchmarks("rates_gram_cost.tsv")
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        seed=config["seed"],
        settings=RATES["gram_cost"],
        entry=job_entry("rates", "gram_cost"),
        code=job_code("rates", "gram_cost"),
    script:
        STUDY_JOB_SCRIPT


# Tables, figure and report section in one job (each well under a second).
rule rates_summary:
    input:
        runs=expand(results("rates/runs/{setting}.json"), setting=RATES_SETTINGS),
        gram_cost=results("rates/gram_cost.json"),
    output:
        runs=results("rates/rates.csv"),
        errors=results("rates/errors.csv"),
        gram_cost=results("rates/gram_cost.csv"),
        table=report(
            results("tables/oblivious_rates.csv"),
            caption="../report/oblivious_rates_table.rst",
            category="Oblivious features tables",
        ),
        figure=report(
            results("figures/oblivious_rates.png"),
            caption="../report/oblivious_rates.rst",
            category="Oblivious features",
        ),
        json=results("report/rates.json"),
        md=results("report/rates.md"),
    log:
        logs("rates/summary.log"),
    benchmark:
        benchmarks("rates_summary.tsv")
    localrule: True
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        reference=study_reference("rates"),
        readings=study_readings("rates"),
        seed=config["seed"],
        settings=RATES,
        scale=config["scale"],
        entry=job_entry("rates", "summary"),
        code=job_code("rates", "summary"),
    script:
        STUDY_JOB_SCRIPT
