"""Extension of Oblivious data to fair regression with a continuous sensitive feature
(S = age): error–dependence fronts of oblivious ridge regression (partition and CME
estimators of E[φ(X)|S]) beside KRR, fairlearn's CorrelationRemover and
ExponentiatedGradient with BoundedGroupLoss, and HSIC-penalised KRR, on synthetic data,
diabetes, Parkinson's telemonitoring and Adult.

:mod:`.run` fits every method and setting on the random splits of one data set (job
``fit``), :mod:`.tables` tidies and aggregates the runs, :mod:`.fronts` reads the fronts,
:mod:`.readings` declares the readings (the estimator of E[φ(X)|S]), :mod:`.report` checks
the claims and writes the section (job ``summary``), :mod:`.figures` draws the fronts.
"""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="fair_regression",
    paper=PAPERS["oblivious"],
    order=75,
    summary=(
        "Fair regression with a continuous sensitive feature (S = age; extension): oblivious"
        " ridge (partition and CME estimators) against KRR, fairlearn's CorrelationRemover"
        " and ExponentiatedGradient with BoundedGroupLoss, and HSIC-penalised KRR on"
        " synthetic data, diabetes, Parkinson's telemonitoring and Adult."
    ),
    outputs=(
        "tables/fair_regression.csv",
        "figures/fair_regression.png",
        "report/fair_regression.md",
        "report/fair_regression.json",
    ),
    quick_run_time="25 s",
    jobs={"fit": "run:fit", "summary": "report:summary"},
    datasets=("adult", "parkinsons"),
    config_checks="checks:check",
    reference=("oblivious", "fair_regression"),
    readings="readings:readings",
)
