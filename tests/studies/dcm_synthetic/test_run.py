"""DCM synthetic study runs: run records, tables and report section, Fig. 2 projections."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from threadpoolctl import threadpool_limits

from krepro.studies.dcm_synthetic import run as dcm_synthetic
from krepro.studies.dcm_synthetic.readings import readings
from krepro.studies.dcm_synthetic.report import dcm_synthetic_section
from krepro.studies.dcm_synthetic.tables import aggregate, tidy

SYN = {
    "n_domains": 5,
    "n_train_domains": 3,
    "mean_domain_size": 30,
    "dim": 4,
    "wishart_df": 4,
    "c": 1.0,
    "epsilon": 1e-3,
    "n_components": 2,
    "methods": ["svm", "coir", "dica", "udica", "dcm", "dcm_eq12"],
    "classifier": ["rbf", "linear"],
    "C": 1.0,
    "rbf_svm": {"gammas": [0.1, 1.0], "Cs": [1.0], "folds": 2},
    "kpca_rank_tol": 1e-8,
}
SYN_PRIMARY = {"centring": "centred", "classifier": "rbf", "b_scale": "gaussian"}
SYN_REFERENCE = yaml.safe_load(open("config/paper_reference.yaml", encoding="utf-8"))["dcm"][
    "synthetic"
]


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense problems: BLAS threads only add contention on a shared box."""
    with threadpool_limits(1):
        yield


def test_synthetic_records_table_and_section():
    records = []
    for centring in ("centred", "uncentred"):
        for gamma in (0.1, 0.5):
            records += dcm_synthetic.run_setting(
                seed=1, eta=0.2, gamma=gamma, n_repetitions=3, settings=SYN, centring=centring
            )
    runs = tidy(records)
    assert len(runs) == 2 * 2 * 3 * len(SYN["methods"]) * len(SYN["classifier"])
    assert runs["accuracy"].between(0, 1).all()
    # Common random numbers: both γ and both centrings see the same data.
    sizes = runs.groupby(["centring", "gamma"])["n_train"].apply(list)
    assert len({tuple(v) for v in sizes}) == 1
    # Binary labels: one informative DCM/COIR component when centred, two uncentred.
    dcm = runs[runs["method"] == "dcm"].groupby("centring")["n_components"].max()
    assert dcm["centred"] == 1 and dcm["uncentred"] == 2
    table = aggregate(runs)
    assert list(table.columns) == [
        "centring",
        "classifier",
        "b_scale",
        "eta",
        "gamma",
        "method",
        "accuracy_mean",
        "accuracy_sd",
        "n_reps",
    ]
    assert set(table["centring"]) == {"centred", "uncentred"}
    assert set(table["classifier"]) == {"rbf", "linear"}
    assert (table["n_reps"] == 3).all()
    again = tidy(
        dcm_synthetic.run_setting(seed=1, eta=0.2, gamma=0.1, n_repetitions=3, settings=SYN)
    )
    first = runs[(runs["gamma"] == 0.1) & (runs["centring"] == "centred")]
    np.testing.assert_array_equal(again["accuracy"], first["accuracy"].to_numpy())
    settings = {
        "centring": ["centred", "uncentred"],
        "classifier": SYN["classifier"],
        "b_scale": ["gaussian"],
        "primary": SYN_PRIMARY,
        "n_repetitions": 3,
        "reading_repetitions": 3,
    }
    section = dcm_synthetic_section(table, runs, SYN_REFERENCE, readings(settings), scale="tiny")
    assert len(section.verdicts) == 4  # one claim × (2 centrings × 2 classifiers)
    assert sum(v.primary for v in section.verdicts) == 1
    # Three repetitions: the intervals are wide, and no record is gated on a count.
    assert all(v.test == "superiority" for v in section.verdicts)
    assert "DCM − COIR" in section.body


def test_fig2_projections_have_both_splits():
    settings = {**SYN, "mean_domain_size": 30, "dim": 5, "eta": 0.2, "wishart_df": 10, "gamma": 1.0}
    frame = dcm_synthetic.fig2_projections(seed=1, settings=settings)
    assert set(frame["method"]) == {"coir", "dica", "dcm"}
    assert set(frame["split"]) == {"train", "test"}
    # Centred kernels, binary labels: one informative coordinate for every method.
    assert frame["z1"].notna().all()
    assert frame[frame["method"] == "dcm"]["z2"].isna().all()
    uncentred = dcm_synthetic.fig2_projections(
        seed=1, settings={**settings, "centring": "uncentred"}
    )
    assert uncentred[uncentred["method"] == "dcm"][["z1", "z2"]].notna().all().all()
