"""Paper §7.1, Table 1: fair classification on UCI Adult (target: adult)."""

from krepro.studies.adult.readings import fit_jobs, job_methods

ADULT = config["adult"]
# The readings (krepro.studies.adult.readings): every (protocol, grid), then the variant rows.
ADULT_READINGS = study_readings("adult")
# One job per (protocol, grid, random split): all methods of a split in one process (FERM
# dominates; the others take seconds), so that the splits spread over the cores while
# interpreter start-up and parsing Adult stay small beside the fits.
ADULT_RUNS = [
    results(f"adult/runs/{protocol}/{grid}/split{split}.json")
    for protocol, grid, split in fit_jobs(ADULT_READINGS)
]


wildcard_constraints:
    adult_protocol="reference|corrected",
    adult_grid="[A-Za-z][A-Za-z0-9_]*",
    adult_split="[0-9]+",


rule adult_fit:
    input:
        data="resources/adult/adult.data",
        test="resources/adult/adult.test",
    output:
        results("adult/runs/{adult_protocol}/{adult_grid}/split{adult_split}.json"),
    log:
        logs("adult/fit/{adult_protocol}/{adult_grid}/split{adult_split}.log"),
    benchmark:
        benchmarks("adult_fit/{adult_protocol}/{adult_grid}/split{adult_split}.tsv")
    priority: 3
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        methods=lambda wc: job_methods(
            ADULT_READINGS,
            ADULT,
            wc.adult_protocol,
            wc.adult_grid,
            int(wc.adult_split),
        ),
        seed=config["seed"],
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
    output:
        runs=results("adult/adult.csv"),
        table=report(
            results("tables/adult_table1.csv"),
            caption="../report/adult_table1.rst",
            category="Fair classification tables",
        ),
        markdown=results("tables/adult_table1.md"),
        latex=results("tables/adult_table1.tex"),
        figure=report(
            results("figures/adult_table1.png"),
            caption="../report/adult_table1_figure.rst",
            category="Fair classification",
        ),
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
        reference=study_reference("adult"),
        readings=ADULT_READINGS,
        variants=ADULT.get("variants", {}),
        scale=config["scale"],
        entry=job_entry("adult", "summary"),
        code=job_code("adult", "summary"),
    script:
        STUDY_JOB_SCRIPT
