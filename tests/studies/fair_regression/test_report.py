"""The fair_regression study's fronts, paired effects and the verdicts they feed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from krepro.studies.fair_regression.fronts import (
    dependence_at_error,
    matched_setting,
    paired_log_ratios,
    pareto_front,
)
from krepro.studies.fair_regression.readings import readings
from krepro.studies.fair_regression.report import claim_settings, fair_regression_verdicts
from krepro.studies.fair_regression.tables import aggregate, front_summary
from krepro.studies.verdicts import paper_reference

REPO = Path(__file__).resolve().parents[3]
REFERENCE = paper_reference(
    REPO / "config" / "paper_reference.yaml", "oblivious", "fair_regression"
)


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
    records = fair_regression_verdicts(runs, REFERENCE, "test", readings({"n_splits": 8}))
    return {(r.claim_id, r.protocol): r for r in records}


def test_verdicts_are_grouped_by_claim_one_per_estimator():
    records = fair_regression_verdicts(_runs(), REFERENCE, "test", readings({"n_splits": 3}))
    # No synthetic data set: the ground-truth claim is not judged.
    assert [(r.claim_id, r.protocol, r.primary) for r in records] == [
        ("oblivious_below_correlation_remover", "partition", True),
        ("oblivious_below_correlation_remover", "cme", False),
        ("oblivious_below_bounded_group_loss", "partition", True),
        ("oblivious_below_bounded_group_loss", "cme", False),
    ]
    # The repetitions are the splits the runs hold.
    assert {r.n_repetitions for r in records} == {8}
    assert {r.verdict for r in records if r.primary} == {"reproduced"}
    assert all(r.tolerance == "superiority, margin 0.693 (log scale)" for r in records)


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
