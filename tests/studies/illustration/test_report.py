"""Illustration (§5, Fig. 2) verdicts from constructed per-repetition dependence tables.

The claims compare, per repetition, the distance correlation's excess of ⟨h, Z⟩ with that of
h(X); the tables set that ratio and its noise, and the tests assert on the records.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from krepro.studies.illustration.readings import readings
from krepro.studies.illustration.report import (
    dependence_ratios,
    illustration_section,
    illustration_verdicts,
)
from krepro.studies.illustration.run import aggregate
from krepro.studies.verdicts import IDENTITY, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED

REFERENCE = yaml.safe_load(
    (Path(__file__).parents[3] / "config" / "paper_reference.yaml").read_text(encoding="utf-8")
)["oblivious"]["illustration"]


def dependence(ratios, n_reps=10, noise=0.01, oblivious_corr=0.01, seed=0):
    """Rows per (setting, features, repetition) with the given mean ratio per setting."""
    rng = np.random.default_rng(seed)
    rows = []
    for setting, ratio in ratios.items():
        for repetition in range(n_reps):
            raw = 0.6 + 0.01 * rng.standard_normal()
            obl = raw * (ratio + noise * rng.standard_normal())
            common = {"setting": setting, "repetition": repetition, "n_points": 1000}
            for features, excess, corr, eta2 in (
                ("raw", raw, 0.6, 0.5),
                ("oblivious", obl, oblivious_corr, 0.01),
            ):
                rows.append(
                    common
                    | {
                        "features": features,
                        "corr_with_s": corr,
                        "variance_explained_by_s": eta2,
                        "distance_correlation": excess + 0.05,
                        "dcor_null": 0.05,
                        "dcor_excess": excess,
                        "dcor_p_value": 0.02,
                        "n_permutations": 50,
                    }
                )
    return pd.DataFrame(rows)


READINGS = readings({"n_repetitions": 10})


def _records(frame):
    section = illustration_section(
        frame, aggregate(frame), REFERENCE, readings=READINGS, scale="test"
    )
    return {v.claim_id: v for v in section.verdicts}


def test_verdicts_one_reading_resting_on_the_repetitions_run():
    """``illustration_verdicts`` without the section: every claim under the one reading, in
    order, with the repetitions the table holds rather than the configured ones."""
    records = illustration_verdicts(
        dependence({"quadratic": 0.57, "sine": 0.18}, n_reps=6),
        REFERENCE,
        readings=READINGS,
        scale="test",
    )
    assert [(r.claim_id, r.protocol, r.primary) for r in records] == [
        ("uncorrelated", "primary", True),
        ("dependence_much_smaller", "primary", True),
        ("sine_hard_to_see", "primary", True),
    ]
    assert [r.verdict for r in records] == [REPRODUCED, NOT_REPRODUCED, NOT_REPRODUCED]
    assert {r.n_repetitions for r in records} == {6}
    assert "Over 6 repetitions" in records[0].detail


def test_ratios_are_paired_within_repetitions():
    frame = dependence({"quadratic": 0.3, "sine": 0.05}, noise=0.0)
    ratios = dependence_ratios(frame)
    np.testing.assert_allclose(ratios["quadratic"], 0.3)
    np.testing.assert_allclose(ratios["sine"], 0.05)


def test_much_smaller_everywhere_and_sine_hidden_are_reproduced():
    records = _records(dependence({"quadratic": 0.3, "sine": 0.05}))
    assert records["uncorrelated"].kind == IDENTITY
    assert records["uncorrelated"].verdict == REPRODUCED
    assert "Identity" in records["uncorrelated"].detail
    for claim_id in ("dependence_much_smaller", "sine_hard_to_see"):
        record = records[claim_id]
        assert record.verdict == REPRODUCED, record.detail
        assert record.test == "non-inferiority" and record.ci_high < 0
    assert records["dependence_much_smaller"].family_size == 2


def test_one_setting_above_half_contradicts_the_family():
    # The paper-scale situation: h1 keeps 57 % of the dependence, h2 about 18 %.
    records = _records(dependence({"quadratic": 0.57, "sine": 0.18}))
    record = records["dependence_much_smaller"]
    assert record.verdict == NOT_REPRODUCED
    assert "Deciding setting (quadratic)" in record.detail
    assert "sine: ratio 0.18" in record.detail and "(holds)" in record.detail
    assert records["sine_hard_to_see"].verdict == NOT_REPRODUCED
    assert records["sine_hard_to_see"].ci_high < -REFERENCE["claims"]["sine_hard_to_see"]["margin"]


def test_ratio_at_the_bound_with_few_repetitions_is_inconclusive():
    records = _records(dependence({"quadratic": 0.5, "sine": 0.1}, n_reps=3, noise=0.05))
    for claim_id in ("dependence_much_smaller", "sine_hard_to_see"):
        record = records[claim_id]
        assert record.verdict == INCONCLUSIVE
        assert "would need about" in record.detail or "No number" in record.detail


def test_correlated_oblivious_feature_fails_the_identity_check():
    records = _records(dependence({"quadratic": 0.3, "sine": 0.05}, oblivious_corr=0.3))
    assert records["uncorrelated"].verdict == NOT_REPRODUCED
