"""DCM paper: synthetic Table 3 + Fig. 2 (target dcm_synthetic), Parkinson's Table 4 (dcm_parkinsons)."""

DCM_SYN = config["dcm_synthetic"]
DCM_PARK = config["dcm_parkinsons"]
DCM_CODE = ("dcm.py", "dcm_core.py", "kernels.py", "seeding.py")
DCM_SYN_RUNS = expand(
    "results/dcm_synthetic/runs/eta-{eta}_gamma-{gamma}.json",
    eta=DCM_SYN["etas"],
    gamma=DCM_SYN["gammas"],
)
DCM_PARK_RUNS = expand(
    "results/dcm_parkinsons/runs/rep-{rep}.json", rep=range(DCM_PARK["n_repetitions"])
)


rule dcm_synthetic_fit:
    output:
        "results/dcm_synthetic/runs/eta-{eta}_gamma-{gamma}.json",
    log:
        "logs/dcm_synthetic/fit/eta-{eta}_gamma-{gamma}.log",
    benchmark:
        "benchmarks/out/dcm_synthetic/fit/eta-{eta}_gamma-{gamma}.tsv"
    wildcard_constraints:
        eta=r"[0-9.]+",
        gamma=r"[0-9.]+",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=20,
    params:
        seed=config["seed"],
        settings={
            k: v for k, v in DCM_SYN.items() if k not in ("fig2", "etas", "gammas")
        },
        code=src_digest(*DCM_CODE, "data/domains.py", "experiments/dcm_synthetic.py"),
    script:
        "../scripts/dcm_synthetic_fit.py"


rule dcm_synthetic_aggregate:
    input:
        DCM_SYN_RUNS,
    output:
        runs="results/dcm_synthetic/dcm_synthetic.csv",
        table="results/tables/dcm_table3.csv",
        markdown="results/tables/dcm_table3.md",
    log:
        "logs/dcm_synthetic/aggregate.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        code=src_digest(
            "experiments/dcm_synthetic.py", "report/dcm.py", "report/tables.py"
        ),
    script:
        "../scripts/dcm_synthetic_aggregate.py"


rule dcm_fig2_fit:
    output:
        "results/dcm_synthetic/fig2_projections.csv",
    log:
        "logs/dcm_synthetic/fig2_fit.log",
    benchmark:
        "benchmarks/out/dcm_synthetic/fig2_fit.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        seed=config["seed"],
        settings={
            **{
                k: DCM_SYN[k] for k in ("n_domains", "n_train_domains", "c", "epsilon")
            },
            **DCM_SYN["fig2"],
        },
        code=src_digest(*DCM_CODE, "data/domains.py", "experiments/dcm_synthetic.py"),
    script:
        "../scripts/dcm_fig2_fit.py"


rule dcm_fig2_figure:
    input:
        "results/dcm_synthetic/fig2_projections.csv",
    output:
        report(
            "results/figures/dcm_fig2.png",
            caption="../report/dcm_fig2.rst",
            category="Domain generalisation (DCM)",
        ),
    log:
        "logs/dcm_synthetic/fig2_figure.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        code=src_digest("report/dcm.py", "report/figures.py"),
    script:
        "../scripts/dcm_fig2_figure.py"


rule dcm_synthetic_report:
    input:
        runs="results/dcm_synthetic/dcm_synthetic.csv",
        table="results/tables/dcm_table3.csv",
        reference=PAPER_REFERENCE,
    output:
        "results/report/dcm_synthetic.md",
    log:
        "logs/dcm_synthetic/report.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        code=src_digest("report/dcm.py", "report/compare.py", "report/tables.py"),
    script:
        "../scripts/dcm_synthetic_report.py"


rule dcm_synthetic:
    """DCM (Wu 2021), Table 3 and Fig. 2: DCM vs DICA, COIR and an SVM on 10 synthetic
    domains.

    Outputs: results/tables/dcm_table3.csv (+ .md), results/figures/dcm_fig2.png,
    results/report/dcm_synthetic.md.
    Run time on 2 cores: quick 1 min, paper 2 min.
    """
    input:
        "results/tables/dcm_table3.csv",
        "results/tables/dcm_table3.md",
        "results/figures/dcm_fig2.png",
        "results/report/dcm_synthetic.md",


rule dcm_parkinsons_fit:
    input:
        data="resources/parkinsons/parkinsons_updrs.data",
    output:
        "results/dcm_parkinsons/runs/rep-{rep}.json",
    log:
        "logs/dcm_parkinsons/fit/rep-{rep}.log",
    benchmark:
        "benchmarks/out/dcm_parkinsons/fit/rep-{rep}.tsv"
    wildcard_constraints:
        rep=r"\d+",
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        seed=config["seed"],
        settings={k: v for k, v in DCM_PARK.items() if k != "n_repetitions"},
        code=src_digest(
            *DCM_CODE, "data/parkinsons.py", "experiments/dcm_parkinsons.py"
        ),
    script:
        "../scripts/dcm_parkinsons_fit.py"


rule dcm_parkinsons_aggregate:
    input:
        DCM_PARK_RUNS,
    output:
        runs="results/dcm_parkinsons/dcm_parkinsons.csv",
        table="results/tables/dcm_table4.csv",
        markdown="results/tables/dcm_table4.md",
        sweep="results/tables/dcm_nystrom.csv",
    log:
        "logs/dcm_parkinsons/aggregate.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        code=src_digest(
            "experiments/dcm_parkinsons.py", "report/dcm.py", "report/tables.py"
        ),
    script:
        "../scripts/dcm_parkinsons_aggregate.py"


rule dcm_nystrom_figure:
    input:
        sweep="results/tables/dcm_nystrom.csv",
        table="results/tables/dcm_table4.csv",
    output:
        report(
            "results/figures/dcm_nystrom.png",
            caption="../report/dcm_nystrom.rst",
            category="Domain generalisation (DCM)",
        ),
    log:
        "logs/dcm_parkinsons/nystrom_figure.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        code=src_digest("report/dcm.py", "report/figures.py"),
    script:
        "../scripts/dcm_nystrom_figure.py"


rule dcm_parkinsons_report:
    input:
        runs="results/dcm_parkinsons/dcm_parkinsons.csv",
        table="results/tables/dcm_table4.csv",
        sweep="results/tables/dcm_nystrom.csv",
        reference=PAPER_REFERENCE,
    output:
        "results/report/dcm_parkinsons.md",
    log:
        "logs/dcm_parkinsons/report.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        code=src_digest("report/dcm.py", "report/compare.py", "report/tables.py"),
    script:
        "../scripts/dcm_parkinsons_report.py"


rule dcm_parkinsons:
    """DCM, Table 4: standard and Nyström DCM, DICA, COIR with ε-SVR on UCI Parkinson's
    Telemonitoring (42 subjects = domains), plus a landmark sweep.

    Outputs: results/tables/dcm_table4.csv (+ .md), results/figures/dcm_nystrom.png,
    results/report/dcm_parkinsons.md.
    Run time on 2 cores: quick 1 min, paper 8 min.
    """
    input:
        "results/tables/dcm_table4.csv",
        "results/tables/dcm_table4.md",
        "results/figures/dcm_nystrom.png",
        "results/report/dcm_parkinsons.md",
