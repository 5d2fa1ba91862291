"""Oblivious data §5, Fig. 2: h(X) and ⟨h, Z⟩ against S, for X = S + U and h1 = x², h2 = sin.

:mod:`.run` draws the points and measures their dependence on S (job ``sample``, which also
writes the mean ± sd table), :mod:`.readings` declares the one reading, :mod:`.report`
checks the paper's claims and writes the section (job ``summary``), :mod:`.tables` lays out
its table, :mod:`.figures` draws Fig. 2.
"""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="illustration",
    paper=PAPERS["oblivious"],
    order=10,
    summary=(
        "Oblivious data §5, Fig. 2: h(X) and ⟨h, Z⟩ against S (X = S + U; h1 = x², h2 = sin)."
    ),
    outputs=(
        "figures/oblivious_fig2.png",
        "tables/illustration.csv",
        "report/illustration.md",
    ),
    quick_run_time="4 s",
    jobs={"sample": "run:sample", "summary": "report:summary"},
    reference=("oblivious", "illustration"),
    readings="readings:readings",
)
