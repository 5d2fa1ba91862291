"""Paper §7.1, Fig. 3: fair classification of the synthetic students (target: students)."""

STUDENTS = config["students"]
# The readings (krepro.studies.students.readings): generator variant × C-selection rule.
STUDENTS_READINGS = study_readings("students")
# One job per reading.
STUDENTS_RUNS = [
    results(f"students/runs/{r.axes['variant']}/{r.axes['c_selection']}.json")
    for r in STUDENTS_READINGS
]


wildcard_constraints:
    students_variant="[A-Za-z][A-Za-z0-9_]*",
    students_c_selection="[A-Za-z][A-Za-z0-9_]*",


rule students_fit:
    output:
        results("students/runs/{students_variant}/{students_c_selection}.json"),
    log:
        logs("students/fit/{students_variant}/{students_c_selection}.log"),
    benchmark:
        benchmarks("students_fit/{students_variant}/{students_c_selection}.tsv")
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        seed=config["seed"],
        variant_params=lambda wc: STUDENTS["variants"][wc.students_variant],
        sizes={k: STUDENTS[k] for k in ("n_train", "n_estimation", "n_test")},
        n_repetitions=STUDENTS["n_repetitions"],
        c_selections=STUDENTS["c_selections"],
        primary_c_selection=STUDENTS["primary_c_selection"],
        n_folds=STUDENTS["n_folds"],
        entry=job_entry("students", "fit"),
        code=job_code("students", "fit"),
    script:
        STUDY_JOB_SCRIPT


# Aggregate table, Fig. 3 and the report section in one job (each well under a second).
rule students_summary:
    input:
        runs=STUDENTS_RUNS,
    output:
        runs=results("students/students.csv"),
        table=report(
            results("tables/students.csv"),
            caption="../report/students_table.rst",
            category="Fair classification tables",
        ),
        figure=report(
            results("figures/oblivious_fig3.png"),
            caption="../report/students_fig3.rst",
            category="Fair classification",
        ),
        json=results("report/students.json"),
        md=results("report/students.md"),
    log:
        logs("students/summary.log"),
    benchmark:
        benchmarks("students_summary.tsv")
    localrule: True
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        reference=study_reference("students"),
        readings=STUDENTS_READINGS,
        c_selections=STUDENTS["c_selections"],
        scale=config["scale"],
        entry=job_entry("students", "summary"),
        code=job_code("students", "summary"),
    script:
        STUDY_JOB_SCRIPT
