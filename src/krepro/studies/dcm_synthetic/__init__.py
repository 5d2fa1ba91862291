"""DCM (Wu 2021), Table 3 and Fig. 2: DCM against DICA, COIR and an SVM on 10 synthetic
domains, under every reading of the protocol.

:mod:`.readings` declares the readings of the protocol, :mod:`.run` draws the domains and
fits (jobs ``fit`` and ``fig2_fit``, the RBF SVM of the projections in :mod:`.svm`),
:mod:`.tables` builds Table 3, :mod:`.report` checks the paper's claim and writes the section
(job ``summary``), :mod:`.figures` draws Fig. 2.
"""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="dcm_synthetic",
    paper=PAPERS["dcm"],
    order=80,
    summary=(
        "DCM (Wu 2021), Table 3 and Fig. 2: DCM vs DICA, COIR and an SVM on 10 synthetic domains."
    ),
    outputs=(
        "tables/dcm_table3.csv",
        "tables/dcm_table3.md",
        "figures/dcm_fig2.png",
        "report/dcm_synthetic.md",
        "report/dcm_synthetic.json",
    ),
    quick_run_time="1 min",
    jobs={"fit": "run:fit", "fig2_fit": "run:fig2_fit", "summary": "report:summary"},
    config_checks="checks:check",
    reference=("dcm", "synthetic"),
    readings="readings:readings",
)
