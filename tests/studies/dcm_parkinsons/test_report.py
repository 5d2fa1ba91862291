"""Verdicts and Nyström-sweep figure of the Parkinson's Telemonitoring study (Table 4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from threadpoolctl import threadpool_limits

from krepro.studies.dcm_parkinsons.readings import readings
from krepro.studies.dcm_parkinsons.report import dcm_parkinsons_section, dcm_parkinsons_verdicts
from krepro.studies.dcm_parkinsons.tables import aggregate
from krepro.studies.verdicts import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    detail_disagreements,
)


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense problems: BLAS threads only add contention on a shared box."""
    with threadpool_limits(1):
        yield


PARK_REFERENCE = yaml.safe_load(open("config/paper_reference.yaml", encoding="utf-8"))["dcm"][
    "parkinsons"
]


PARK_METHODS = [
    ("mean", "baseline"),
    ("svr", "baseline"),
    ("coir", "standard"),
    ("dica", "standard"),
    ("dcm", "standard"),
    ("coir", "fast"),
    ("dica", "fast"),
    ("dcm", "fast"),
]


def parkinsons_runs(rmse, n_reps=20, seed=0, noise=0.01, fast_seconds=0.003):
    """Runs of one reading; ``rmse[(method, version)]`` = mean RMSE, split effect shared."""
    rng = np.random.default_rng(seed)
    rows = []
    for repetition in range(n_reps):
        split = rng.normal(0, 1.0)
        for target in ("motor", "total"):
            for method, version in PARK_METHODS:
                seconds = {"standard": 30.0, "fast": fast_seconds}.get(version, 0.0)
                rows.append(
                    {
                        "centring": "centred",
                        "svr_kernel": "rbf",
                        "target": target,
                        "method": method,
                        "version": version,
                        "n_landmarks": 5 if version == "fast" else 0,
                        "repetition": repetition,
                        "rmse": rmse[(method, version)] + split + noise * rng.normal(),
                        "fit_cpu_seconds": seconds * np.exp(0.1 * rng.normal()),
                        "fit_wall_seconds": seconds,
                        "status": "ok",
                    }
                )
    runs = pd.DataFrame(rows)
    return aggregate(runs), runs


PARK_PRIMARY = {"centring": "centred", "svr_kernel": "rbf"}
#: Every reading of the default axes; a report judges those its runs hold.
PARK_READINGS = readings(
    {
        "centring": ["centred", "uncentred"],
        "svr_kernel": ["rbf", "linear"],
        "primary": PARK_PRIMARY,
        "n_repetitions": 20,
        "reading_repetitions": 3,
    }
)


def _by_claim(table, runs, scale="paper"):
    verdicts = dcm_parkinsons_verdicts(table, runs, PARK_REFERENCE, PARK_READINGS, scale=scale)
    for record in verdicts:
        assert not detail_disagreements(record), (record.claim_id, record.detail)
    return {v.claim_id: v for v in verdicts}


def _rmse(mean=8.0, others=9.0, **changes):
    rmse = {key: others for key in PARK_METHODS}
    rmse[("mean", "baseline")] = mean
    rmse.update(changes)
    return rmse


def test_parkinsons_all_methods_lose_to_the_mean_predictor():
    rmse = _rmse(mean=8.0)
    rmse[("dcm", "standard")] = rmse[("dcm", "fast")] = 8.7  # DCM ahead of COIR/DICA
    verdicts = _by_claim(*parkinsons_runs(rmse, noise=0.002))
    informative = verdicts["informative"]
    assert (informative.verdict, informative.kind, informative.primary) == (
        NOT_REPRODUCED,
        "sanity check",
        True,
    )
    assert informative.ci_high < informative.margin and informative.n_repetitions == 20
    # The ranking is judged on its own; the sanity check carries the uninformative task.
    ranking = verdicts["dcm_beats_baselines"]
    assert ranking.verdict == REPRODUCED
    assert "Parts: standard: holds" in ranking.detail
    # COIR and DICA have the same RMSEs here: one comparison per (target, version).
    assert "COIR = DICA" in ranking.detail and ranking.family_size == 2
    assert (verdicts["fast_much_faster"].verdict, verdicts["fast_much_faster"].test) == (
        REPRODUCED,
        "superiority",
    )
    assert "depend on the machine" in verdicts["fast_much_faster"].detail
    fast = verdicts["fast_as_accurate"]
    assert (fast.verdict, fast.test) == (REPRODUCED, "non-inferiority")
    assert fast.ci_low > -fast.margin


def test_parkinsons_informative_task_and_fast_behind_is_partly():
    rmse = _rmse(mean=10.0)
    rmse[("dcm", "standard")] = 8.7  # ahead of COIR/DICA in the standard version
    rmse[("dcm", "fast")] = 9.5  # behind FastCOIR/FastDICA
    verdicts = _by_claim(*parkinsons_runs(rmse))
    assert verdicts["informative"].verdict == REPRODUCED
    ranking = verdicts["dcm_beats_baselines"]
    assert ranking.verdict == PARTLY
    assert "standard: holds" in ranking.detail and "fast: contradicted" in ranking.detail
    assert verdicts["fast_as_accurate"].verdict == NOT_REPRODUCED  # 9 % worse


def test_parkinsons_noise_is_inconclusive_and_slow_fast_version_not_reproduced():
    rmse = _rmse(mean=10.0)
    rmse[("dcm", "fast")] = 9.1
    table, runs = parkinsons_runs(rmse, n_reps=3, noise=0.5, fast_seconds=1.0)
    verdicts = _by_claim(table, runs, scale="quick")
    fast = verdicts["fast_as_accurate"]
    assert (fast.verdict, fast.n_repetitions) == (INCONCLUSIVE, 3)
    assert "A decisive verdict would need about" in fast.detail
    assert verdicts["dcm_beats_baselines"].verdict == INCONCLUSIVE
    # 30 s against 1 s: a 30× speed-up, below the 100× the claim reads.
    assert verdicts["fast_much_faster"].verdict == NOT_REPRODUCED


def test_parkinsons_without_fast_methods_is_inconclusive_not_contradicted():
    rmse = _rmse(mean=10.0)
    _, runs = parkinsons_runs(rmse)
    runs = runs[runs["version"] != "fast"]
    verdicts = _by_claim(aggregate(runs), runs)
    for claim_id in ("dcm_beats_baselines", "fast_as_accurate", "fast_much_faster"):
        assert verdicts[claim_id].verdict == INCONCLUSIVE, claim_id


def test_nystrom_sweep_figure(tmp_path):
    from krepro.studies.dcm_parkinsons.figures import plot_nystrom

    rmse = {key: 9.0 for key in PARK_METHODS}
    table, _ = parkinsons_runs(rmse, n_reps=3)
    sweep = pd.DataFrame(
        {
            "centring": "centred",
            "svr_kernel": "rbf",
            "target": ["motor", "motor", "total", "total"],
            "method": "dcm",
            "n_landmarks": [5, 20, 5, 20],
            "rmse_mean": [9.0, 8.8, 11.0, 10.9],
            "rmse_sd": 1.0,
            "fit_cpu_seconds": [0.003, 0.01, 0.003, 0.01],
            "n_reps": 3,
        }
    )
    plot_nystrom(sweep, table, tmp_path / "nystrom.png")
    assert (tmp_path / "nystrom.png").stat().st_size > 0


def test_parkinsons_fast_better_than_standard_maintains_accuracy():
    # Non-inferiority: a FastDCM 9 % better than DCM does not contradict "maintains".
    rmse = _rmse(mean=10.0)
    rmse[("dcm", "standard")], rmse[("dcm", "fast")] = 10.0, 9.1
    fast = _by_claim(*parkinsons_runs(rmse))["fast_as_accurate"]
    assert fast.verdict == REPRODUCED and fast.effect > 0.05


def test_dcm_parkinsons_verdicts_every_claim_of_each_reading_run_primary_first():
    rmse = _rmse(mean=10.0)
    rmse[("dcm", "standard")] = rmse[("dcm", "fast")] = 8.7
    table, runs = parkinsons_runs(rmse, n_reps=8)
    linear = runs.assign(svr_kernel="linear")
    runs = pd.concat([linear, runs], ignore_index=True)
    table = aggregate(runs)
    records = dcm_parkinsons_verdicts(table, runs, PARK_REFERENCE, PARK_READINGS, scale="quick")
    claims = ["informative", "dcm_beats_baselines", "fast_as_accurate", "fast_much_faster"]
    assert [(r.protocol, r.claim_id) for r in records] == [
        (reading, claim)
        for reading in ("centring=centred, svr_kernel=rbf", "centring=centred, svr_kernel=linear")
        for claim in claims
    ]
    assert [r.primary for r in records] == [True] * 4 + [False] * 4
    assert {(r.verdict, r.n_repetitions) for r in records} == {(REPRODUCED, 8)}
    section = dcm_parkinsons_section(
        table, runs, None, PARK_REFERENCE, PARK_READINGS, scale="quick"
    )
    assert section.verdicts == records
    assert "Table 4 under the primary reading (centring=centred, svr_kernel=rbf)" in section.body


def test_parkinsons_readings_run_the_splits_of_their_centring():
    assert [(r.name, r.primary, r.repetitions) for r in PARK_READINGS] == [
        ("centring=centred, svr_kernel=rbf", True, 20),
        ("centring=centred, svr_kernel=linear", False, 20),
        ("centring=uncentred, svr_kernel=rbf", False, 3),
        ("centring=uncentred, svr_kernel=linear", False, 3),
    ]
