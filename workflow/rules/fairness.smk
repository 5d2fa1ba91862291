"""Paper §7.1: fair classification — synthetic students (Fig. 3) and UCI Adult (Table 1).

Targets: students, adult.
"""

STUDENTS = config["students"]
ADULT = config["adult"]
FAIRNESS_LIBRARY = (
    "kernels.py",
    "conditional.py",
    "oblivious.py",
    "ferm.py",
    "metrics.py",
)
STUDENTS_RUNS = expand(
    "results/students/runs/{students_variant}.json",
    students_variant=list(STUDENTS["variants"]),
)
# One job per (protocol, grid): all methods in one process (FERM dominates; the others take
# seconds), so interpreter start-up and parsing Adult do not dominate the quick config.
ADULT_RUNS = expand(
    "results/adult/runs/{adult_protocol}/{adult_grid}.json",
    adult_protocol=list(ADULT["protocols"]),
    adult_grid=ADULT["run_grids"],
)
for _grid in ADULT["run_grids"]:
    if _grid not in ADULT["grids"]:
        raise ValueError(
            f"adult.run_grids: {_grid!r} is not one of adult.grids {sorted(ADULT['grids'])}."
        )
if STUDENTS["primary_variant"] not in STUDENTS["variants"]:
    raise ValueError(
        f"students.primary_variant = {STUDENTS['primary_variant']!r} is not one of "
        f"students.variants {sorted(STUDENTS['variants'])}."
    )


wildcard_constraints:
    students_variant="[A-Za-z][A-Za-z0-9_]*",
    adult_protocol="reference|corrected",
    adult_grid="[A-Za-z][A-Za-z0-9_]*",


rule students_fit:
    output:
        "results/students/runs/{students_variant}.json",
    log:
        "logs/students/fit/{students_variant}.log",
    benchmark:
        "benchmarks/out/students/fit/{students_variant}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        seed=config["seed"],
        variant_params=lambda wc: STUDENTS["variants"][wc.students_variant],
        sizes={k: STUDENTS[k] for k in ("n_train", "n_estimation", "n_test")},
        n_repetitions=STUDENTS["n_repetitions"],
        log2_C=[STUDENTS["log2_C_min"], STUDENTS["log2_C_max"]],
        n_folds=STUDENTS["n_folds"],
        code=src_digest(
            *FAIRNESS_LIBRARY,
            "seeding.py",
            "data/students.py",
            "experiments/adult.py",
            "experiments/students.py",
        ),
    script:
        "../scripts/students_fit.py"


rule students_aggregate:
    input:
        STUDENTS_RUNS,
    output:
        runs="results/students/students.csv",
        table="results/tables/students.csv",
    log:
        "logs/students/aggregate.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        code=src_digest("experiments/students.py"),
    script:
        "../scripts/students_aggregate.py"


rule students_figure:
    input:
        runs="results/students/students.csv",
        table="results/tables/students.csv",
    output:
        report(
            "results/figures/oblivious_fig3.png",
            caption="../report/students_fig3.rst",
            category="Fair classification",
        ),
    log:
        "logs/students/figure.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        variants=[STUDENTS["primary_variant"]]
        + [v for v in STUDENTS["variants"] if v != STUDENTS["primary_variant"]],
        code=src_digest("report/fairness.py", "report/figures.py"),
    script:
        "../scripts/students_figure.py"


rule students_report:
    input:
        runs="results/students/students.csv",
        table="results/tables/students.csv",
        reference=PAPER_REFERENCE,
    output:
        "results/report/students.md",
    log:
        "logs/students/report.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        primary_variant=STUDENTS["primary_variant"],
        code=src_digest("report/fairness.py", "report/compare.py", "report/tables.py"),
    script:
        "../scripts/students_report.py"


rule students:
    """Oblivious data §7.1, Fig. 3: synthetic students; linear SVM, linear FERM and
    oblivious SVM.

    Outputs: results/tables/students.csv, results/figures/oblivious_fig3.png,
    results/report/students.md.
    Run time on 2 cores: quick 10 s, paper 20 s.
    """
    input:
        "results/tables/students.csv",
        "results/figures/oblivious_fig3.png",
        "results/report/students.md",


rule adult_fit:
    input:
        data="resources/adult/adult.data",
        test="resources/adult/adult.test",
    output:
        "results/adult/runs/{adult_protocol}/{adult_grid}.json",
    log:
        "logs/adult/fit/{adult_protocol}/{adult_grid}.log",
    benchmark:
        "benchmarks/out/adult/fit/{adult_protocol}/{adult_grid}.tsv"
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
        code=src_digest(*FAIRNESS_LIBRARY, "data/adult.py", "experiments/adult.py"),
    script:
        "../scripts/adult_fit.py"


rule adult_aggregate:
    input:
        ADULT_RUNS,
    output:
        runs="results/adult/adult.csv",
        table="results/tables/adult_table1.csv",
        markdown="results/tables/adult_table1.md",
        latex="results/tables/adult_table1.tex",
    log:
        "logs/adult/aggregate.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        code=src_digest("report/fairness.py", "report/tables.py"),
    script:
        "../scripts/adult_aggregate.py"


rule adult_report:
    input:
        table="results/tables/adult_table1.csv",
        reference=PAPER_REFERENCE,
    output:
        "results/report/adult.md",
    log:
        "logs/adult/report.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        code=src_digest("report/fairness.py", "report/compare.py", "report/tables.py"),
    script:
        "../scripts/adult_report.py"


rule adult:
    """Oblivious data §7.1, Table 1: UCI Adult (gender); SVM, FERM and oblivious SVM,
    linear and RBF.

    Outputs: results/tables/adult_table1.csv (+ .md, .tex), results/report/adult.md.
    Run time on 2 cores: quick 40 s, paper 11 min.
    """
    input:
        "results/tables/adult_table1.csv",
        "results/tables/adult_table1.md",
        "results/tables/adult_table1.tex",
        "results/report/adult.md",
