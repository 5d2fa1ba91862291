"""DCM (Wu 2021), Table 4: standard and Nyström DCM, DICA and COIR with ε-SVR on UCI
Parkinson's Telemonitoring (subjects = domains), plus a Nyström landmark sweep.

:mod:`.readings` declares the readings of the protocol, :mod:`.run` splits the subjects and
fits (job ``fit``: one split under one or every centring), :mod:`.tables` builds Table 4 and
the sweep, :mod:`.report` checks the paper's claims and writes the section (job
``summary``), :mod:`.figures` draws the landmark sweep.
"""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="dcm_parkinsons",
    paper=PAPERS["dcm"],
    order=90,
    summary=(
        "DCM, Table 4: standard and Nyström DCM, DICA, COIR with ε-SVR on UCI Parkinson's"
        " Telemonitoring (42 subjects = domains), plus a landmark sweep."
    ),
    outputs=(
        "tables/dcm_table4.csv",
        "tables/dcm_table4.md",
        "figures/dcm_nystrom.png",
        "report/dcm_parkinsons.md",
        "report/dcm_parkinsons.json",
    ),
    quick_run_time="1 min",
    jobs={"fit": "run:fit", "summary": "report:summary"},
    datasets=("parkinsons",),
    reference=("dcm", "parkinsons"),
    readings="readings:readings",
)
