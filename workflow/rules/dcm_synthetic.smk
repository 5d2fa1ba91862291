"""DCM paper, Table 3 and Fig. 2: DCM vs DICA, COIR and an SVM (target: dcm_synthetic)."""

from krepro.studies.dcm_synthetic.readings import FIT_AXES
from krepro.studies.readings import job_repetitions

DCM_SYN = config["dcm_synthetic"]
# The readings (krepro.studies.dcm_synthetic.readings). The data and the dimension reduction
# depend on (centring, b_scale): one job per such pair and (η, γ), with the repetitions of its
# readings; the classifiers are fitted inside the job on the same projections.
DCM_SYN_READINGS = study_readings("dcm_synthetic")
DCM_SYN_FITS = job_repetitions(DCM_SYN_READINGS, FIT_AXES)
DCM_SYN_RUNS = [
    results(f"dcm_synthetic/runs/{centring}_b-{b_scale}/eta-{eta}_gamma-{gamma}.json")
    for centring, b_scale in DCM_SYN_FITS
    for eta in DCM_SYN["etas"]
    for gamma in DCM_SYN["gammas"]
]
DCM_SYN_READING_KEYS = (
    "fig2",
    "etas",
    "gammas",
    "centring",
    "b_scale",
    "n_repetitions",
    "reading_repetitions",
)


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
        n_repetitions=lambda w: DCM_SYN_FITS[w.centring, w.b_scale],
        settings={k: v for k, v in DCM_SYN.items() if k not in DCM_SYN_READING_KEYS},
        entry=job_entry("dcm_synthetic", "fit"),
        code=job_code("dcm_synthetic", "fit"),
    script:
        STUDY_JOB_SCRIPT


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
        entry=job_entry("dcm_synthetic", "fig2_fit"),
        code=job_code("dcm_synthetic", "fig2_fit"),
    script:
        STUDY_JOB_SCRIPT


# Table 3, Fig. 2 and the report section in one job (each well under a second).
rule dcm_synthetic_summary:
    input:
        runs=DCM_SYN_RUNS,
        projections=results("dcm_synthetic/fig2_projections.csv"),
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
    localrule: True
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        reference=study_reference("dcm_synthetic"),
        scale=config["scale"],
        readings=DCM_SYN_READINGS,
        entry=job_entry("dcm_synthetic", "summary"),
        code=job_code("dcm_synthetic", "summary"),
    script:
        STUDY_JOB_SCRIPT
