"""The rates study's verdicts (krepro.studies.rates.report)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import yaml

from krepro.studies.rates.report import rates_section, rates_verdicts
from krepro.studies.rates.tables import SLOPE_COLUMNS, rate_slopes
from krepro.studies.readings import Reading
from krepro.studies.verdicts import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from tests.studies.rates.test_run import TINY

REFERENCE = yaml.safe_load(open("config/paper_reference.yaml", encoding="utf-8"))["oblivious"]


# --------------------------------------------------------------------------- verdicts


SIZES = np.array([100, 200, 400, 800, 1600, 3200])
EMPTY_SLOPES = pd.DataFrame(columns=SLOPE_COLUMNS)
ERRORS = pd.DataFrame(
    {"estimator": ["partition"] * 2, "setting": ["finite_k2"] * 2, "n": [100, 200]}
).assign(error_mean=[0.1, 0.07])


def _runs(slopes_by_setting, *, noise=0.01, n_reps=20, seed=0):
    """Run table whose repetition r of each setting has error n^slope · e^(noise·N(0, 1))."""
    rng = np.random.default_rng(seed)
    rows = []
    for setting, slope in slopes_by_setting.items():
        kind = "finite" if setting.startswith("finite") else "continuous"
        for repetition in range(n_reps):
            errors = SIZES**slope * np.exp(noise * rng.normal(size=SIZES.size))
            for n, error in zip(SIZES, errors, strict=True):
                rows.append(
                    {
                        "estimator": "partition",
                        "setting": setting,
                        "kind": kind,
                        "d": int(setting[-1]) if kind == "continuous" else 1,
                        "n": int(n),
                        "repetition": repetition,
                        "error": float(error),
                        "status": "ok",
                    }
                )
    return pd.DataFrame(rows)


def _gram(slope, *, noise=0.02, n_reps=5, seed=0):
    rng = np.random.default_rng(seed)
    sizes = np.array([250, 500, 1000, 2000, 4000])
    rows = [
        {"n": int(n), "repetition": r, "cpu_seconds": float(t), "threads": 1}
        for r in range(n_reps)
        for n, t in zip(
            sizes, 1e-8 * sizes**slope * np.exp(noise * rng.normal(size=sizes.size)), strict=True
        )
    ]
    return pd.DataFrame(rows)


READINGS = [Reading("primary")]


def _verdicts(runs, gram=None):
    records = rates_verdicts(runs, REFERENCE["rates"], READINGS, scale="test", gram_cost=gram)
    return {v.claim_id: v for v in records}


def test_verdicts_one_per_claim_under_the_primary_reading_and_the_section_renders_them():
    runs, gram = _runs({"finite_k2": -0.5, "continuous_d1": -0.3}), _gram(2.0)
    records = rates_verdicts(runs, REFERENCE["rates"], READINGS, scale="test", gram_cost=gram)
    assert [(v.claim_id, v.protocol, v.primary) for v in records] == [
        ("finite_rate", "primary", True),
        ("continuous_rate", "primary", True),
        ("gram_quadratic_cost", "primary", True),
    ]
    assert [v.verdict for v in records] == [REPRODUCED] * 3
    assert (
        records[2].paper_value == REFERENCE["rates"]["claims"]["gram_quadratic_cost"]["paper_value"]
    )
    section = rates_section(
        EMPTY_SLOPES, ERRORS, runs, REFERENCE["rates"], TINY, READINGS, scale="t", gram_cost=gram
    )
    assert [v.verdict for v in section.verdicts] == [REPRODUCED] * 3
    assert "CPU seconds of the oblivious Gram matrix" in section.body


def test_rate_claims_state_their_tests_and_no_repetition_gate():
    claims = REFERENCE["rates"]["claims"]
    assert "min_repetitions" not in REFERENCE["rates"]
    assert claims["finite_rate"]["test"] == "magnitude"
    assert claims["continuous_rate"]["test"] == "non-inferiority"
    assert claims["gram_quadratic_cost"]["test"] == "non-inferiority"


def test_per_repetition_slopes_recover_the_exponent():
    slopes = rate_slopes(_runs({"finite_k2": -0.5}, noise=0.0), "finite")
    np.testing.assert_allclose(slopes["finite_k2"], -0.5, atol=1e-12)
    assert slopes["finite_k2"].shape == (20,)


def test_finite_rate_is_a_magnitude_test_over_k():
    ok = _verdicts(_runs({"finite_k2": -0.51, "finite_k5": -0.49}))["finite_rate"]
    assert ok.verdict == REPRODUCED and ok.family_size == 2 and ok.test == "magnitude"
    assert ok.n_repetitions == 20 and 0.0 <= ok.stability <= 1.0
    # one k far steeper than −1/2 contradicts the claim (never "partly reproduced")
    steep = _verdicts(_runs({"finite_k2": -0.51, "finite_k5": -0.7}))["finite_rate"]
    assert steep.verdict == NOT_REPRODUCED and "Steeper" in steep.detail
    slow = _verdicts(_runs({"finite_k2": -0.3}))["finite_rate"]
    assert slow.verdict == NOT_REPRODUCED
    # noisy slopes: the interval is wider than max_width
    noisy = _verdicts(_runs({"finite_k2": -0.5}, noise=0.3, n_reps=5))["finite_rate"]
    assert noisy.verdict == INCONCLUSIVE and "would need about" in noisy.detail


def test_continuous_rate_is_an_upper_bound():
    faster = _verdicts(_runs({"continuous_d2": -0.23}))["continuous_rate"]
    assert faster.verdict == REPRODUCED and faster.test == "non-inferiority"
    assert "upper bound" in faster.detail and "Faster than the bound" in faster.detail
    slower = _verdicts(_runs({"continuous_d1": -0.1}))["continuous_rate"]
    assert slower.verdict == NOT_REPRODUCED
    mixed = _verdicts(_runs({"continuous_d1": -0.1, "continuous_d2": -0.2}))["continuous_rate"]
    assert mixed.verdict == NOT_REPRODUCED and mixed.family_size == 2
    noisy = _verdicts(_runs({"continuous_d1": -0.2}, noise=0.3, n_reps=4))["continuous_rate"]
    assert noisy.verdict == INCONCLUSIVE and "would need about" in noisy.detail


def test_claims_without_their_runs_are_inconclusive():
    records = _verdicts(_runs({"finite_k2": -0.5}).iloc[:0])
    assert {r.verdict for r in records.values()} == {INCONCLUSIVE}
    assert "none of the settings" in records["gram_quadratic_cost"].detail


def test_gram_quadratic_cost_is_an_upper_bound_on_the_slope():
    runs = _runs({"finite_k2": -0.5})
    quadratic = _verdicts(runs, _gram(2.0))["gram_quadratic_cost"]
    assert quadratic.verdict == REPRODUCED and quadratic.n_repetitions == 5
    assert "machine" in quadratic.detail and quadratic.test == "non-inferiority"
    overheads = _verdicts(runs, _gram(1.4))["gram_quadratic_cost"]
    assert overheads.verdict == REPRODUCED  # below n²: an upper bound is met
    cubic = _verdicts(runs, _gram(3.0))["gram_quadratic_cost"]
    assert cubic.verdict == NOT_REPRODUCED
    noisy = _verdicts(runs, _gram(2.3, noise=0.6, n_reps=3))["gram_quadratic_cost"]
    assert noisy.verdict == INCONCLUSIVE and "would need about" in noisy.detail
