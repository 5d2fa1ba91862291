"""Cross-validated choice of a grid candidate (krepro.studies.selection)."""

import numpy as np

from krepro.studies.selection import cross_validated_choice, grid_candidates


def test_cross_validated_choice_picks_first_best():
    y = np.array([0, 1] * 10)
    choice, score, scores = cross_validated_choice(
        ["bad", "good", "good2"],
        lambda c, tr, va: y[va] if c.startswith("good") else 1 - y[va],
        y,
        5,
    )
    assert choice == "good" and score == 1.0 and scores[0] == 0.0
    assert grid_candidates({"C": [1, 2], "gamma": [0.1, 1]}, "rbf")[:2] == [(1, 0.1), (1, 1)]
    assert grid_candidates({"C": [1, 2], "gamma": [0.1]}, "linear") == [(1, None), (2, None)]
