"""Oblivious data §7.2, Fig. 4: kernel ridge regression (KRR) against oblivious ridge
regression (ORR, M-ORR) over the dependence γ of X on S.

:mod:`.readings` declares the readings (one per protocol variant), :mod:`.run` draws the
samples and fits (job ``fit``), :mod:`.tables` tidies and aggregates the runs, :mod:`.report`
checks the paper's claims and writes the section (job ``summary``), :mod:`.figures` draws
Fig. 4.
"""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="ridge",
    paper=PAPERS["oblivious"],
    order=50,
    summary="Oblivious data §7.2, Fig. 4a/4b: KRR vs ORR vs M-ORR over the dependence γ.",
    outputs=("tables/ridge.csv", "figures/oblivious_fig4.png", "report/ridge.md"),
    quick_run_time="20 s",
    jobs={"fit": "run:fit", "summary": "report:summary"},
    config_checks="checks:check",
    reference=("oblivious", "ridge"),
    readings="readings:readings",
)
