r"""Test-set bootstrap of ``adult_full``: intervals for one train/test split.

``adult_full`` fits every method once, on one split, so there are no repetitions whose spread
the claims' intervals could read. What can be measured is the sampling error of the **test
set**: :func:`paired_bootstrap` resamples the test rows with replacement (indices drawn once,
``n_resamples`` times, from a :class:`numpy.random.SeedSequence` of the config seed) and
computes the error, DEO and :math:`e_\beta` of every method on every resample — paired: the
same resampled rows for every method, so that differences between methods carry only the
noise of their disagreements.

The framework's judges (:mod:`krepro.studies.claims`) take per-repetition values and read a
t-interval of their mean: half-width :math:`t \cdot sd / \sqrt{n}`. Bootstrap replicates are
not repetitions: their standard deviation **is** the standard error of the estimate, not the
spread of one repetition, so passing them to :meth:`~krepro.studies.claims.Effect.of` would
shrink the interval by :math:`\sqrt{n_{\text{resamples}}}`. :func:`bootstrap_effect` builds the
:class:`~krepro.studies.claims.Effect` instead as ``Effect(mean=θ̂, sd=se·√B, n=B)``, with
θ̂ the effect on the whole test set and se the standard deviation of the B replicates; the
judges' interval is then θ̂ ± t_{B−1}·se (a normal bootstrap interval; t with B − 1 ≥ 199
degrees of freedom is within 0.5 % of z), and Holm's p-values follow from the same se.

The intervals cover the sampling of the test set only: the training randomness (which rows
were drawn for training, the Nyström landmarks, the fairlearn reductions' randomisation) is
fixed at the one run and is not included.

Stability (:func:`judge_bootstrap`) is the share of replicates whose interval, centred at the
replicate's effect with the same se, gives the verdict of the whole test set — the analogue,
for one split, of the framework's bootstrap of the repetitions. The test rows are drawn by
:func:`krepro.studies.claims.bootstrap_indices` and every verdict is read by the claims'
decision path and family rules (:func:`~krepro.studies.claims.judge_family`,
:func:`~krepro.studies.claims.family_verdict`, :func:`~krepro.studies.claims.combine`); what
is this study's own is the replicates of the test-set metrics and their recentring.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
import pandas as pd

from krepro.seeding import seed_sequence
from krepro.studies.claims import (
    EVERY,
    PARTS,
    ClaimTest,
    Effect,
    bootstrap_indices,
    combine,
    combine_family,
    combine_parts,
    family_verdict,
    judge_family,
)
from krepro.studies.labels import INCONCLUSIVE

__all__ = [
    "METRICS",
    "bootstrap_detail",
    "bootstrap_effect",
    "judge_bootstrap",
    "paired_bootstrap",
    "resample_counts",
    "weighted_metrics",
]

METRICS = ("error", "deo", "beta")


def resample_counts(n_rows, n_resamples, seed, *keys):
    """How often each test row occurs in each bootstrap resample.

    Indices are drawn once, ``(n_resamples, n_rows)`` uniformly with replacement, from the
    stream ``(seed, *keys)`` (:func:`krepro.seeding.seed_sequence`), and counted per resample.

    Returns
    -------
    ndarray of shape (n_resamples, n_rows)
        Row multiplicities; every row of the result sums to ``n_rows``.
    """
    rng = np.random.default_rng(seed_sequence(seed, *keys))
    rows = bootstrap_indices(rng, n_rows, n_resamples)
    offsets = np.arange(n_resamples)[:, None] * n_rows
    return np.bincount((rows + offsets).ravel(), minlength=n_resamples * n_rows).reshape(
        n_resamples, n_rows
    )


def weighted_metrics(weights, y_true, y_pred, s):
    r"""Error, DEO and :math:`e_\beta` of one method under row weights (vectorised).

    Parameters
    ----------
    weights : ndarray of shape (B, n) or (n,)
        Row multiplicities (a bootstrap resample per row of ``weights``; all ones: the test
        set itself).
    y_true, y_pred : ndarray of shape (n,)
        Labels in {−1, +1}.
    s : ndarray of shape (n,)
        The sensitive feature (two or more groups).

    Returns
    -------
    dict of str to ndarray of shape (B,)
        ``error`` (share of wrong predictions), ``deo`` (largest minus smallest true-positive
        rate over the groups; NaN where a group has no positive row), ``beta``
        (:math:`\sum_{y, g} |\hat P(\hat Y = y, S = g) - \hat P(\hat Y = y) \hat P(S = g)|`
        over the labels of ``y_true`` and the groups, without ½, as
        :func:`krepro.metrics.beta_dependence`).
    """
    w = np.atleast_2d(np.asarray(weights, dtype=float))
    y_true, y_pred, s = np.asarray(y_true), np.asarray(y_pred), np.asarray(s)
    groups, labels = np.unique(s), np.unique(y_true)
    in_group = np.column_stack([s == g for g in groups]).astype(float)
    positive = (y_true == 1)[:, None] * in_group
    hit = positive * (y_pred == 1)[:, None]
    total = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr = (w @ hit) / (w @ positive)
    deo = tpr.max(axis=1) - tpr.min(axis=1)
    p_s = (w @ in_group) / total[:, None]
    beta = np.zeros(len(total))
    for label in labels:
        predicted = (y_pred == label).astype(float)
        joint = (w @ (predicted[:, None] * in_group)) / total[:, None]
        p_y = (w @ predicted) / total
        beta += np.abs(joint - p_y[:, None] * p_s).sum(axis=1)
    error = (w @ (y_pred != y_true).astype(float)) / total
    return {"error": error, "deo": deo, "beta": beta}


def paired_bootstrap(y_true, s, predictions, *, n_resamples, seed, keys=("bootstrap",)):
    """Paired test-set bootstrap of every method's error, DEO and e_β.

    Parameters
    ----------
    y_true, s : ndarray of shape (n,)
        Test labels (±1) and sensitive feature.
    predictions : mapping of str to ndarray of shape (n,)
        Each method's test predictions (±1).
    n_resamples : int
        Bootstrap resamples (≥ 200 for the reported intervals).
    seed : int
        The config seed; the resamples come from the stream ``(seed, "adult_full", *keys)``.

    Returns
    -------
    dict of str to DataFrame
        Per method, ``n_resamples`` rows with the columns :data:`METRICS`; row ``b`` of every
        method is computed on the same resample.
    """
    n = len(y_true)
    counts = resample_counts(n, n_resamples, seed, "adult_full", *keys)
    return {
        method: pd.DataFrame(weighted_metrics(counts, y_true, prediction, s))
        for method, prediction in predictions.items()
    }


def bootstrap_effect(point, replicates):
    """The :class:`~krepro.studies.claims.Effect` of a point estimate and its replicates.

    ``Effect(mean=point, sd=se·√B, n=B)`` with se the standard deviation (ddof = 1) of the B
    replicates, so that the judges' standard error ``sd / √n`` is the bootstrap se (see the
    module docstring). NaN replicates (an undefined DEO) are dropped.
    """
    replicates = np.asarray(replicates, dtype=float)
    replicates = replicates[np.isfinite(replicates)]
    n = int(replicates.size)
    se = float(replicates.std(ddof=1)) if n > 1 else float("nan")
    return Effect(mean=float(point), sd=se * np.sqrt(n), n=n)


def judge_bootstrap(claim, points, replicates, *, rule=EVERY):
    """Judge a claim (one comparison, a family of settings or named parts) from a test-set
    bootstrap.

    Each setting's :class:`~krepro.studies.claims.Effect` is :func:`bootstrap_effect`; a
    family is judged by :func:`~krepro.studies.claims.judge_family` (Holm) and combined by
    its rule; a claim with named ``parts`` (each its own test, rule ``every`` within the part)
    combines its parts as :func:`krepro.studies.claims.judge_parts` does
    (:func:`~krepro.studies.claims.combine_parts`).

    Parameters
    ----------
    claim : mapping
        The claim's entry (``test``, ``margin``, ``alpha``; or ``alpha`` and ``parts``).
    points : float, mapping of str to float, or mapping of str to mapping of str to float
        The effect on the whole test set, oriented as the claim reads: one value, one per
        setting, or (named parts) one mapping of settings per part.
    replicates : array-like or mapping of the same structure as ``points``
        The effects' B bootstrap replicates, paired (replicate ``b`` of every setting on the
        same resample).
    rule : str
        The family's rule (:data:`~krepro.studies.claims.FAMILY_RULES`; parts: ``every``).

    Returns
    -------
    FamilyJudgement
        Members at their Holm levels (a single comparison: one member named ``""``; named
        parts: each part's deciding judgement, ``deciding`` the part that decides).
    float
        Stability: the share of replicates ``b`` whose verdict, every effect recentred at its
        replicate ``b`` with the same se, is the whole test set's.
    """
    if "parts" in claim:
        if set(claim["parts"]) != set(points):
            raise ValueError(
                f"the claim's parts are {sorted(claim['parts'])}, got {sorted(points)}."
            )
        alpha = claim.get("alpha", 0.05)
        tests = {
            part: ClaimTest.from_reference({"alpha": alpha, **entry})
            for part, entry in claim["parts"].items()
        }
        rule = EVERY
    else:
        if not isinstance(points, Mapping):
            points, replicates = {"": points}, {"": replicates}
        tests = {"": ClaimTest.from_reference(claim)}
        points, replicates = {"": points}, {"": replicates}
    replicates = {
        part: {name: np.asarray(replicates[part][name], dtype=float) for name in points[part]}
        for part in tests
    }
    effects = {
        part: {name: bootstrap_effect(points[part][name], v) for name, v in draws.items()}
        for part, draws in replicates.items()
    }
    families = {
        part: combine_family(test, judge_family(test, effects[part]), rule)
        for part, test in tests.items()
    }
    result = combine_parts(families) if "parts" in claim else families[""]

    def verdict_at(b):
        verdicts = [
            family_verdict(
                test,
                [
                    dataclasses.replace(effect, mean=float(replicates[part][name][b]))
                    for name, effect in effects[part].items()
                ],
                rule,
            )
            for part, test in tests.items()
        ]
        return combine(PARTS, verdicts) if "parts" in claim else verdicts[0]

    n_resamples = min(len(v) for part in replicates.values() for v in part.values())
    stability = float(np.mean([verdict_at(b) == result.verdict for b in range(n_resamples)]))
    return result, stability


def bootstrap_detail(judgement, *, n_test, n_resamples):
    """One or two sentences: the effect, its bootstrap interval, why the verdict follows.

    The wording of :func:`krepro.studies.verdicts.judgement_detail`, with the interval named a
    test-set bootstrap interval and, for an inconclusive verdict, the **test rows** (not
    repetitions) that would decide it at the observed variance: the framework's repetition
    count ``N`` for an ``Effect`` with ``n = B`` corresponds to a test set ``N / B`` times as
    large.
    """
    family = "" if judgement.family_size == 1 else f" (Holm, family of {judgement.family_size})"
    text = (
        f"Effect {judgement.effect:.4g}, test-set bootstrap interval [{judgement.ci_low:.4g},"
        f" {judgement.ci_high:.4g}] at level {judgement.alpha:.3g}{family}: {judgement.reason}."
    )
    if judgement.verdict == INCONCLUSIVE:
        if judgement.needed_repetitions is not None:
            rows = int(np.ceil(n_test * judgement.needed_repetitions / n_resamples))
            text += (
                f" A decisive verdict would need about {rows:,} test rows (now {n_test:,}) at"
                " the observed variance."
            )
        else:
            text += " No test-set size would decide it at the observed variance."
    return text
