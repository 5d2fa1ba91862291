"""Oblivious data §7.1, Table 1: UCI Adult (gender); SVM, FERM and oblivious SVM, linear and
RBF.

:mod:`.readings` declares the readings (protocol × grid, and the variant rows), :mod:`.run`
selects, refits and scores every method of one (protocol, grid, split) (job ``fit``),
:mod:`.tables` builds Table 1, :mod:`.report` checks the paper's claims and writes the
section (job ``summary``). The model selection and the one-class guard that the students
study shares are beside the registry (:mod:`krepro.studies.selection`,
:mod:`krepro.studies.guards`).
"""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="adult",
    paper=PAPERS["oblivious"],
    order=30,
    summary=(
        "Oblivious data §7.1, Table 1: UCI Adult (gender); SVM, FERM and oblivious SVM,"
        " linear and RBF."
    ),
    outputs=(
        "tables/adult_table1.csv",
        "tables/adult_table1.md",
        "tables/adult_table1.tex",
        "figures/adult_table1.png",
        "report/adult.md",
        "report/adult.json",
    ),
    quick_run_time="1.5 min",
    jobs={"fit": "run:fit", "summary": "report:summary"},
    datasets=("adult",),
    config_checks="checks:check",
    reference=("oblivious", "adult"),
    readings="readings:readings",
)
