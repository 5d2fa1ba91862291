"""CME note (conditional distribution regression): each claim of the note checked against the
closed-form truths of a known law.

:mod:`.run` runs the estimator over the λ grid and repetitions (job ``run``), :mod:`.tables`
builds the λ table and the claims table, :mod:`.figures` draws the figure, :mod:`.report`
checks the claims and writes the section (job ``summary``).
"""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="cme",
    paper=PAPERS["cme"],
    order=60,
    summary="CME note: each claim checked against a closed-form truth.",
    outputs=("tables/cme.csv", "figures/cme.png", "report/cme.md", "report/cme.json"),
    quick_run_time="10 s",
    jobs={"run": "run:run", "summary": "report:summary"},
    config_checks="checks:check",
    reference=("cme",),
    reference_only=("note", "claims"),
)
