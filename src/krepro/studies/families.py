"""Families of paired comparisons: counting numerically identical comparisons once, and the
wording of a family's members in a verdict's detail.

A claim judged over a family of settings (:mod:`krepro.studies.claims`) reads one
per-repetition series of paired effects per member. Two members that are numerically the
same comparison (DCM's COIR and DICA baselines often give the same projection) are counted
once (:func:`merge_identical`). A detail describes each member as *holds*, *contradicted* or
*undecided* (:data:`krepro.studies.labels.MEMBER_WORDS`), never by a verdict, so that it names
no verdict other than its record's (:func:`krepro.studies.verdicts.detail_disagreements`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from krepro.studies.labels import MEMBER_WORDS
from krepro.studies.verdicts import judgement_detail

__all__ = ["deciding", "member_counts", "member_listing", "merge_identical"]


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


def member_listing(members: Mapping, digits: int = 3, *, template: str | None = None) -> str:
    """``name: holds (effect, [low, high])`` for every member of a family, in order.

    Members are described by :data:`~krepro.studies.labels.MEMBER_WORDS`, never by a
    verdict: a detail states its record's verdict only. ``template``, a :meth:`str.format`
    string of the fields ``name`` (an empty name reads "the comparison"), ``word``,
    ``effect``, ``low`` and ``high`` (e.g. ``"{name}: {word} ({effect:+.3f} [{low:.3f},
    {high:.3f}])"``), writes each member in place of the default (``digits`` significant
    digits).
    """
    if template is None:
        template = "{name}: {word} ({effect:+.Dg}, [{low:.Dg}, {high:.Dg}])".replace(
            "D", str(digits)
        )
    return "; ".join(
        template.format(
            name=name or "the comparison",
            word=MEMBER_WORDS.get(j.verdict, j.verdict),
            effect=j.effect,
            low=j.ci_low,
            high=j.ci_high,
        )
        for name, j in members.items()
    )


def deciding(family, what: str = "member", detail=judgement_detail) -> str:
    """``Deciding <what> (<member>): <why>``: the member whose judgement a family's record
    reports (:attr:`~krepro.studies.claims.FamilyJudgement.deciding`) and its judgement in
    words (``detail``, by default :func:`~krepro.studies.verdicts.judgement_detail`)."""
    return f"Deciding {what} ({family.deciding}): {detail(family.judgement)}"


def member_counts(members: Mapping) -> str:
    """``"2 holds / 0 contradicted / 1 undecided / 0 partly holds"``: the members of a family
    counted by their word (the ``measured`` column of a family's record)."""
    counts = dict.fromkeys(MEMBER_WORDS.values(), 0)
    for judgement in members.values():
        counts[MEMBER_WORDS[judgement.verdict]] += 1
    return " / ".join(f"{n} {word}" for word, n in counts.items())
