"""Extension of Oblivious data §7.2: oblivious features for continuous S with the paper's
dyadic partition or a conditional mean embedding (CME) as the estimator of E[φ(X)|S].

:mod:`.readings` declares the readings (estimator × d), :mod:`.run` runs every γ and
repetition of one (d, experiment) setting with both estimators (job ``fit``), :mod:`.tables`
tidies and aggregates the runs, :mod:`.report` checks the claim and writes the section (job
``summary``), :mod:`.figures` draws the figure.
"""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="cme_oblivious",
    paper=PAPERS["oblivious"],
    order=70,
    summary="CME-based oblivious features for continuous S (extension).",
    outputs=(
        "tables/cme_oblivious.csv",
        "figures/cme_oblivious.png",
        "report/cme_oblivious.md",
        "report/cme_oblivious.json",
    ),
    quick_run_time="20 s",
    jobs={"fit": "run:fit", "summary": "report:summary"},
    config_checks="checks:check",
    reference=("cme", "oblivious_features"),
    readings="readings:readings",
)
