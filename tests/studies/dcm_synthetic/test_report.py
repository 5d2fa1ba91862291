"""DCM verdicts from small synthetic run tables: one record per (claim, reading)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import yaml

from krepro.studies.dcm_synthetic import run as dcm_synthetic
from krepro.studies.dcm_synthetic.readings import merge_identical
from krepro.studies.dcm_synthetic.report import synthetic_section
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
    return dcm_synthetic.aggregate(runs), runs


def _record(table, runs, scale="paper"):
    (record,) = synthetic_section(
        table, runs, SYN_REFERENCE, primary=SYN_PRIMARY, scale=scale
    ).verdicts
    assert not detail_disagreements(record), record.detail
    return record


def test_synthetic_one_verdict_per_reading_primary_marked_and_fragile():
    table, runs = synthetic_runs({"centred": 0.05, "uncentred": -0.05})
    section = synthetic_section(table, runs, SYN_REFERENCE, primary=SYN_PRIMARY, scale="paper")
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


def test_merge_identical_counts_numerically_equal_series_once():
    same = np.array([0.01, 0.02, 0.03])
    merged, groups = merge_identical({"a": same, "b": same + 0.001, "c": same + 0.05}, tol=0.002)
    assert list(merged) == ["a = b", "c"]
    np.testing.assert_allclose(merged["a = b"], same + 0.0005)
    ((names, mean, top),) = groups
    assert names == ("a", "b") and np.isclose(mean, 0.001) and np.isclose(top, 0.001)
