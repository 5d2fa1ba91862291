"""Readings of ``fair_regression`` (``Study.readings``): the estimator of E[φ(X)|S] in the
oblivious features, the paper's partition (primary) or the CME; every random split is a
repetition."""

from __future__ import annotations

from krepro.studies.readings import Reading

__all__ = ["ESTIMATORS", "readings"]

#: The estimators of E[φ(X)|S] (the oblivious methods ``oblivious_<estimator>``); the first
#: is the paper's.
ESTIMATORS = ("partition", "cme")


def readings(settings):
    """The study's readings under its config section ``settings``: one per estimator, named
    by it, each with ``n_splits`` repetitions."""
    return [
        Reading(estimator, primary=estimator == ESTIMATORS[0], repetitions=settings["n_splits"])
        for estimator in ESTIMATORS
    ]
