"""Oblivious data, Props. 5 and 6 (measured): convergence rates of the estimators of
E[φ(X)|S] against a closed-form truth, log-log slopes with bootstrap intervals.

:mod:`.run` measures the errors of one setting (job ``run``) and fits the slopes,
:mod:`.gram_cost` times the oblivious Gram matrix over a grid of n (job ``gram_cost``),
:mod:`.report` checks the propositions and writes the section (job ``summary``),
:mod:`.figures` draws the error against n. The closed forms live in
:mod:`krepro.fairness.rates`.
"""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="rates",
    paper=PAPERS["oblivious"],
    order=110,
    summary=(
        "Oblivious data, Props. 5 and 6 (measured): convergence rates of the estimators of"
        " E[φ(X)|S] against a closed-form truth, log-log slopes with bootstrap intervals; CPU"
        " time of the oblivious Gram matrix against n (§1, §6: O(n²))."
    ),
    outputs=(
        "tables/oblivious_rates.csv",
        "figures/oblivious_rates.png",
        "report/rates.md",
    ),
    quick_run_time="30 s",
    jobs={"run": "run:run", "gram_cost": "gram_cost:run", "summary": "report:summary"},
    config_checks="checks:check",
    reference=("oblivious", "rates"),
)
