"""Paper §5, Fig. 2: h(X) and ⟨h, Z⟩ against S (target: illustration)."""


rule illustration_sample:
    output:
        points="results/illustration/points.csv",
        summary="results/tables/illustration.csv",
    log:
        "logs/illustration/sample.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        seed=config["seed"],
        settings=config["illustration"],
        code=script_code("illustration_sample.py"),
    script:
        "../scripts/illustration_sample.py"


rule illustration_figure:
    input:
        "results/illustration/points.csv",
    output:
        report(
            "results/figures/oblivious_fig2.png",
            caption="../report/oblivious_fig2.rst",
            category="Oblivious features",
        ),
    log:
        "logs/illustration/figure.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        code=script_code("illustration_figure.py"),
    script:
        "../scripts/illustration_figure.py"


rule illustration_report:
    input:
        summary="results/tables/illustration.csv",
        reference=PAPER_REFERENCE,
    output:
        json="results/report/illustration.json",
        md="results/report/illustration.md",
    log:
        "logs/illustration/report.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        scale=config["scale"],
        code=script_code("illustration_report.py"),
    script:
        "../scripts/illustration_report.py"


rule illustration:
    """Oblivious data §5, Fig. 2: h(X) and ⟨h, Z⟩ against S (X = S + U; h1 = x², h2 = sin).

    Outputs: results/figures/oblivious_fig2.png, results/tables/illustration.csv,
    results/report/illustration.md.
    Run time on 2 cores: quick 4 s, paper 4 s.
    """
    input:
        "results/figures/oblivious_fig2.png",
        "results/tables/illustration.csv",
        "results/report/illustration.md",
