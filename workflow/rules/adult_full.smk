"""Adult at full scale on explicit kernel features, beside fairlearn (target: adult_full)."""

ADULT_FULL = config["adult_full"]
ADULT_FULL_SETTINGS = {
    key: ADULT_FULL[key]
    for key in (
        "n_components",
        "approximation",
        "classifier",
        "oblivious_estimation",
        "correlation_remover_alpha",
        "exponentiated_gradient",
    )
}


wildcard_constraints:
    adult_full_method="|".join(ADULT_FULL["methods"]),


rule adult_full_select:
    input:
        data="resources/adult/adult.data",
        test="resources/adult/adult.test",
    output:
        results("adult_full/selection.json"),
    log:
        logs("adult_full/select.log"),
    benchmark:
        benchmarks("adult_full_select.tsv")
    priority: 1
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        seed=config["seed"],
        grid=ADULT_FULL["grid"],
        validation_fraction=ADULT_FULL["validation_fraction"],
        settings=ADULT_FULL_SETTINGS,
        entry=job_entry("adult_full", "select"),
        code=job_code("adult_full", "select"),
    script:
        STUDY_JOB_SCRIPT


rule adult_full_fit:
    input:
        data="resources/adult/adult.data",
        test="resources/adult/adult.test",
        selection=results("adult_full/selection.json"),
    output:
        record=results("adult_full/runs/{adult_full_method}.json"),
        # Test predictions for the summary's test-set bootstrap.
        predictions=results("adult_full/predictions/{adult_full_method}.npz"),
    log:
        logs("adult_full/fit/{adult_full_method}.log"),
    benchmark:
        benchmarks("adult_full_fit/{adult_full_method}.tsv")
    priority: 1
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        seed=config["seed"],
        settings=ADULT_FULL_SETTINGS,
        entry=job_entry("adult_full", "fit"),
        code=job_code("adult_full", "fit"),
    script:
        STUDY_JOB_SCRIPT


rule adult_full_sweep:
    input:
        data="resources/adult/adult.data",
        test="resources/adult/adult.test",
    output:
        results("adult_full/sweep.json"),
    log:
        logs("adult_full/sweep.log"),
    benchmark:
        benchmarks("adult_full_sweep.tsv")
    priority: 1
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        seed=config["seed"],
        sweep=ADULT_FULL["sweep"],
        entry=job_entry("adult_full", "sweep"),
        code=job_code("adult_full", "sweep"),
    script:
        STUDY_JOB_SCRIPT


# Tables, figure and report section in one job (each well under a second).
rule adult_full_summary:
    input:
        runs=expand(
            results("adult_full/runs/{adult_full_method}.json"),
            adult_full_method=ADULT_FULL["methods"],
        ),
        predictions=expand(
            results("adult_full/predictions/{adult_full_method}.npz"),
            adult_full_method=ADULT_FULL["methods"],
        ),
        sweep=results("adult_full/sweep.json"),
        selection=results("adult_full/selection.json"),
    output:
        runs=results("adult_full/adult_full.csv"),
        table=report(
            results("tables/adult_full.csv"),
            caption="../report/adult_full_table.rst",
            category="Adult at full scale tables",
        ),
        markdown=results("tables/adult_full.md"),
        sweep=report(
            results("tables/adult_full_sweep.csv"),
            caption="../report/adult_full_sweep.rst",
            category="Adult at full scale tables",
        ),
        figure=report(
            results("figures/adult_full.png"),
            caption="../report/adult_full.rst",
            category="Fair classification",
        ),
        json=results("report/adult_full.json"),
        md=results("report/adult_full.md"),
    log:
        logs("adult_full/summary.log"),
    benchmark:
        benchmarks("adult_full_summary.tsv")
    localrule: True
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        reference=study_reference("adult_full"),
        readings=study_readings("adult_full"),
        settings=ADULT_FULL,
        methods=ADULT_FULL["methods"],
        seed=config["seed"],
        scale=config["scale"],
        entry=job_entry("adult_full", "summary"),
        code=job_code("adult_full", "summary"),
    script:
        STUDY_JOB_SCRIPT
