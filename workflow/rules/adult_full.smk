"""Adult at full scale on explicit kernel features, beside fairlearn (adult_full).

Targets: adult_full.
"""

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
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        seed=config["seed"],
        grid=ADULT_FULL["grid"],
        validation_fraction=ADULT_FULL["validation_fraction"],
        settings=ADULT_FULL_SETTINGS,
        code=script_code("adult_full_select.py"),
    script:
        "../scripts/adult_full_select.py"


rule adult_full_fit:
    input:
        data="resources/adult/adult.data",
        test="resources/adult/adult.test",
        selection=results("adult_full/selection.json"),
    output:
        results("adult_full/runs/{adult_full_method}.json"),
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
        code=script_code("adult_full_fit.py"),
    script:
        "../scripts/adult_full_fit.py"


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
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        seed=config["seed"],
        sweep=ADULT_FULL["sweep"],
        code=script_code("adult_full_sweep.py"),
    script:
        "../scripts/adult_full_sweep.py"


# Tables, figure and report section in one job (each well under a second).
rule adult_full_summary:
    input:
        runs=expand(
            results("adult_full/runs/{adult_full_method}.json"),
            adult_full_method=ADULT_FULL["methods"],
        ),
        sweep=results("adult_full/sweep.json"),
        selection=results("adult_full/selection.json"),
        reference=PAPER_REFERENCE,
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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        settings=ADULT_FULL,
        scale=config["scale"],
        code=script_code("adult_full_summary.py"),
    script:
        "../scripts/adult_full_summary.py"


rule adult_full:
    """Extension of Oblivious data Table 1: RBF methods on explicit Nyström features on all of
    Adult, beside fairlearn's CorrelationRemover, ExponentiatedGradient and ThresholdOptimizer.

    Outputs: results/tables/adult_full.csv (+ .md), results/tables/adult_full_sweep.csv,
    results/figures/adult_full.png, results/report/adult_full.md.
    Run time on 2 cores: quick 30 s, paper 2.5 min.
    """
    input:
        results("tables/adult_full.csv"),
        results("tables/adult_full.md"),
        results("tables/adult_full_sweep.csv"),
        results("figures/adult_full.png"),
        results("report/adult_full.md"),
