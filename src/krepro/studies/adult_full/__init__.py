"""Extension of Oblivious data Table 1 (§7.1): the RBF methods on explicit Nyström features on
all of Adult, beside fairlearn's CorrelationRemover, ExponentiatedGradient and
ThresholdOptimizer, and a landmark sweep against the exact methods.

:mod:`.run` selects (C, γ) (job ``select``) and fits one method on all of Adult (job
``fit``), :mod:`.sweep` runs the landmark sweep (job ``sweep``), :mod:`.tables` and
:mod:`.figures` build the tables and the figure, :mod:`.bootstrap` resamples the test rows
(the claims' intervals for the one split), :mod:`.readings` declares its one reading and
:mod:`.report` checks the claims and writes the section (job ``summary``).
"""

from krepro.studies.study import PAPERS, Study

STUDY = Study(
    name="adult_full",
    paper=PAPERS["oblivious"],
    order=40,
    summary=(
        "Extension of Oblivious data Table 1: RBF methods on explicit Nyström features on all of"
        " Adult, beside fairlearn's CorrelationRemover, ExponentiatedGradient and"
        " ThresholdOptimizer."
    ),
    outputs=(
        "tables/adult_full.csv",
        "tables/adult_full.md",
        "tables/adult_full_sweep.csv",
        "figures/adult_full.png",
        "report/adult_full.md",
    ),
    quick_run_time="30 s",
    jobs={
        "select": "run:select",
        "fit": "run:fit",
        "sweep": "sweep:sweep",
        "summary": "report:summary",
    },
    datasets=("adult",),
    reference=("oblivious",),
    reference_only=("adult_full", "adult"),
    readings="readings:readings",
)
