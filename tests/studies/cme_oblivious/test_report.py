"""cme_oblivious study verdicts, section and figure."""

import numpy as np
import pandas as pd
import yaml

from krepro.studies.cme_oblivious.figures import plot_cme_oblivious
from krepro.studies.cme_oblivious.readings import readings
from krepro.studies.cme_oblivious.report import cme_oblivious_section, cme_oblivious_verdicts
from krepro.studies.cme_oblivious.run import run_setting
from krepro.studies.cme_oblivious.tables import aggregate, tidy

# --------------------------------------------------------------------------- verdicts

REFERENCE = yaml.safe_load(open("config/paper_reference.yaml", encoding="utf-8"))["cme"][
    "oblivious_features"
]
READINGS = readings({"sensitive_dims": [1, 2], "n_repetitions": 5})


def synthetic_runs(n_reps, *, ratio=None, krr_p=0.001, dims=(1, 2), noise=0.05):
    """Per-run table: KRR with HSIC ≈ 1 (p-value krr_p); ORR and M-ORR with HSIC ≈ ratio ×
    KRR's (``ratio`` maps method to its ratio, default 0.1 for both), multiplicative noise of
    relative sd ``noise``."""
    ratio = {"ORR": 0.1, "M-ORR": 0.1} | (ratio or {})
    rng = np.random.default_rng(0)
    rows = []
    for dim in dims:
        for gamma in (0.0, 0.5):
            for rep in range(n_reps):
                krr = 1.0 + 0.05 * rng.normal()
                rows.append((dim, 1, gamma, rep, "none", "KRR", krr, krr_p))
                for estimator in ("dyadic", "cme"):
                    for method, r in ratio.items():
                        value = r * krr * np.exp(noise * rng.normal())
                        rows.append((dim, 1, gamma, rep, estimator, method, value, 0.3))
    columns = ["sensitive_dim", "experiment", "gamma", "repetition", "estimator", "method"]
    return pd.DataFrame(rows, columns=[*columns, "hsic", "hsic_p_value"])


def verdicts(runs):
    records = cme_oblivious_verdicts(runs, REFERENCE, "test", READINGS)
    return {r.protocol: r for r in records}


def test_dependence_reduced_has_one_record_per_reading_and_one_primary():
    records = verdicts(synthetic_runs(20))
    assert set(records) == {"dyadic, d = 1", "dyadic, d = 2", "cme, d = 1", "cme, d = 2"}
    assert [p for p, r in records.items() if r.primary] == ["dyadic, d = 1"]
    assert {r.verdict for r in records.values()} == {"reproduced"}
    assert all(r.n_repetitions == 20 and r.paper == "oblivious" for r in records.values())


def test_verdicts_follow_the_declared_readings_that_the_runs_hold():
    """Records in the readings' order (estimator, then d), each with the repetitions its d
    ran; a declared d without runs is not judged."""
    records = cme_oblivious_verdicts(synthetic_runs(7, dims=(1,)), REFERENCE, "test", READINGS)
    assert [(r.protocol, r.primary) for r in records] == [
        ("dyadic, d = 1", True),
        ("cme, d = 1", False),
    ]
    assert {(r.claim_id, r.verdict, r.n_repetitions) for r in records} == {
        ("dependence_reduced", "reproduced", 7)
    }
    assert all(r.paper_value == "significant reduction" for r in records)


def test_dependence_reduced_is_a_holm_family_of_superiority_tests():
    record = verdicts(synthetic_runs(20))["dyadic, d = 1"]
    assert record.test == "superiority" and record.family_size == 4  # 2 γ × 2 methods
    assert 0.0 <= record.stability <= 1.0 and record.ci_low > 0
    assert "min_repetitions" not in REFERENCE


def test_dependence_reduced_rules():
    # One method leaves the dependence as it is in every setting: the claim is contradicted
    # (a halving is excluded), never "partly reproduced".
    one_method = verdicts(synthetic_runs(20, ratio={"M-ORR": 1.0}))["dyadic, d = 1"]
    assert one_method.verdict == "not reproduced"
    assert "γ = 0, M-ORR: ratio 1.0" in one_method.detail and "ORR: ratio 0.1" in one_method.detail
    none = verdicts(synthetic_runs(20, ratio={"ORR": 0.9, "M-ORR": 1.0}))
    assert none["dyadic, d = 1"].verdict == "not reproduced"
    # KRR never depends on S: nothing to reduce.
    assert verdicts(synthetic_runs(20, krr_p=0.5))["dyadic, d = 1"].verdict == "inconclusive"
    # A reduction too noisy to establish or exclude: inconclusive, with the repetitions needed.
    noisy = verdicts(synthetic_runs(3, ratio={"ORR": 0.7, "M-ORR": 0.7}, noise=0.8))
    assert noisy["dyadic, d = 1"].verdict == "inconclusive"
    assert "would need about" in noisy["dyadic, d = 1"].detail


def test_section_and_figure_from_a_small_run(tmp_path):
    records = run_setting(
        seed=1,
        sensitive_dim=1,
        experiment=1,
        gamma=0.0,
        sizes={"n_train": 60, "n_estimation": 120, "n_validation": 30, "n_test": 60},
        n_repetitions=2,
        noise_variance=0.1,
        lambdas=2.0 ** np.arange(-3, 3),
        kernel_gamma=1.0,
        partition={"low": -5.0, "high": 5.0, "cells_per_axis": {1: 8, 2: 3}},
        cme={"gamma": 1.0, "alphas": 10.0 ** np.arange(-5, 0)},
        n_permutations=19,
    )
    runs = tidy(records)
    assert runs["hsic_p_value"].between(1 / 20, 1).all()
    table = aggregate(runs)
    section = cme_oblivious_section(table, runs, REFERENCE, readings=READINGS, scale="test")
    assert section.experiment == "cme_oblivious" and len(section.verdicts) == 2
    plot_cme_oblivious(table, tmp_path / "fig.png")
    assert (tmp_path / "fig.png").stat().st_size > 10_000
