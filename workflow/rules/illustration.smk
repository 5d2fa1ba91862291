"""Paper §5, Fig. 2: h(X) and ⟨h, Z⟩ against S (target: illustration)."""


rule illustration_sample:
    output:
        points=results("illustration/points.csv"),
        summary=results("tables/illustration.csv"),
    log:
        logs("illustration/sample.log"),
    benchmark:
        benchmarks("illustration_sample.tsv")
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


# Fig. 2 and the report section in one job (each well under a second).
rule illustration_summary:
    input:
        points=results("illustration/points.csv"),
        summary=results("tables/illustration.csv"),
        reference=PAPER_REFERENCE,
    output:
        figure=report(
            results("figures/oblivious_fig2.png"),
            caption="../report/oblivious_fig2.rst",
            category="Oblivious features",
        ),
        json=results("report/illustration.json"),
        md=results("report/illustration.md"),
    log:
        logs("illustration/summary.log"),
    benchmark:
        benchmarks("illustration_summary.tsv")
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        scale=config["scale"],
        code=script_code("illustration_summary.py"),
    script:
        "../scripts/illustration_summary.py"


rule illustration:
    """Oblivious data §5, Fig. 2: h(X) and ⟨h, Z⟩ against S (X = S + U; h1 = x², h2 = sin).

    Outputs: results/figures/oblivious_fig2.png, results/tables/illustration.csv,
    results/report/illustration.md.
    Run time on 2 cores: quick 4 s, paper 4 s.
    """
    input:
        results("figures/oblivious_fig2.png"),
        results("tables/illustration.csv"),
        results("report/illustration.md"),
