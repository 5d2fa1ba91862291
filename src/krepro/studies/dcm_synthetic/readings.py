"""Readings of a protocol and outcomes of paired comparisons: the helpers that the report
sections of the DCM paper's experiments share.

Each experiment runs under several readings of its protocol (config axes: centring,
classifier / SVR kernel, b normalisation); a reading is a dict axis → value, and every claim
gets one verdict per reading. A paired difference (positive = the claim's side better) is
``better``, ``worse`` or a ``tie`` within ``z`` standard errors; a claim's verdict counts
these outcomes.
"""

from __future__ import annotations

import numpy as np

from krepro.studies.verdicts import INCONCLUSIVE, NOT_REPRODUCED, PARTLY, REPRODUCED

__all__ = [
    "checked_primary",
    "classify_difference",
    "count_outcomes",
    "overall_verdict",
    "readings_markdown",
    "readings_of",
    "select_reading",
]


def classify_difference(mean, se, z):
    """``better`` / ``worse`` beyond ``z`` standard errors of a paired difference, else ``tie``."""
    if mean > z * se:
        return "better"
    if mean < -z * se:
        return "worse"
    return "tie"


def overall_verdict(outcomes):
    """Verdict of a claim from its outcomes: reproduced when all are better, not reproduced
    when some are worse and none better, partly when some are better, else inconclusive."""
    wins = sum(o == "better" for o in outcomes)
    losses = sum(o == "worse" for o in outcomes)
    if not outcomes:
        return INCONCLUSIVE
    if wins == len(outcomes):
        return REPRODUCED
    if losses and not wins:
        return NOT_REPRODUCED
    if wins:
        return PARTLY
    return INCONCLUSIVE


def count_outcomes(outcomes):
    """(better, worse, ties) among the outcomes."""
    wins = sum(o == "better" for o in outcomes)
    losses = sum(o == "worse" for o in outcomes)
    return wins, losses, len(outcomes) - wins - losses


def readings_of(runs, axes):
    """The readings present in ``runs`` (dicts axis → value), in axis order."""
    columns = [a for a in axes if a in runs.columns]
    ranks = {axis: {v: k for k, v in enumerate(values)} for axis, values in axes.items()}
    keys = runs[columns].drop_duplicates().to_dict("records")
    return sorted(keys, key=lambda r: tuple(ranks[a].get(r[a], 99) for a in columns))


def select_reading(frame, reading):
    """The rows of ``frame`` under one reading."""
    mask = np.ones(len(frame), dtype=bool)
    for axis, value in reading.items():
        mask &= (frame[axis] == value).to_numpy()
    return frame[mask]


def _is_primary(reading, primary):
    return all(primary.get(axis) == value for axis, value in reading.items())


def checked_primary(readings, primary, experiment):
    """Per reading, whether it is the primary one; exactly one must be.

    Raises
    ------
    ValueError
        When the primary reading is not exactly one of ``readings``.
    """
    flags = [_is_primary(r, primary) for r in readings]
    if sum(flags) != 1:
        raise ValueError(
            f"{experiment}: the primary reading {primary} must be exactly one of the readings"
            f" run, got {readings}."
        )
    return flags


def readings_markdown(table, axes, render):
    """One Markdown table per reading (``render(part)``), each under a bold reading name."""
    out = []
    for reading in readings_of(table, axes):
        name = ", ".join(f"{axis}={value}" for axis, value in reading.items())
        out += [f"**{name}**", "", render(select_reading(table, reading)), ""]
    return "\n".join(out).rstrip()
