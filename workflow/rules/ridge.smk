"""Paper §7.2, Fig. 4: KRR vs ORR vs M-ORR over the dependence γ (target: ridge)."""

from krepro.studies.readings import job_repetitions

RIDGE = config["ridge"]
# The readings (krepro.studies.ridge.readings): one per protocol variant.
RIDGE_READINGS = study_readings("ridge")
# One job per (variant, experiment): all γ values and repetitions (~0.07 s each) in one
# process, so that interpreter start-up does not dominate; records stay one per run.
RIDGE_FITS = job_repetitions(RIDGE_READINGS, ("variant",))
RIDGE_RUNS = expand(
    results("ridge/runs/{variant}/experiment-{experiment}.json"),
    variant=[variant for variant, in RIDGE_FITS],
    experiment=RIDGE["experiments"],
)


rule ridge_fit:
    output:
        results("ridge/runs/{variant}/experiment-{experiment}.json"),
    log:
        logs("ridge/fit/{variant}/experiment-{experiment}.log"),
    benchmark:
        benchmarks("ridge_fit/{variant}/experiment-{experiment}.tsv")
    threads: 1
    resources:
        mem_mb=500,
        runtime=10,
    params:
        seed=config["seed"],
        gammas=RIDGE["gammas"],
        variant_params=lambda wc: RIDGE["variants"][wc.variant],
        sizes={
            key: RIDGE[key]
            for key in ("n_train", "n_estimation", "n_validation", "n_test")
        },
        n_repetitions=lambda wc: RIDGE_FITS[(wc.variant,)],
        kernel_gamma=RIDGE["kernel_gamma"],
        partition=RIDGE["partition"],
        entry=job_entry("ridge", "fit"),
        code=job_code("ridge", "fit"),
    script:
        STUDY_JOB_SCRIPT


# Aggregate tables, Fig. 4 and the report section in one job: each takes a fraction of a
# second, far less than starting a job. On the submit host: seconds, from the run records.
rule ridge_summary:
    input:
        runs=RIDGE_RUNS,
    output:
        runs=results("ridge/ridge.csv"),
        table=results("tables/ridge.csv"),
        best_constant=results("tables/ridge_best_constant.csv"),
        figure=report(
            results("figures/oblivious_fig4.png"),
            caption="../report/oblivious_fig4.rst",
            category="Oblivious features",
        ),
        json=results("report/ridge.json"),
        md=results("report/ridge.md"),
    log:
        logs("ridge/summary.log"),
    benchmark:
        benchmarks("ridge_summary.tsv")
    localrule: True
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        reference=study_reference("ridge"),
        readings=RIDGE_READINGS,
        settings=RIDGE,
        scale=config["scale"],
        entry=job_entry("ridge", "summary"),
        code=job_code("ridge", "summary"),
    script:
        STUDY_JOB_SCRIPT
