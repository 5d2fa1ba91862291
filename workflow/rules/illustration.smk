"""Paper §5, Fig. 2: h(X) and ⟨h, Z⟩ against S (target: illustration)."""


rule illustration_sample:
    output:
        points=results("illustration/points.csv"),
        dependence=results("illustration/dependence.csv"),
        summary=results("tables/illustration.csv"),
    log:
        logs("illustration/sample.log"),
    benchmark:
        benchmarks("illustration_sample.tsv")
    priority: 1
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        seed=config["seed"],
        settings=config["illustration"],
        entry=job_entry("illustration", "sample"),
        code=job_code("illustration", "sample"),
    script:
        STUDY_JOB_SCRIPT


# Fig. 2 and the report section in one job (each well under a second).
rule illustration_summary:
    input:
        points=results("illustration/points.csv"),
        dependence=results("illustration/dependence.csv"),
        summary=results("tables/illustration.csv"),
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
    localrule: True
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        reference=study_reference("illustration"),
        readings=study_readings("illustration"),
        scale=config["scale"],
        entry=job_entry("illustration", "summary"),
        code=job_code("illustration", "summary"),
    script:
        STUDY_JOB_SCRIPT
