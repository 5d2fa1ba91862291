"""The one-class guard shared by the fair-classification studies (krepro.studies.guards)."""

import numpy as np

from krepro.studies.guards import degenerate_note, minority_share, one_class_guard
from krepro.studies.judging import Outcome
from krepro.studies.labels import INCONCLUSIVE, REPRODUCED


def test_minority_share_and_the_note():
    assert np.allclose(minority_share(np.array([0.1, 0.7, 1.0])), [0.1, 0.3, 0.0])
    assert degenerate_note({"A": [0.4, 0.5]}, 0.02) == ""
    note = degenerate_note({"A": [0.4, 0.5], "B": [0.0, 0.01, 0.5]}, 0.02)
    assert note.startswith("B predicts (nearly) one class in 2 of 3 repetition(s)")
    assert "below 0.02" in note


def test_one_class_guard_makes_the_outcome_inconclusive():
    rates = {"ok": {"A": [0.4]}, "bad": {"A": [0.4], "B": [0.0]}}
    outcome = Outcome("Measured.", verdict=REPRODUCED, about=("ok",))
    guard = one_class_guard(lambda context, outcome: rates[outcome.about[0]], 0.02)
    assert guard(None, "claim", outcome) is outcome
    guarded = guard(None, "claim", outcome.replace(about=("bad",)))
    assert guarded.verdict == INCONCLUSIVE and guarded.detail.startswith("Measured. B predicts")
    assert "would read" not in guarded.detail
    preview = one_class_guard(lambda context, outcome: rates["bad"], 0.02, preview=True)
    assert preview(None, "claim", outcome).detail.endswith(
        "The intervals alone would read *reproduced*; the verdict is inconclusive."
    )
    undecided = outcome.replace(verdict=INCONCLUSIVE)
    assert "would read" not in preview(None, "claim", undecided).detail
