"""DCM paper: synthetic Table 3 + Fig. 2 (target dcm_synthetic), Parkinson's Table 4 (dcm_parkinsons)."""

DCM_SYN = config["dcm_synthetic"]
DCM_PARK = config["dcm_parkinsons"]
# Readings: every combination of the protocol axes (config lists). The data and the
# dimension reduction depend on (centring, b_scale) / centring: one job per such reading;
# classifiers and SVR kernels are fitted inside the job on the same projections.
DCM_SYN_RUNS = expand(
    results("dcm_synthetic/runs/{centring}_b-{b_scale}/eta-{eta}_gamma-{gamma}.json"),
    centring=DCM_SYN["centring"],
    b_scale=DCM_SYN["b_scale"],
    eta=DCM_SYN["etas"],
    gamma=DCM_SYN["gammas"],
)
DCM_SYN_READING_KEYS = (
    "fig2",
    "etas",
    "gammas",
    "centring",
    "b_scale",
    "n_repetitions",
    "reading_repetitions",
)


# What a split's fit depends on: everything but the repetition counts and the centrings
# (the fit rules' wildcards and outputs).
DCM_PARK_SETTINGS = {
    k: v
    for k, v in DCM_PARK.items()
    if k not in ("n_repetitions", "reading_repetitions", "centring")
}


DCM_PARK_RUNS = [
    results(f"dcm_parkinsons/runs/{centring}/rep-{rep}.json")
    for centring in DCM_PARK["centring"]
    for rep in range(dcm_repetitions(DCM_PARK, centring=centring))
]


rule dcm_synthetic_fit:
    output:
        results(
            "dcm_synthetic/runs/{centring}_b-{b_scale}/eta-{eta}_gamma-{gamma}.json"
        ),
    log:
        logs("dcm_synthetic/fit/{centring}_b-{b_scale}/eta-{eta}_gamma-{gamma}.log"),
    benchmark:
        benchmarks(
            "dcm_synthetic_fit/{centring}_b-{b_scale}/eta-{eta}_gamma-{gamma}.tsv"
        )
    wildcard_constraints:
        centring="centred|uncentred",
        b_scale="gaussian|unit",
        eta=r"[0-9.]+",
        gamma=r"[0-9.]+",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=20,
    params:
        seed=config["seed"],
        n_repetitions=lambda w: dcm_repetitions(
            DCM_SYN, centring=w.centring, b_scale=w.b_scale
        ),
        settings={k: v for k, v in DCM_SYN.items() if k not in DCM_SYN_READING_KEYS},
        code=script_code("dcm_synthetic_fit.py"),
    script:
        "../scripts/dcm_synthetic_fit.py"


rule dcm_fig2_fit:
    output:
        results("dcm_synthetic/fig2_projections.csv"),
    log:
        logs("dcm_synthetic/fig2_fit.log"),
    benchmark:
        benchmarks("dcm_fig2_fit.tsv")
    priority: 1
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
            "centring": DCM_SYN["primary"]["centring"],
        },
        code=script_code("dcm_fig2_fit.py"),
    script:
        "../scripts/dcm_fig2_fit.py"


# Table 3, Fig. 2 and the report section in one job (each well under a second).
rule dcm_synthetic_summary:
    input:
        runs=DCM_SYN_RUNS,
        projections=results("dcm_synthetic/fig2_projections.csv"),
        reference=PAPER_REFERENCE,
    output:
        runs=results("dcm_synthetic/dcm_synthetic.csv"),
        table=report(
            results("tables/dcm_table3.csv"),
            caption="../report/dcm_table3.rst",
            category="DCM tables",
        ),
        markdown=results("tables/dcm_table3.md"),
        figure=report(
            results("figures/dcm_fig2.png"),
            caption="../report/dcm_fig2.rst",
            category="Domain generalisation (DCM)",
        ),
        json=results("report/dcm_synthetic.json"),
        md=results("report/dcm_synthetic.md"),
    log:
        logs("dcm_synthetic/summary.log"),
    benchmark:
        benchmarks("dcm_synthetic_summary.tsv")
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        scale=config["scale"],
        primary=DCM_SYN["primary"],
        code=script_code("dcm_synthetic_summary.py"),
    script:
        "../scripts/dcm_synthetic_summary.py"


rule dcm_synthetic:
    """DCM (Wu 2021), Table 3 and Fig. 2: DCM vs DICA, COIR and an SVM on 10 synthetic
    domains.

    Outputs: results/tables/dcm_table3.csv (+ .md), results/figures/dcm_fig2.png,
    results/report/dcm_synthetic.md.
    Run time on 2 cores: quick 1 min, paper 2.5 min.
    """
    input:
        results("tables/dcm_table3.csv"),
        results("tables/dcm_table3.md"),
        results("figures/dcm_fig2.png"),
        results("report/dcm_synthetic.md"),
        results("report/dcm_synthetic.json"),


rule dcm_parkinsons_fit:
    input:
        data="resources/parkinsons/parkinsons_updrs.data",
    output:
        results("dcm_parkinsons/runs/{centring}/rep-{rep}.json"),
    log:
        logs("dcm_parkinsons/fit/{centring}/rep-{rep}.log"),
    benchmark:
        benchmarks("dcm_parkinsons_fit/{centring}/rep-{rep}.tsv")
    wildcard_constraints:
        centring="centred|uncentred",
        rep=r"\d+",
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        seed=config["seed"],
        sweep_centring=DCM_PARK["primary"]["centring"],
        settings=DCM_PARK_SETTINGS,
        code=script_code("dcm_parkinsons_fit.py"),
    script:
        "../scripts/dcm_parkinsons_fit.py"


# Repetitions that every centring runs: one job fits all of them on the split (shared
# split, scaling and sanity rows, one start-up); the primary reading's further
# repetitions run alone (rule dcm_parkinsons_fit). Same output files either way.
DCM_PARK_PAIRED = min(
    dcm_repetitions(DCM_PARK, centring=centring) for centring in DCM_PARK["centring"]
)


if len(DCM_PARK["centring"]) > 1 and DCM_PARK_PAIRED > 0:

    ruleorder: dcm_parkinsons_fit_readings > dcm_parkinsons_fit

    rule dcm_parkinsons_fit_readings:
        input:
            data="resources/parkinsons/parkinsons_updrs.data",
        output:
            **{
                centring: results(f"dcm_parkinsons/runs/{centring}/rep-{{rep}}.json")
                for centring in DCM_PARK["centring"]
            },
        log:
            logs("dcm_parkinsons/fit/readings/rep-{rep}.log"),
        benchmark:
            benchmarks("dcm_parkinsons_fit_readings/rep-{rep}.tsv")
        wildcard_constraints:
            rep="|".join(str(rep) for rep in range(DCM_PARK_PAIRED)),
        threads: 1
        resources:
            mem_mb=3000,
            runtime=60,
        params:
            seed=config["seed"],
            centrings=DCM_PARK["centring"],
            sweep_centring=DCM_PARK["primary"]["centring"],
            settings=DCM_PARK_SETTINGS,
            code=script_code("dcm_parkinsons_fit.py"),
        script:
            "../scripts/dcm_parkinsons_fit.py"


# Table 4, the landmark sweep, its figure and the report section in one job (each well
# under a second).
rule dcm_parkinsons_summary:
    input:
        runs=DCM_PARK_RUNS,
        reference=PAPER_REFERENCE,
    output:
        runs=results("dcm_parkinsons/dcm_parkinsons.csv"),
        table=report(
            results("tables/dcm_table4.csv"),
            caption="../report/dcm_table4.rst",
            category="DCM tables",
        ),
        markdown=results("tables/dcm_table4.md"),
        sweep=report(
            results("tables/dcm_nystrom.csv"),
            caption="../report/dcm_nystrom_table.rst",
            category="DCM tables",
        ),
        figure=report(
            results("figures/dcm_nystrom.png"),
            caption="../report/dcm_nystrom.rst",
            category="Domain generalisation (DCM)",
        ),
        json=results("report/dcm_parkinsons.json"),
        md=results("report/dcm_parkinsons.md"),
    log:
        logs("dcm_parkinsons/summary.log"),
    benchmark:
        benchmarks("dcm_parkinsons_summary.tsv")
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        scale=config["scale"],
        primary=DCM_PARK["primary"],
        code=script_code("dcm_parkinsons_summary.py"),
    script:
        "../scripts/dcm_parkinsons_summary.py"


rule dcm_parkinsons:
    """DCM, Table 4: standard and Nyström DCM, DICA, COIR with ε-SVR on UCI Parkinson's
    Telemonitoring (42 subjects = domains), plus a landmark sweep.

    Outputs: results/tables/dcm_table4.csv (+ .md), results/figures/dcm_nystrom.png,
    results/report/dcm_parkinsons.md.
    Run time on 2 cores: quick 1 min, paper 5.5 min.
    """
    input:
        results("tables/dcm_table4.csv"),
        results("tables/dcm_table4.md"),
        results("figures/dcm_nystrom.png"),
        results("report/dcm_parkinsons.md"),
        results("report/dcm_parkinsons.json"),
