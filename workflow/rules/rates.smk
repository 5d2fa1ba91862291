"""Extensions of the oblivious paper: rates of the E[φ(X)|S] estimators (Props. 5, 6; target:
rates) and the projection of the oblivious features onto M = φ[X] (App. E.3; target:
projection)."""

RATES = config["rates"]
RATES_SETTINGS = [f"finite_k{k}" for k in RATES["finite"]["n_values"]] + [
    f"continuous_d{d}" for d in RATES["continuous"]["dims"]
]
PROJECTION = config["projection"]


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
        code=script_code("rates_run.py"),
    script:
        "../scripts/rates_run.py"


# Tables, figure and report section in one job (each well under a second).
rule rates_summary:
    input:
        runs=expand(results("rates/runs/{setting}.json"), setting=RATES_SETTINGS),
        reference=PAPER_REFERENCE,
    output:
        runs=results("rates/rates.csv"),
        errors=results("rates/errors.csv"),
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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        seed=config["seed"],
        settings=RATES,
        scale=config["scale"],
        code=script_code("rates_summary.py"),
    script:
        "../scripts/rates_summary.py"


rule rates:
    """Oblivious data, Props. 5 and 6 (measured): convergence rates of the estimators of
    E[φ(X)|S] against a closed-form truth, log-log slopes with bootstrap intervals.

    Outputs: results/tables/oblivious_rates.csv, results/figures/oblivious_rates.png,
    results/report/rates.md.
    Run time on 2 cores: quick 30 s, paper 30 s.
    """
    input:
        results("tables/oblivious_rates.csv"),
        results("figures/oblivious_rates.png"),
        results("report/rates.md"),


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
        code=script_code("projection_run.py"),
    script:
        "../scripts/projection_run.py"


# Table, figure and report section in one job (each well under a second).
rule projection_summary:
    input:
        runs=expand(
            results("projection/runs/gamma-{gamma}.json"),
            gamma=[f"{g:g}" for g in PROJECTION["gammas"]],
        ),
        reference=PAPER_REFERENCE,
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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        settings=PROJECTION,
        scale=config["scale"],
        code=script_code("projection_summary.py"),
    script:
        "../scripts/projection_summary.py"


rule projection:
    """Oblivious data, App. E.3 and Props. 2, 3: projection of Z onto M = φ[X], the distance
    d_n(Z + h, M) and the projection's dependence on S against Z's over γ.

    Outputs: results/tables/projection.csv, results/figures/oblivious_projection.png,
    results/report/projection.md.
    Run time on 2 cores: quick 20 s, paper 1 min.
    """
    input:
        results("tables/projection.csv"),
        results("figures/oblivious_projection.png"),
        results("report/projection.md"),
