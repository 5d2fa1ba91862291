"""Readings of a protocol, families of paired comparisons and the wording of verdict details:
the helpers that the report sections of the DCM paper's experiments share.

Each experiment runs under several readings of its protocol (config axes: centring,
classifier / SVR kernel, b normalisation); a reading is a dict axis → value, and every claim
gets one verdict per reading. Claims are judged by their logical form
(:mod:`krepro.studies.claims`) from per-repetition paired effects; two comparisons that are
numerically the same (COIR and DICA often give the same projection) are counted once
(:func:`merge_identical`). A member of a family is described as *holds*, *contradicted* or
*undecided* (:func:`member_listing`), so that a detail never names a verdict other than its
record's (:func:`krepro.studies.verdicts.detail_disagreements` checks it).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from krepro.studies import claims
from krepro.studies.claims import SOME, judge_claim

__all__ = [
    "MEMBER_WORDS",
    "checked_primary",
    "judge_some",
    "member_listing",
    "merge_identical",
    "readings_markdown",
    "readings_of",
    "select_reading",
]

#: How a detail describes one member (or part) of a family: words that are not verdicts.
MEMBER_WORDS = claims.MEMBER_WORDS


def merge_identical(series: Mapping[str, np.ndarray], tol: float):
    """Count comparisons that are numerically the same once.

    Two per-repetition series (paired: repetition ``i`` of each used the same draw) are the
    same comparison when their mean absolute difference over the repetitions is at most
    ``tol``. Each group of such series (in order, each joined to the first earlier series it
    matches) is replaced by the mean of its series, named by its members joined with `` = ``.

    Parameters
    ----------
    series : mapping of str to array-like
        Per-repetition values of the candidate comparisons (e.g. DCM − COIR and DCM − DICA at
        one setting).
    tol : float
        Largest mean absolute difference of two series that counts as the same comparison.

    Returns
    -------
    merged : dict of str to ndarray
    groups : list of tuple of (tuple of str, float, float)
        The merged groups of more than one member, with the mean and the largest absolute
        difference between the first member and the others.
    """
    arrays = {name: np.asarray(v, dtype=float) for name, v in series.items()}
    groups: list[list[str]] = []
    for name, values in arrays.items():
        for group in groups:
            first = arrays[group[0]]
            if first.shape == values.shape and np.mean(np.abs(first - values)) <= tol:
                group.append(name)
                break
        else:
            groups.append([name])
    merged = {
        " = ".join(group): np.mean([arrays[name] for name in group], axis=0) for group in groups
    }
    report = []
    for group in groups:
        if len(group) > 1:
            gaps = [np.abs(arrays[group[0]] - arrays[name]) for name in group[1:]]
            mean, top = max(g.mean() for g in gaps), max(g.max() for g in gaps)
            report.append((tuple(group), float(mean), float(top)))
    return merged, report


def member_listing(members: Mapping, digits: int = 3) -> str:
    """``name: holds (effect, [low, high])`` for every member of a family, in order.

    Members are described by :data:`MEMBER_WORDS`, never by a verdict: a detail states its
    record's verdict only.
    """
    parts = []
    for name, judgement in members.items():
        word = MEMBER_WORDS.get(judgement.verdict, judgement.verdict)
        parts.append(
            f"{name or 'the comparison'}: {word} ({judgement.effect:+.{digits}g},"
            f" [{judgement.ci_low:.{digits}g}, {judgement.ci_high:.{digits}g}])"
        )
    return "; ".join(parts)


def judge_some(claim: Mapping, values: Mapping[str, np.ndarray], *, seed, n_resamples=200):
    """Judge an existence claim ("some setting shows the effect"): rule ``some`` of
    :func:`krepro.studies.claims.judge_claim`."""
    return judge_claim(claim, values, seed=seed, rule=SOME, n_resamples=n_resamples)


# Longest phrases first, so that "not reproduced" is not also read as "reproduced".
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
