"""Oblivious data §7.1, Fig. 3: synthetic students; linear SVM, linear FERM and oblivious SVM.

:mod:`.readings` declares the readings (generator variant × C selection), :mod:`.run` draws
the samples and fits every method of one reading (job ``fit``), :mod:`.tables` builds the
run and mean ± sd tables, :mod:`.report` checks the paper's claims and writes the section
(job ``summary``), :mod:`.figures` draws Fig. 3.
"""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="students",
    paper=PAPERS["oblivious"],
    order=20,
    summary=(
        "Oblivious data §7.1, Fig. 3: synthetic students; linear SVM, linear FERM and"
        " oblivious SVM."
    ),
    outputs=(
        "tables/students.csv",
        "figures/oblivious_fig3.png",
        "report/students.md",
        "report/students.json",
    ),
    quick_run_time="10 s",
    jobs={"fit": "run:fit", "summary": "report:summary"},
    config_checks="checks:check",
    reference=("oblivious", "students"),
    readings="readings:readings",
)
