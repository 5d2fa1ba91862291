"""Distributed regression (Avanesov 2021), Fig. 1 and Table 1: coverage of simultaneous
bootstrap bands of distributed KRR over the number of partitions P and the prediction-set
size T.

:mod:`.readings` declares the readings (penalty variant × band) and their shards;
:mod:`.run` simulates blocks of repetitions (job ``shard``); :mod:`.tables` makes the
per-repetition table and Table 1, :mod:`.figures` the heat map, coverage and RMSE plots,
:mod:`.report` checks the paper's claims and writes the section (job ``summary``).
"""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="coverage",
    paper=PAPERS["coverage"],
    order=100,
    summary=(
        "Distributed regression (Avanesov), Fig. 1 and Table 1: coverage of simultaneous"
        " bootstrap bands of distributed KRR over P and T; RMSE of f̄ vs P."
    ),
    outputs=(
        "tables/coverage_table1.csv",
        "tables/coverage_table1.md",
        "figures/coverage_fig1.png",
        "figures/coverage_fig1_lines.png",
        "figures/coverage_rmse.png",
        "report/coverage.md",
        "report/coverage.json",
    ),
    quick_run_time="1 min",
    jobs={"shard": "run:shard", "summary": "report:summary"},
    config_checks="checks:check",
    reference=("coverage",),
    readings="readings:readings",
)
