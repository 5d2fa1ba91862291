"""CME: oblivious features with continuous S, dyadic vs CME estimator (target: cme)."""

CME_OBLIVIOUS = config["cme_oblivious"]
CME_OBLIVIOUS_RUNS = expand(
    "results/cme_oblivious/runs/d-{dim}/experiment-{experiment}.json",
    dim=CME_OBLIVIOUS["sensitive_dims"],
    experiment=CME_OBLIVIOUS["experiments"],
)


rule cme_oblivious_fit:
    output:
        "results/cme_oblivious/runs/d-{dim}/experiment-{experiment}.json",
    log:
        "logs/cme_oblivious/fit/d-{dim}/experiment-{experiment}.log",
    benchmark:
        "benchmarks/out/cme_oblivious/fit/d-{dim}/experiment-{experiment}.tsv"
    threads: 1
    resources:
        mem_mb=800,
        runtime=20,
    params:
        seed=config["seed"],
        settings=CME_OBLIVIOUS,
        code=src_digest(
            "kernels.py",
            "conditional.py",
            "oblivious.py",
            "ridge.py",
            "cme.py",
            "seeding.py",
            "data/synthetic.py",
            "experiments/ridge.py",
            "experiments/cme_oblivious.py",
        ),
    script:
        "../scripts/cme_oblivious_fit.py"


rule cme_oblivious_aggregate:
    input:
        CME_OBLIVIOUS_RUNS,
    output:
        runs="results/cme_oblivious/cme_oblivious.csv",
        table="results/tables/cme_oblivious.csv",
    log:
        "logs/cme_oblivious/aggregate.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        code=src_digest("experiments/cme_oblivious.py"),
    script:
        "../scripts/cme_oblivious_aggregate.py"


rule cme_oblivious_figure:
    input:
        "results/tables/cme_oblivious.csv",
    output:
        report(
            "results/figures/cme_oblivious.png",
            caption="../report/cme_oblivious.rst",
            category="Conditional mean embeddings",
        ),
    log:
        "logs/cme_oblivious/figure.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        code=src_digest("report/cme_oblivious.py", "report/figures.py"),
    script:
        "../scripts/cme_oblivious_figure.py"


rule cme_oblivious_report:
    input:
        "results/tables/cme_oblivious.csv",
    output:
        "results/report/cme_oblivious.md",
    log:
        "logs/cme_oblivious/report.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        code=src_digest("report/cme_oblivious.py", "report/tables.py"),
    script:
        "../scripts/cme_oblivious_report.py"


rule cme:
    input:
        "results/tables/cme_oblivious.csv",
        "results/figures/cme_oblivious.png",
        "results/report/cme_oblivious.md",
