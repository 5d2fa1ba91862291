"""Oblivious data, App. E.3 and Props. 2, 3: projection of Z onto M = φ[X], the distance
d_n(Z + h, M) and the projection's dependence on S against Z's over γ.

:mod:`.run` projects the oblivious features of one γ (job ``run``), :mod:`.tables` tidies
and aggregates the runs, :mod:`.readings` declares the one reading, :mod:`.report` checks the
propositions and writes the section (job ``summary``), :mod:`.figures` draws the distance and
the dependences against γ. The projection itself lives
in :mod:`krepro.fairness.projection`.
"""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="projection",
    paper=PAPERS["oblivious"],
    order=120,
    summary=(
        "Oblivious data, App. E.3 and Props. 2, 3: projection of Z onto M = φ[X], the distance"
        " d_n(Z + h, M) and the projection's dependence on S against Z's over γ."
    ),
    outputs=(
        "tables/projection.csv",
        "figures/oblivious_projection.png",
        "report/projection.md",
    ),
    quick_run_time="20 s",
    jobs={"run": "run:run", "summary": "report:summary"},
    config_checks="checks:check",
    reference=("oblivious", "projection"),
    readings="readings:readings",
)
