"""The Parkinson's Telemonitoring study of the DCM paper (Table 4): runs, tables, section,
fit jobs."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from krepro.data.parkinsons import FEATURES, Parkinsons
from krepro.studies.dcm_parkinsons import run as dcm_parkinsons
from krepro.studies.dcm_parkinsons.readings import readings
from krepro.studies.dcm_parkinsons.report import dcm_parkinsons_section
from krepro.studies.dcm_parkinsons.tables import aggregate, sweep_table, tidy
from tests.studies.dcm_parkinsons.test_report import PARK_REFERENCE


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense problems: BLAS threads only add contention on a shared box."""
    with threadpool_limits(1):
        yield


RUN_REFERENCE = PARK_REFERENCE


def fake_parkinsons(seed=0, per_subject=8):
    rng = np.random.default_rng(seed)
    subject = np.repeat(np.arange(1, 43), per_subject)
    level = rng.normal(20, 8, 42)[subject - 1]
    X = rng.normal(size=(len(subject), len(FEATURES))) + 0.05 * level[:, None]
    motor = level + rng.normal(0, 2, len(subject))
    return Parkinsons(X=X, targets={"motor": motor, "total": 1.3 * motor}, subject=subject)


PARK = {
    "n_train_subjects": 29,
    "epsilon": 1e-4,
    "n_components": 3,
    "n_landmarks": 5,
    "methods_standard": ["coir", "dica", "dcm", "dcm_eq12"],
    "methods_fast": ["coir", "dica", "dcm", "dcm_paper"],
    "sweep_landmarks": [5, 10],
    "sweep_methods": ["dcm"],
    "svr": {"C": 1.0, "epsilon": 0.1},
    "svr_kernel": ["rbf", "linear"],
    "primary": {"centring": "centred", "svr_kernel": "rbf"},
    "kpca_rank_tol": 1e-8,
}


def test_parkinsons_records_tables_and_section():
    data = fake_parkinsons()
    records = []
    for repetition in range(3):
        for centring in ("centred", "uncentred"):
            records += dcm_parkinsons.run_repetition(
                data,
                seed=1,
                repetition=repetition,
                settings=PARK,
                centring=centring,
                sweep=centring == "centred",
            )
    runs = tidy(records)
    assert runs["rmse"].gt(0).all()
    table = aggregate(runs)
    assert list(table.columns) == [
        "centring",
        "svr_kernel",
        "target",
        "method",
        "version",
        "rmse_mean",
        "rmse_sd",
        "fit_cpu_seconds",
        "fit_wall_seconds",
        "n_reps",
    ]
    assert set(table["version"]) == {"baseline", "standard", "fast"}
    assert len(table) == 2 * 2 * 2 * (2 + 4 + 4)
    sweep = sweep_table(runs)
    assert set(sweep["n_landmarks"]) == {5, 10}
    assert set(sweep["centring"]) == {"centred"} and set(sweep["svr_kernel"]) == {"rbf"}
    # The sweep's M = n_landmarks row is FastDCM itself (same landmarks, same projections):
    # one SVR fit serves both, so their errors are identical.
    key = ["repetition", "target", "svr_kernel"]
    fast_dcm = runs.query("version == 'fast' and method == 'dcm' and centring == 'centred'")
    sweep_5 = runs.query("version == 'sweep' and n_landmarks == 5")
    paired_rows = sweep_5.merge(fast_dcm, on=key, suffixes=("_sweep", "_fast"))
    assert len(paired_rows) == len(sweep_5) == 6
    assert (paired_rows["rmse_sweep"] == paired_rows["rmse_fast"]).all()
    # The same landmarks for all fast methods of a split: FastDCM reduced vs paper solver
    # use the same feature map (the records' ranks agree).
    fast = [r for r in records if r["version"] == "fast" and r["centring"] == "centred"]
    assert len({(r["repetition"], r["target"], r["rank"]) for r in fast}) == 6
    section = dcm_parkinsons_section(
        table,
        runs,
        sweep,
        RUN_REFERENCE,
        readings(
            {
                **PARK,
                "centring": ["centred", "uncentred"],
                "n_repetitions": 3,
                "reading_repetitions": 3,
            }
        ),
        scale="tiny",
    )
    assert len(section.verdicts) == 4 * 4  # 4 claims × 4 readings
    assert sum(v.primary for v in section.verdicts) == 4
    assert "training mean" in section.body or "training-mean" in section.body


def test_parkinsons_readings_in_one_call_equal_separate_calls():
    # The workflow fits every centring of a split in one job (shared split, scaling and
    # sanity rows): the same records as one call per centring, timings apart.
    data = fake_parkinsons()
    together = dcm_parkinsons.run_readings(
        data,
        seed=4,
        repetition=2,
        settings=PARK,
        centrings=["centred", "uncentred"],
        sweep_centrings=["centred"],
    )
    apart = [
        record
        for centring in ("centred", "uncentred")
        for record in dcm_parkinsons.run_repetition(
            data,
            seed=4,
            repetition=2,
            settings=PARK,
            centring=centring,
            sweep=centring == "centred",
        )
    ]
    timing = {"fit_cpu_seconds", "fit_wall_seconds"}

    def strip(records):
        return [{k: v for k, v in r.items() if k not in timing} for r in records]

    assert strip(together) == strip(apart)
    assert {r["centring"] for r in together} == {"centred", "uncentred"}
    assert not [r for r in together if r["version"] == "sweep" and r["centring"] != "centred"]
    with pytest.raises(ValueError, match="centring"):
        dcm_parkinsons.run_readings(data, seed=4, repetition=2, settings=PARK, centrings=["x"])


# The fit jobs the workflow schedules (the workflow lane's dry runs count them with this).


def parkinsons_fit_jobs(config):
    """Fit jobs by rule. The primary centring runs n_repetitions splits, the others
    reading_repetitions; a split that every centring runs is one dcm_parkinsons_fit_readings
    job, every other (centring, split) one dcm_parkinsons_fit job."""
    park = config["dcm_parkinsons"]
    reps = [
        park["n_repetitions" if c == park["primary"]["centring"] else "reading_repetitions"]
        for c in park["centring"]
    ]
    paired = min(reps) if len(reps) > 1 else 0
    jobs = {
        "dcm_parkinsons_fit_readings": paired,
        "dcm_parkinsons_fit": sum(reps) - paired * len(reps),
    }
    return {rule: count for rule, count in jobs.items() if count}


def test_dcm_parkinsons_fit_jobs_cover_every_reading():
    """Both fit rules together: one records file per (centring, split), each made once."""
    config = {
        "dcm_parkinsons": {
            "n_repetitions": 5,
            "reading_repetitions": 2,
            "centring": ["centred", "uncentred"],
            "primary": {"centring": "centred"},
        }
    }
    assert parkinsons_fit_jobs(config) == {
        "dcm_parkinsons_fit_readings": 2,
        "dcm_parkinsons_fit": 3,
    }
    config["dcm_parkinsons"]["centring"] = ["centred"]
    assert parkinsons_fit_jobs(config) == {"dcm_parkinsons_fit": 5}
