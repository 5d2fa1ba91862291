"""DCM verdicts from small synthetic run tables: one record per (claim, reading)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from krepro.studies.dcm_synthetic.readings import readings
from krepro.studies.dcm_synthetic.report import dcm_synthetic_section, dcm_synthetic_verdicts
from krepro.studies.dcm_synthetic.tables import aggregate
from krepro.studies.verdicts import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    assign_robustness,
    detail_disagreements,
)

SYN_REFERENCE = yaml.safe_load(open("config/paper_reference.yaml", encoding="utf-8"))["dcm"][
    "synthetic"
]
SYN_PRIMARY = {"centring": "centred", "classifier": "rbf", "b_scale": "gaussian"}
PRIMARY_NAME = "centring=centred, classifier=rbf, b_scale=gaussian"
#: Every reading of the default axes; a report judges those its runs hold.
SYN_READINGS = readings(
    {
        "centring": ["centred", "uncentred"],
        "classifier": ["rbf", "linear"],
        "b_scale": ["gaussian", "unit"],
        "primary": SYN_PRIMARY,
        "n_repetitions": 20,
        "reading_repetitions": 2,
    }
)


def synthetic_runs(dcm_gain, n_reps=20, seed=0, noise=0.002, dica_offset=0.0, level=0.7):
    """Runs of some readings (centring) × one (η, γ): DCM − baselines = ``dcm_gain[centring]``.

    COIR and DICA differ by independent noise of sd ``noise`` (plus ``dica_offset``), DCM
    has its own noise of sd ``noise``.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for centring, gain in dcm_gain.items():
        for repetition in range(n_reps):
            base = level + 0.02 * rng.normal()
            accuracy = {
                "svm": base,
                "coir": base + 0.002 * rng.normal(),
                "dica": base + dica_offset + 0.002 * rng.normal(),
                "dcm": base + gain + noise * rng.normal(),
            }
            rows += [
                {
                    "centring": centring,
                    "classifier": "rbf",
                    "b_scale": "gaussian",
                    "eta": 0.2,
                    "gamma": 0.1,
                    "repetition": repetition,
                    "method": method,
                    "accuracy": value,
                    "status": "ok",
                }
                for method, value in accuracy.items()
            ]
    runs = pd.DataFrame(rows)
    return aggregate(runs), runs


def _record(table, runs, scale="paper"):
    (record,) = dcm_synthetic_verdicts(table, runs, SYN_REFERENCE, SYN_READINGS, scale=scale)
    assert not detail_disagreements(record), record.detail
    return record


def test_synthetic_one_verdict_per_reading_primary_marked_and_fragile():
    table, runs = synthetic_runs({"centred": 0.05, "uncentred": -0.05})
    section = dcm_synthetic_section(table, runs, SYN_REFERENCE, SYN_READINGS, scale="paper")
    by_reading = {v.protocol: v for v in section.verdicts}
    centred = by_reading[PRIMARY_NAME]
    uncentred = by_reading["centring=uncentred, classifier=rbf, b_scale=gaussian"]
    assert (centred.verdict, centred.primary, centred.n_repetitions) == (REPRODUCED, True, 20)
    assert (centred.test, centred.stability) == ("superiority", 1.0)
    assert centred.ci_low > 0
    assert (uncentred.verdict, uncentred.primary) == (NOT_REPRODUCED, False)
    assert uncentred.ci_high < uncentred.margin
    assert {v.robustness for v in assign_robustness(section.verdicts)} == {"fragile"}
    for record in assign_robustness(section.verdicts):
        assert not detail_disagreements(record), record.detail


def test_synthetic_identical_baselines_count_once_and_distinct_ones_twice():
    table, runs = synthetic_runs({"centred": 0.05})
    record = _record(table, runs)
    assert record.family_size == 1
    assert "COIR = DICA" in record.detail and "numerically the same comparison" in record.detail
    table, runs = synthetic_runs({"centred": 0.05}, dica_offset=0.02)
    record = _record(table, runs)
    assert record.family_size == 2
    assert "differ at every setting" in record.detail


def test_synthetic_no_gain_is_not_reproduced_and_noise_is_inconclusive():
    table, runs = synthetic_runs({"centred": 0.0})
    record = _record(table, runs)
    assert record.verdict == NOT_REPRODUCED  # a gain of one accuracy point is excluded
    table, runs = synthetic_runs({"centred": 0.005}, n_reps=5, noise=0.03)
    record = _record(table, runs, scale="quick")
    assert (record.verdict, record.n_repetitions) == (INCONCLUSIVE, 5)
    assert "A decisive verdict would need about" in record.detail


def test_synthetic_chance_level_settings_are_left_out():
    table, runs = synthetic_runs({"centred": 0.05}, level=0.5)  # every method near 0.5
    record = _record(table, runs)
    assert record.verdict == INCONCLUSIVE
    assert "no informative (η, γ) setting" in record.detail
    assert "chance level" in record.detail


def test_dcm_synthetic_verdicts_one_record_per_reading_run_in_declared_order():
    table, runs = synthetic_runs({"uncentred": -0.05, "centred": 0.05}, n_reps=6)
    records = dcm_synthetic_verdicts(table, runs, SYN_REFERENCE, SYN_READINGS, scale="quick")
    assert [(r.protocol, r.primary, r.verdict, r.n_repetitions) for r in records] == [
        (PRIMARY_NAME, True, REPRODUCED, 6),
        ("centring=uncentred, classifier=rbf, b_scale=gaussian", False, NOT_REPRODUCED, 6),
    ]
    assert {(r.experiment, r.paper, r.claim_id) for r in records} == {
        ("dcm_synthetic", "dcm", "dcm_beats_baselines")
    }


def test_dcm_synthetic_verdicts_need_the_primary_reading_run():
    table, runs = synthetic_runs({"uncentred": 0.05})
    with pytest.raises(ValueError, match="primary"):
        dcm_synthetic_verdicts(table, runs, SYN_REFERENCE, SYN_READINGS, scale="quick")


def test_readings_run_the_repetitions_of_their_fit_job():
    by_name = {r.name: r for r in SYN_READINGS}
    assert len(SYN_READINGS) == 8 and [r.primary for r in SYN_READINGS].count(True) == 1
    assert SYN_READINGS[0].name == PRIMARY_NAME
    # The linear classifier is fitted in the primary's (centring, b_scale) job.
    assert by_name["centring=centred, classifier=linear, b_scale=gaussian"].repetitions == 20
    assert by_name["centring=centred, classifier=rbf, b_scale=unit"].repetitions == 2
