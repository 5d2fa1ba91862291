"""CME note: the estimator and its claims; CME-based oblivious features (target: cme)."""


rule cme_run:
    output:
        table=report(
            results("tables/cme.csv"),
            caption="../report/cme_table.rst",
            category="Conditional mean embeddings tables",
        ),
        claims=results("cme/claims.csv"),
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
        code=script_code("cme_run.py"),
    script:
        "../scripts/cme_run.py"


# The figure and the report section of the CME note in one job (each well under a second).
rule cme_summary:
    input:
        table=results("tables/cme.csv"),
        claims=results("cme/claims.csv"),
        sample=results("cme/sample.csv"),
        query=results("cme/query.csv"),
        curves=results("cme/curves.csv"),
        weights=results("cme/weights.csv"),
        reference=PAPER_REFERENCE,
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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        scale=config["scale"],
        code=script_code("cme_summary.py"),
    script:
        "../scripts/cme_summary.py"


CME_OBLIVIOUS = config["cme_oblivious"]
CME_OBLIVIOUS_RUNS = expand(
    results("cme_oblivious/runs/d-{dim}/experiment-{experiment}.json"),
    dim=CME_OBLIVIOUS["sensitive_dims"],
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
        code=script_code("cme_oblivious_fit.py"),
    script:
        "../scripts/cme_oblivious_fit.py"


# Aggregate table, figure and report section in one job (each well under a second).
rule cme_oblivious_summary:
    input:
        runs=CME_OBLIVIOUS_RUNS,
        reference=PAPER_REFERENCE,
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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        scale=config["scale"],
        code=script_code("cme_oblivious_summary.py"),
    script:
        "../scripts/cme_oblivious_summary.py"


rule cme:
    """CME note: each claim checked against a closed-form truth; CME-based oblivious
    features for continuous S (extension).

    Outputs: results/tables/cme.csv, results/figures/cme.png, results/tables/cme_oblivious.csv,
    results/figures/cme_oblivious.png, results/report/cme.md, results/report/cme_oblivious.md.
    Run time on 2 cores: quick 20 s, paper 1 min.
    """
    input:
        results("tables/cme.csv"),
        results("figures/cme.png"),
        results("report/cme.md"),
        results("report/cme.json"),
        results("tables/cme_oblivious.csv"),
        results("figures/cme_oblivious.png"),
        results("report/cme_oblivious.md"),
        results("report/cme_oblivious.json"),
