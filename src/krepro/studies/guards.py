"""The one-class guard shared by the fair-classification verdicts.

A classifier that predicts (nearly) one class has e_β = DEO = 0 whatever it learned: every
claim whose classifiers include one (rarer predicted class below ``min_class_share`` of
``config/paper_reference.yaml``) is *inconclusive*, with the positive rates in the detail.
:func:`one_class_guard` is that rule as a guard of the judging driver
(:func:`krepro.studies.judging.judge_readings`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from krepro.studies.labels import INCONCLUSIVE

__all__ = ["degenerate_note", "minority_share", "one_class_guard"]


def minority_share(positive_rate):
    """Share of the rarer predicted class."""
    return np.minimum(positive_rate, 1.0 - positive_rate)


def degenerate_note(rates, min_share):
    """Reason text when some classifier predicts (nearly) one class, else ``""``.

    ``rates`` maps a label to the positive rates of its repetitions.
    """
    bad = []
    for label, values in rates.items():
        values = np.asarray(values, dtype=float)
        n_bad = int(np.sum(minority_share(values) < min_share))
        if n_bad:
            bad.append(
                f"{label} predicts (nearly) one class in {n_bad} of {len(values)} repetition(s)"
                f" (positive rate {np.mean(values):.3f})"
            )
    if not bad:
        return ""
    return (
        "; ".join(bad)
        + f" — its rarer class is below {min_share:g} of the test predictions, so its e_β and"
        " DEO are ~0 whatever it learned and cannot support a fairness claim."
    )


def one_class_guard(
    rates_of: Callable[[object, object], Mapping], min_share: float, *, preview: bool = False
):
    """The one-class rule as a guard of :func:`krepro.studies.judging.judge_readings`.

    Parameters
    ----------
    rates_of : callable
        ``rates_of(context, outcome)``: label → positive rates of its repetitions, for the
        classifiers the outcome rests on (e.g. those of ``outcome.about``).
    min_share : float
        ``min_class_share`` of the study's block of ``config/paper_reference.yaml``.
    preview : bool
        Also say what the intervals alone would read, where they read something else.

    Returns
    -------
    callable
        ``guard(context, claim_id, outcome) -> Outcome``: the outcome, or an inconclusive
        copy with :func:`degenerate_note` appended to its detail.
    """

    def guard(context, claim_id, outcome):
        note = degenerate_note(rates_of(context, outcome), min_share)
        if not note:
            return outcome
        detail = f"{outcome.detail} {note}"
        if preview and outcome.result != INCONCLUSIVE:
            detail += (
                f" The intervals alone would read *{outcome.result}*; the verdict is inconclusive."
            )
        return outcome.replace(detail=detail, verdict=INCONCLUSIVE)

    return guard
