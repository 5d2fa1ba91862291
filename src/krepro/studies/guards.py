"""The one-class guard shared by the fair-classification verdicts (Adult and synthetic
students).

A classifier that predicts (nearly) one class has e_β = DEO = 0 whatever it learned: every
claim whose classifiers include one (rarer predicted class below ``min_class_share`` of
``config/paper_reference.yaml``) is *inconclusive*, with the positive rates in the detail.
"""

from __future__ import annotations

import numpy as np

__all__ = ["degenerate_note", "minority_share"]


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
