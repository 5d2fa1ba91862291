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
# One job per reading (generator variant × C-selection rule) listed in the config.
STUDENTS_RUNS = [
    f"results/students/runs/{variant}/{c_selection}.json"
    for c_selection, spec in STUDENTS["c_selections"].items()
    for variant in spec["variants"]
]
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
if ADULT["primary_grid"] not in ADULT["run_grids"]:
    raise ValueError(
        f"adult.primary_grid = {ADULT['primary_grid']!r} is not one of adult.run_grids "
        f"{ADULT['run_grids']}."
    )
if ADULT["primary_protocol"] not in ADULT["protocols"]:
    raise ValueError(
        f"adult.primary_protocol = {ADULT['primary_protocol']!r} is not one of "
        f"adult.protocols {sorted(ADULT['protocols'])}."
    )
if STUDENTS["primary_variant"] not in STUDENTS["variants"]:
    raise ValueError(
        f"students.primary_variant = {STUDENTS['primary_variant']!r} is not one of "
        f"students.variants {sorted(STUDENTS['variants'])}."
    )
if STUDENTS["primary_c_selection"] not in STUDENTS["c_selections"]:
    raise ValueError(
        f"students.primary_c_selection = {STUDENTS['primary_c_selection']!r} is not one of "
        f"students.c_selections {sorted(STUDENTS['c_selections'])}."
    )
for _name, _spec in STUDENTS["c_selections"].items():
    for _variant in _spec["variants"]:
        if _variant not in STUDENTS["variants"]:
            raise ValueError(
                f"students.c_selections.{_name}.variants: {_variant!r} is not one of "
                f"students.variants {sorted(STUDENTS['variants'])}."
            )
    if _spec["log2_C_min"] > _spec["log2_C_max"]:
        raise ValueError(
            f"students.c_selections.{_name}: log2_C_min = {_spec['log2_C_min']} > "
            f"log2_C_max = {_spec['log2_C_max']}."
        )
if (
    STUDENTS["primary_variant"]
    not in STUDENTS["c_selections"][STUDENTS["primary_c_selection"]]["variants"]
):
    raise ValueError(
        f"students.primary_variant = {STUDENTS['primary_variant']!r} is not run under "
        f"students.primary_c_selection = {STUDENTS['primary_c_selection']!r} (its variants)."
    )
STUDENTS_PRIMARY = f"{STUDENTS['primary_variant']}/{STUDENTS['primary_c_selection']}"
# Fig. 3 rows: the primary reading first, then the others in config order.
STUDENTS_READINGS = [STUDENTS_PRIMARY] + [
    f"{variant}/{c_selection}"
    for c_selection, spec in STUDENTS["c_selections"].items()
    for variant in spec["variants"]
    if f"{variant}/{c_selection}" != STUDENTS_PRIMARY
]


wildcard_constraints:
    students_variant="[A-Za-z][A-Za-z0-9_]*",
    students_c_selection="[A-Za-z][A-Za-z0-9_]*",
    adult_protocol="reference|corrected",
    adult_grid="[A-Za-z][A-Za-z0-9_]*",


rule students_fit:
    output:
        "results/students/runs/{students_variant}/{students_c_selection}.json",
    log:
        "logs/students/fit/{students_variant}/{students_c_selection}.log",
    benchmark:
        "benchmarks/out/students/fit/{students_variant}/{students_c_selection}.tsv"
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
        table=report(
            "results/tables/students.csv",
            caption="../report/students_table.rst",
            category="Fair classification tables",
        ),
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
        readings=STUDENTS_READINGS,
        code=src_digest("report/fairness.py", "report/figures.py"),
    script:
        "../scripts/students_figure.py"


rule students_report:
    input:
        runs="results/students/students.csv",
        table="results/tables/students.csv",
        reference=PAPER_REFERENCE,
    output:
        json="results/report/students.json",
        md="results/report/students.md",
    log:
        "logs/students/report.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        primary_reading=STUDENTS_PRIMARY,
        c_selections=STUDENTS["c_selections"],
        scale=config["scale"],
        code=src_digest(
            "report/fairness.py",
            "report/verdicts.py",
            "report/render.py",
            "report/tables.py",
        ),
    script:
        "../scripts/students_report.py"


rule students:
    input:
        "results/tables/students.csv",
        "results/figures/oblivious_fig3.png",
        "results/report/students.md",
        "results/report/students.json",


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
        table=report(
            "results/tables/adult_table1.csv",
            caption="../report/adult_table1.rst",
            category="Fair classification tables",
        ),
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
        json="results/report/adult.json",
        md="results/report/adult.md",
    log:
        "logs/adult/report.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        primary_protocol=ADULT["primary_protocol"],
        primary_grid=ADULT["primary_grid"],
        scale=config["scale"],
        code=src_digest(
            "report/fairness.py",
            "report/verdicts.py",
            "report/render.py",
            "report/tables.py",
        ),
    script:
        "../scripts/adult_report.py"


rule adult:
    input:
        "results/tables/adult_table1.csv",
        "results/tables/adult_table1.md",
        "results/tables/adult_table1.tex",
        "results/report/adult.md",
        "results/report/adult.json",
