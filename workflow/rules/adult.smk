"""Paper §7.1, Table 1: fair classification on UCI Adult (target: adult)."""

ADULT = config["adult"]
# One job per (protocol, grid): all methods in one process (FERM dominates; the others take
# seconds), so interpreter start-up and parsing Adult do not dominate the quick config.
ADULT_RUNS = expand(
    results("adult/runs/{adult_protocol}/{adult_grid}.json"),
    adult_protocol=list(ADULT["protocols"]),
    adult_grid=ADULT["run_grids"],
)


wildcard_constraints:
    adult_protocol="reference|corrected",
    adult_grid="[A-Za-z][A-Za-z0-9_]*",


rule adult_fit:
    input:
        data="resources/adult/adult.data",
        test="resources/adult/adult.test",
    output:
        results("adult/runs/{adult_protocol}/{adult_grid}.json"),
    log:
        logs("adult/fit/{adult_protocol}/{adult_grid}.log"),
    benchmark:
        benchmarks("adult_fit/{adult_protocol}/{adult_grid}.tsv")
    priority: 3
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        methods=ADULT["methods"],
        grid=lambda wc: ADULT["grids"][wc.adult_grid],
        options=lambda wc: ADULT["protocols"][wc.adult_protocol],
        n_folds=ADULT["n_folds"],
        n_train_corrected=ADULT["n_train_corrected"],
        entry=job_entry("adult", "fit"),
        code=job_code("adult", "fit"),
    script:
        STUDY_JOB_SCRIPT


# Table 1 (.csv, .md, .tex) and the report section in one job (each well under a second).
rule adult_summary:
    input:
        runs=ADULT_RUNS,
        reference=PAPER_REFERENCE,
    output:
        runs=results("adult/adult.csv"),
        table=report(
            results("tables/adult_table1.csv"),
            caption="../report/adult_table1.rst",
            category="Fair classification tables",
        ),
        markdown=results("tables/adult_table1.md"),
        latex=results("tables/adult_table1.tex"),
        json=results("report/adult.json"),
        md=results("report/adult.md"),
    log:
        logs("adult/summary.log"),
    benchmark:
        benchmarks("adult_summary.tsv")
    localrule: True
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        primary_protocol=ADULT["primary_protocol"],
        primary_grid=ADULT["primary_grid"],
        scale=config["scale"],
        entry=job_entry("adult", "summary"),
        code=job_code("adult", "summary"),
    script:
        STUDY_JOB_SCRIPT
