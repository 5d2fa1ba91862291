"""Fair regression with a continuous sensitive feature (target: fair_regression)."""

FAIR_REGRESSION = config["fair_regression"]
FAIR_REGRESSION_DATA = {
    "adult": {"adult": "resources/adult/adult.data"},
    "parkinsons": {"parkinsons": "resources/parkinsons/parkinsons_updrs.data"},
}


wildcard_constraints:
    fair_regression_dataset="synthetic|diabetes|parkinsons|adult",


rule fair_regression_fit:
    input:
        unpack(
            lambda wildcards: FAIR_REGRESSION_DATA.get(
                wildcards.fair_regression_dataset, {}
            )
        ),
    output:
        results("fair_regression/runs/{fair_regression_dataset}.json"),
    log:
        logs("fair_regression/fit/{fair_regression_dataset}.log"),
    benchmark:
        benchmarks("fair_regression_fit/{fair_regression_dataset}.tsv")
    priority: 1
    threads: 1
    resources:
        mem_mb=1500,
        runtime=20,
    params:
        seed=config["seed"],
        settings={k: v for k, v in FAIR_REGRESSION.items() if k != "datasets"},
        entry=job_entry("fair_regression", "fit"),
        code=job_code("fair_regression", "fit"),
    script:
        STUDY_JOB_SCRIPT


# Aggregate table, figure and report section in one job (each about a second).
rule fair_regression_summary:
    input:
        runs=expand(
            results("fair_regression/runs/{dataset}.json"),
            dataset=FAIR_REGRESSION["datasets"],
        ),
    output:
        runs=results("fair_regression/fair_regression.csv"),
        table=report(
            results("tables/fair_regression.csv"),
            caption="../report/fair_regression_table.rst",
            category="Fair regression tables",
        ),
        figure=report(
            results("figures/fair_regression.png"),
            caption="../report/fair_regression.rst",
            category="Fair regression",
        ),
        json=results("report/fair_regression.json"),
        md=results("report/fair_regression.md"),
    log:
        logs("fair_regression/summary.log"),
    benchmark:
        benchmarks("fair_regression_summary.tsv")
    localrule: True
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        reference=study_reference("fair_regression"),
        readings=study_readings("fair_regression"),
        scale=config["scale"],
        entry=job_entry("fair_regression", "summary"),
        code=job_code("fair_regression", "summary"),
    script:
        STUDY_JOB_SCRIPT
