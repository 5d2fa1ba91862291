"""DCM paper, Table 4 and the Nyström landmark sweep on Parkinson's (target: dcm_parkinsons)."""

from krepro.studies.dcm_parkinsons.readings import FIT_AXES
from krepro.studies.readings import job_repetitions

# The readings (krepro.studies.dcm_parkinsons.readings). The dimension reduction depends on
# the centring: one job per (centring, repetition), or one per repetition for every centring
# (below); the SVR kernels are fitted inside the job on the same projections.
DCM_PARK = config["dcm_parkinsons"]
DCM_PARK_READINGS = study_readings("dcm_parkinsons")
# Centring -> the repetitions (subject splits) of its readings.
DCM_PARK_SPLITS = {
    centring: n
    for (centring,), n in job_repetitions(DCM_PARK_READINGS, FIT_AXES).items()
}

# What a split's fit depends on: everything but the repetition counts and the centrings
# (the fit rules' wildcards and outputs).
DCM_PARK_SETTINGS = {
    k: v
    for k, v in DCM_PARK.items()
    if k not in ("n_repetitions", "reading_repetitions", "centring")
}


DCM_PARK_RUNS = [
    results(f"dcm_parkinsons/runs/{centring}/rep-{rep}.json")
    for centring, n in DCM_PARK_SPLITS.items()
    for rep in range(n)
]


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
        entry=job_entry("dcm_parkinsons", "fit"),
        code=job_code("dcm_parkinsons", "fit"),
    script:
        STUDY_JOB_SCRIPT


# Repetitions that every centring runs: one job fits all of them on the split (shared
# split, scaling and sanity rows, one start-up); the primary reading's further
# repetitions run alone (rule dcm_parkinsons_fit). Same output files either way.
DCM_PARK_PAIRED = min(DCM_PARK_SPLITS.values())


if len(DCM_PARK_SPLITS) > 1 and DCM_PARK_PAIRED > 0:

    ruleorder: dcm_parkinsons_fit_readings > dcm_parkinsons_fit

    rule dcm_parkinsons_fit_readings:
        input:
            data="resources/parkinsons/parkinsons_updrs.data",
        output:
            **{
                centring: results(f"dcm_parkinsons/runs/{centring}/rep-{{rep}}.json")
                for centring in DCM_PARK_SPLITS
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
            centrings=list(DCM_PARK_SPLITS),
            sweep_centring=DCM_PARK["primary"]["centring"],
            settings=DCM_PARK_SETTINGS,
            entry=job_entry("dcm_parkinsons", "fit"),
            code=job_code("dcm_parkinsons", "fit"),
        script:
            STUDY_JOB_SCRIPT


# Table 4, the landmark sweep, its figure and the report section in one job (each well
# under a second).
rule dcm_parkinsons_summary:
    input:
        runs=DCM_PARK_RUNS,
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
    localrule: True
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        reference=study_reference("dcm_parkinsons"),
        scale=config["scale"],
        readings=DCM_PARK_READINGS,
        entry=job_entry("dcm_parkinsons", "summary"),
        code=job_code("dcm_parkinsons", "summary"),
    script:
        STUDY_JOB_SCRIPT
