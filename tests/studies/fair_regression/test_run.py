"""The fair_regression study's runs: the partial obliviousness and the vectorised
BoundedGroupLoss."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from krepro.data.fair_regression import gaussian_shift_sample
from krepro.studies.fair_regression.run import (
    ArraySquareLoss,
    _empty_cells_unadjusted,
    bounded_group_loss,
    partial_oblivious,
    truth_errors,
)

# --------------------------------------------------------------------------- methods


def test_partial_oblivious_interpolates_and_checks_t():
    plain, oblivious = np.zeros((3, 2)), np.ones((3, 2))
    assert partial_oblivious(plain, oblivious, 0.0) == pytest.approx(plain)
    assert partial_oblivious(plain, oblivious, 1.0) == pytest.approx(oblivious)
    assert partial_oblivious(plain, oblivious, 0.25) == pytest.approx(np.full((3, 2), 0.25))
    with pytest.raises(ValueError, match="t must lie in"):
        partial_oblivious(plain, oblivious, 1.5)


def test_rows_in_empty_cells_keep_their_plain_features():
    from krepro.fairness.conditional import DyadicPartition, PartitionConditionalMean

    estimator = PartitionConditionalMean(DyadicPartition(0.0, 1.0, cells_per_axis=4))
    estimator.fit(np.array([[0.1], [0.2], [0.6]]))  # cells 0 and 2 filled, 1 and 3 empty
    S = np.array([0.15, 0.3, 0.65, 0.9])
    plain, oblivious = np.zeros((4, 2)), np.ones((4, 2))
    kept = _empty_cells_unadjusted(estimator, S, plain, oblivious)
    assert kept[:, 0].tolist() == [1.0, 0.0, 1.0, 0.0]
    assert oblivious.min() == 1.0  # the input is not modified


def test_vectorised_bounded_group_loss_has_fairlearns_weights():
    from fairlearn.reductions import BoundedGroupLoss, SquareLoss

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2)), rng.normal(size=40)
    groups = rng.integers(0, 3, 40)
    ours = bounded_group_loss(ArraySquareLoss(-3.0, 3.0), 0.1)
    theirs = BoundedGroupLoss(SquareLoss(-3.0, 3.0), upper_bound=0.1)
    for moment in (ours, theirs):
        moment.load_data(X, y, sensitive_features=groups)
    lam = pd.Series([0.5, 2.0, 0.0], index=theirs.index)
    assert ours.signed_weights(lam).to_numpy() == pytest.approx(
        theirs.signed_weights(lam).to_numpy()
    )
    assert ours.signed_weights().to_numpy() == pytest.approx(theirs.signed_weights().to_numpy())
    objective, reference = ours.default_objective(), theirs.default_objective()
    for moment in (objective, reference):
        moment.load_data(X, y, sensitive_features=groups)
    assert objective.signed_weights().to_numpy() == pytest.approx(
        reference.signed_weights().to_numpy()
    )
    prediction = rng.normal(size=40) * 3
    assert ArraySquareLoss(-3.0, 3.0).eval(y, prediction) == pytest.approx(
        SquareLoss(-3.0, 3.0).eval(pd.Series(y), pd.Series(prediction)).to_numpy()
    )


def test_conditional_mean_estimates_beat_the_s_blind_mean_on_the_truth():
    settings = {
        "synthetic": {
            "d": 2, "shift": 3.0, "shifted_axes": 1, "sd": 1.0, "s_effect": 1.0,
            "noise_sd": 0.1, "truth_points": 40, "truth_gamma": 0.5,
        },
        "partition": {"cells_per_axis": 8},
        "cme": {"gamma_scale": 1.0, "log10_alpha_min": -4, "log10_alpha_max": 0},
    }  # fmt: skip
    model = {k: settings["synthetic"][k] for k in ("d", "shift", "shifted_axes", "sd")}
    train = gaussian_shift_sample(np.random.default_rng(1), 600, **model)
    errors = truth_errors(train, settings, np.random.default_rng(2))
    assert errors["truth_error_partition"] < 0.6 * errors["truth_error_blind"]
    assert errors["truth_error_cme"] < 0.6 * errors["truth_error_blind"]
