"""Error–dependence fronts of the ``fair_regression`` study: the non-dominated points of each
method, the least dependence reached at a given error, the setting matched to a peer's error
and the paired per-split effects the verdicts read (used by both :mod:`.tables` and
:mod:`.report`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "STRONGER",
    "dependence_at_error",
    "matched_setting",
    "paired_log_ratios",
    "pareto_front",
]

#: Direction in which each peer's parameter strengthens its fairness intervention.
STRONGER = {"correlation_remover": max, "bounded_group_loss": min, "hsic_ridge": max}


def pareto_front(error, dependence):
    """Indices of the points no other point beats on both error and dependence, by error.

    A point is dominated when another has an error and a dependence no larger and one of
    them smaller; of points with equal (error, dependence) the first is kept.

    Parameters
    ----------
    error, dependence : array-like of shape (n,)

    Returns
    -------
    ndarray of int
        Positions of the front's points, in increasing error (decreasing dependence).
    """
    error = np.asarray(error, dtype=float)
    dependence = np.asarray(dependence, dtype=float)
    if error.shape != dependence.shape or error.ndim != 1:
        raise ValueError(
            f"error and dependence must be 1-d of the same length, got shapes {error.shape}"
            f" and {dependence.shape}."
        )
    order = np.lexsort((dependence, error))  # by error, ties by dependence
    front, best = [], np.inf
    for position in order:
        if dependence[position] < best:
            front.append(int(position))
            best = dependence[position]
    return np.asarray(front, dtype=int)


def dependence_at_error(error, dependence, level):
    """The least dependence among the points whose error is at most ``level`` (NaN if none).

    Read along a method's sweep, it is the method's front evaluated at the error ``level``
    without interpolating between settings.
    """
    error = np.asarray(error, dtype=float)
    dependence = np.asarray(dependence, dtype=float)
    within = error <= level
    return float(dependence[within].min()) if within.any() else float("nan")


def matched_setting(runs, dataset, method, level):
    """The largest parameter of ``method`` whose mean error over the splits is at most
    ``level`` (the smallest parameter when none is), and whether one is.

    For the oblivious ridge the parameter is t, so this is the most oblivious setting that is
    as accurate as ``level``: the method read "at that error". Only errors are read.

    Returns
    -------
    parameter : float
    matched : bool
        False when no setting reaches ``level`` (the smallest parameter is returned).

    Raises
    ------
    ValueError
        When the method has no records for the data set.
    """
    part = runs[(runs["dataset"] == dataset) & (runs["method"] == method)]
    if part.empty:
        raise ValueError(f"{dataset}: no records of method {method!r}.")
    errors = part.groupby("parameter")["error"].mean()
    within = errors[errors <= level]
    if within.empty:
        return float(errors.index.min()), False
    return float(within.index.max()), True


def paired_log_ratios(runs, dataset, numerator, denominator, measure):
    """Per split, log(measure of ``numerator`` / measure of ``denominator``).

    Parameters
    ----------
    runs : pandas.DataFrame
        Per-split records.
    dataset : str
    numerator, denominator : tuple of (str, float)
        (method, parameter) of the two fits; the parameter is matched to 1e-9.
    measure : str
        A column of ``runs`` (positive values).

    Returns
    -------
    ndarray
        One value per split present for both fits, in split order (> 0: ``numerator`` is
        larger).

    Raises
    ------
    ValueError
        When a (method, parameter) has no record for the data set.
    """
    part = runs[runs["dataset"] == dataset]
    values = []
    for method, parameter in (numerator, denominator):
        rows = part[(part["method"] == method) & np.isclose(part["parameter"], parameter,
                                                            rtol=0, atol=1e-9)]  # fmt: skip
        if rows.empty:
            raise ValueError(
                f"{dataset}: no records of method {method!r} at parameter {parameter!r}."
            )
        values.append(rows.set_index("split")[measure])
    joined = pd.concat(values, axis=1, join="inner").sort_index()
    return np.log(joined.iloc[:, 0].to_numpy(float) / joined.iloc[:, 1].to_numpy(float))
