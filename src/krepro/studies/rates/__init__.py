"""Oblivious data, Props. 5 and 6 (measured): convergence rates of the estimators of
E[φ(X)|S] against a closed-form truth, log-log slopes with bootstrap intervals.

:mod:`.run` measures the errors of one setting (job ``run``),
:mod:`.gram_cost` times the oblivious Gram matrix over a grid of n (job ``gram_cost``, its
own job module so that either job's code can change without rerunning the other),
:mod:`.tables` makes the run tables and fits the slopes, :mod:`.report` checks the
propositions and writes the section (job ``summary``), :mod:`.figures` draws the error
against n. The closed forms live in :mod:`krepro.fairness.rates`. The settings
(:func:`setting_names`, one ``run`` job each) are named here, where the rule file reads them.
"""

from krepro.studies.study import PAPERS, Study

__all__ = ["STUDY", "parse_setting", "setting_names"]


def setting_names(settings):
    """Names of the settings of a ``rates`` config section: ``finite_k<k>``, ``continuous_d<d>``."""
    return [f"finite_k{k}" for k in settings["finite"]["n_values"]] + [
        f"continuous_d{d}" for d in settings["continuous"]["dims"]
    ]


def parse_setting(setting):
    """``(kind, value)`` of a setting's name: ``("finite", k)`` or ``("continuous", d)``."""
    kind, _, value = setting.partition("_")
    if kind == "finite" and value.startswith("k"):
        return kind, int(value[1:])
    if kind == "continuous" and value.startswith("d"):
        return kind, int(value[1:])
    raise ValueError(f"Unknown rates setting {setting!r}; expected finite_k<k> or continuous_d<d>.")


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
