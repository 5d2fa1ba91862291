"""Paper §7.1: fair classification — synthetic students (Fig. 3) and UCI Adult (Table 1).

Targets: students, adult.
"""

STUDENTS = config["students"]
ADULT = config["adult"]
# One job per reading (generator variant × C-selection rule) listed in the config.
STUDENTS_RUNS = [
    results(f"students/runs/{variant}/{c_selection}.json")
    for c_selection, spec in STUDENTS["c_selections"].items()
    for variant in spec["variants"]
]
STUDENTS_PRIMARY = f"{STUDENTS['primary_variant']}/{STUDENTS['primary_c_selection']}"
# Fig. 3 rows: the primary reading first, then the others in config order.
STUDENTS_READINGS = [STUDENTS_PRIMARY] + [
    f"{variant}/{c_selection}"
    for c_selection, spec in STUDENTS["c_selections"].items()
    for variant in spec["variants"]
    if f"{variant}/{c_selection}" != STUDENTS_PRIMARY
]

# One job per (protocol, grid): all methods in one process (FERM dominates; the others take
# seconds), so interpreter start-up and parsing Adult do not dominate the quick config.
ADULT_RUNS = expand(
    results("adult/runs/{adult_protocol}/{adult_grid}.json"),
    adult_protocol=list(ADULT["protocols"]),
    adult_grid=ADULT["run_grids"],
)


wildcard_constraints:
    students_variant="[A-Za-z][A-Za-z0-9_]*",
    students_c_selection="[A-Za-z][A-Za-z0-9_]*",
    adult_protocol="reference|corrected",
    adult_grid="[A-Za-z][A-Za-z0-9_]*",


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
        code=script_code("students_fit.py"),
    script:
        "../scripts/students_fit.py"


# Aggregate table, Fig. 3 and the report section in one job (each well under a second).
rule students_summary:
    input:
        runs=STUDENTS_RUNS,
        reference=PAPER_REFERENCE,
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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        readings=STUDENTS_READINGS,
        primary_reading=STUDENTS_PRIMARY,
        c_selections=STUDENTS["c_selections"],
        scale=config["scale"],
        code=script_code("students_summary.py"),
    script:
        "../scripts/students_summary.py"


rule students:
    """Oblivious data §7.1, Fig. 3: synthetic students; linear SVM, linear FERM and
    oblivious SVM.

    Outputs: results/tables/students.csv, results/figures/oblivious_fig3.png,
    results/report/students.md.
    Run time on 2 cores: quick 10 s, paper 20 s.
    """
    input:
        results("tables/students.csv"),
        results("figures/oblivious_fig3.png"),
        results("report/students.md"),
        results("report/students.json"),


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
        code=script_code("adult_fit.py"),
    script:
        "../scripts/adult_fit.py"


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
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        primary_protocol=ADULT["primary_protocol"],
        primary_grid=ADULT["primary_grid"],
        scale=config["scale"],
        code=script_code("adult_summary.py"),
    script:
        "../scripts/adult_summary.py"


rule adult:
    """Oblivious data §7.1, Table 1: UCI Adult (gender); SVM, FERM and oblivious SVM,
    linear and RBF.

    Outputs: results/tables/adult_table1.csv (+ .md, .tex), results/report/adult.md.
    Run time on 2 cores: quick 40 s, paper 3 min.
    """
    input:
        results("tables/adult_table1.csv"),
        results("tables/adult_table1.md"),
        results("tables/adult_table1.tex"),
        results("report/adult.md"),
        results("report/adult.json"),
