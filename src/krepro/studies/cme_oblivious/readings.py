"""Readings of ``cme_oblivious`` (``Study.readings``): the estimator of E[φ(X)|S] inside the
oblivious features × the dimension d of S; the primary one is the paper's, the dyadic
partition with the smallest d."""

from __future__ import annotations

from krepro.studies.readings import Reading

__all__ = ["ESTIMATORS", "readings"]

#: The estimators of E[φ(X)|S] every fit job runs, the paper's (the dyadic partition) first.
ESTIMATORS = ("dyadic", "cme")


def readings(settings):
    """The study's readings under its config section ``settings``: per estimator, per
    dimension of S (ascending), named ``"<estimator>, d = <d>"``, each with
    ``n_repetitions`` repetitions per setting."""
    dims = sorted(settings["sensitive_dims"])
    return [
        Reading(
            f"{estimator}, d = {dim}",
            {"estimator": estimator, "sensitive_dim": dim},
            primary=estimator == ESTIMATORS[0] and dim == dims[0],
            repetitions=settings["n_repetitions"],
        )
        for estimator in ESTIMATORS
        for dim in dims
    ]
