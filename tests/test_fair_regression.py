"""The fair_regression study's pure functions: fronts, paired effects, the verdicts they feed,
the partial obliviousness, the vectorised BoundedGroupLoss and the Adult loader with S = age."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from krepro.data.fair_regression import gaussian_shift_sample, load_adult_age
from krepro.studies.fair_regression.fronts import (
    aggregate,
    dependence_at_error,
    matched_setting,
    paired_log_ratios,
    pareto_front,
)
from krepro.studies.fair_regression.report import (
    claim_settings,
    fair_regression_verdicts,
    front_summary,
)
from krepro.studies.fair_regression.run import (
    ArraySquareLoss,
    _empty_cells_unadjusted,
    bounded_group_loss,
    partial_oblivious,
    truth_errors,
)
from krepro.studies.verdicts import paper_reference

REPO = Path(__file__).resolve().parents[1]
REFERENCE = paper_reference(
    REPO / "config" / "paper_reference.yaml", "oblivious", "fair_regression"
)
MIRROR = Path(os.environ.get("KREPRO_DATA_MIRROR", "/nonexistent"))
ADULT = MIRROR / "adult" / "adult.data"


# --------------------------------------------------------------------------- fronts


def test_pareto_front_keeps_the_non_dominated_points_in_order_of_error():
    error = [1.0, 2.0, 1.5, 3.0, 2.0, 0.5]
    dependence = [5.0, 1.0, 4.0, 2.0, 1.0, 9.0]
    # (3, 2) is dominated by (2, 1); the second (2, 1) ties with the first and is dropped.
    assert pareto_front(error, dependence).tolist() == [5, 0, 2, 1]


def test_pareto_front_of_a_dominating_point_is_that_point():
    assert pareto_front([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]).tolist() == [0]


def test_pareto_front_refuses_mismatched_inputs():
    with pytest.raises(ValueError, match="same length"):
        pareto_front([1.0, 2.0], [1.0])


def test_dependence_at_error_is_the_least_dependence_within_the_error():
    error, dependence = [1.0, 2.0, 3.0], [3.0, 1.0, 0.5]
    assert dependence_at_error(error, dependence, 2.5) == 1.0
    assert dependence_at_error(error, dependence, 3.0) == 0.5
    assert np.isnan(dependence_at_error(error, dependence, 0.9))


def _runs(n_splits=8, oblivious_hsic=0.2, oblivious_error=1.0, seed=0):
    """Per-split records of one data set: the oblivious fit's HSIC and error at t = 1 are
    multiples of CorrelationRemover's (α = 1) and of BoundedGroupLoss's (strongest c = 0.5);
    at t = 0 it is as dependent as the peers' weakest settings and 5 % more accurate than
    their strongest ones; noise on every value."""
    rng = np.random.default_rng(seed)
    rows = []
    for split in range(n_splits):
        base_hsic, base_error = 1e-2 * (1 + 0.1 * split), 10.0 + split
        noise = np.exp(0.05 * rng.standard_normal(8))
        own = (oblivious_hsic * base_hsic, oblivious_error * base_error)
        fits = {
            ("correlation_remover", 0.0): (2 * base_hsic, 0.9 * base_error),
            ("correlation_remover", 1.0): (base_hsic, base_error),
            ("bounded_group_loss", 1.0): (2 * base_hsic, 0.9 * base_error),
            ("bounded_group_loss", 0.5): (base_hsic, base_error),
            ("oblivious_partition", 1.0): own,
            ("oblivious_cme", 1.0): own,
            ("oblivious_partition", 0.0): (2 * base_hsic, 0.95 * base_error),
            ("oblivious_cme", 0.0): (2 * base_hsic, 0.95 * base_error),
        }
        for k, ((method, parameter), (hsic, error)) in enumerate(fits.items()):
            rows.append(
                {
                    "dataset": "diabetes",
                    "split": split,
                    "method": method,
                    "parameter": parameter,
                    "error": error * noise[k],
                    "hsic": hsic * noise[k],
                    "hsic_p_value": 0.01,
                    "dcor": 0.1,
                    "group_spread": 1.0,
                    "cpu_seconds": 0.1,
                }
            )
    return pd.DataFrame(rows)


def test_paired_log_ratios_pair_the_splits():
    runs = _runs(n_splits=3)
    values = paired_log_ratios(
        runs, "diabetes", ("correlation_remover", 1.0), ("correlation_remover", 0.0), "error"
    )
    part = runs[runs["method"] == "correlation_remover"].pivot(
        index="split", columns="parameter", values="error"
    )
    assert values == pytest.approx(np.log(part[1.0] / part[0.0]).to_numpy())
    with pytest.raises(ValueError, match="no records of method 'krr'"):
        paired_log_ratios(runs, "diabetes", ("krr", 1.0), ("correlation_remover", 0.0), "error")


def test_aggregate_gives_means_and_standard_errors_over_the_splits():
    runs = _runs(n_splits=5)
    table = aggregate(runs)
    row = table[(table["method"] == "correlation_remover") & (table["parameter"] == 1.0)].iloc[0]
    errors = runs[(runs["method"] == "correlation_remover") & (runs["parameter"] == 1.0)]["error"]
    assert row["error"] == pytest.approx(errors.mean())
    assert row["error_se"] == pytest.approx(errors.std(ddof=1) / np.sqrt(5))
    assert row["n_splits"] == 5 and row["hsic_rejected"] == 1.0


def test_front_summary_reads_each_method_at_the_peer_error():
    table = aggregate(_runs(oblivious_error=0.9))
    summary = front_summary(table).iloc[0]
    peer = table[(table["method"] == "correlation_remover") & (table["parameter"] == 1.0)]
    assert summary["reference_error"] == pytest.approx(peer["error"].iloc[0])
    oblivious = table[(table["method"] == "oblivious_partition") & (table["parameter"] == 1.0)]
    oblivious = oblivious["hsic"].iloc[0]
    assert summary["oblivious_partition"] == pytest.approx(oblivious)
    assert np.isnan(summary["krr"])  # no KRR record at all


# --------------------------------------------------------------------------- verdicts


def test_matched_setting_is_the_largest_parameter_within_the_error():
    runs = _runs(n_splits=4, oblivious_error=1.1)
    level = runs[runs["method"] == "correlation_remover"].groupby("parameter")["error"].mean()
    # errors: t = 1 about 1.1 × the peer's, t = 0 about 0.95 × (5 % noise per value)
    assert matched_setting(runs, "diabetes", "oblivious_partition", level[1.0] * 1.3) == (
        1.0,
        True,
    )
    assert matched_setting(runs, "diabetes", "oblivious_partition", level[1.0]) == (
        0.0,
        True,
    )
    assert matched_setting(runs, "diabetes", "oblivious_partition", level[1.0] * 0.5) == (
        0.0,
        False,
    )


def test_claim_settings_take_the_strongest_peer_setting():
    runs = _runs(n_splits=2, oblivious_error=0.9)
    claims = REFERENCE["claims"]
    peer, own, matched = claim_settings(
        runs, claims["oblivious_below_bounded_group_loss"], "diabetes", "oblivious_cme"
    )
    assert peer == ("bounded_group_loss", 0.5) and own == 1.0 and matched  # smallest bound
    peer, *_ = claim_settings(
        runs, claims["oblivious_below_correlation_remover"], "diabetes", "oblivious_cme"
    )
    assert peer == ("correlation_remover", 1.0)


def _verdicts(runs):
    records = fair_regression_verdicts(runs, REFERENCE, "test")
    return {(r.claim_id, r.protocol): r for r in records}


def test_verdict_is_reproduced_when_dependence_drops_at_the_peer_error():
    records = _verdicts(_runs(oblivious_hsic=0.2, oblivious_error=0.9))
    for claim in ("oblivious_below_correlation_remover", "oblivious_below_bounded_group_loss"):
        record = records[(claim, "partition")]
        assert record.verdict == "reproduced", record.detail
        assert record.kind == "extension" and record.primary
        assert not records[(claim, "cme")].primary


def test_verdict_is_not_reproduced_when_dependence_rises():
    records = _verdicts(_runs(oblivious_hsic=3.0, oblivious_error=0.9))
    record = records[("oblivious_below_correlation_remover", "partition")]
    assert record.verdict == "not reproduced", record.detail


def test_a_less_accurate_oblivious_fit_is_read_at_a_smaller_t():
    """At t = 1 the oblivious fit has a tenth of the HSIC but a 50 % larger error: at the
    peer's error it is read at t = 0, which is twice as dependent as the peer."""
    records = _verdicts(_runs(oblivious_hsic=0.1, oblivious_error=1.5))
    record = records[("oblivious_below_correlation_remover", "partition")]
    assert record.verdict == "not reproduced", record.detail
    assert "t = 0" in record.detail


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


@pytest.mark.skipif(not ADULT.exists(), reason=f"no mirror copy at {ADULT}")
def test_adult_with_age_as_the_sensitive_feature():
    data = load_adult_age(ADULT)
    assert len(data) == 30162 and data.X.shape[0] == 30162
    assert set(np.unique(data.y)) == {0.0, 1.0}
    assert data.S.min() == 17 and data.S.max() == 90
    assert "age" not in data.feature_names and "gender_Male" in data.feature_names
    assert np.isfinite(data.X).all()
