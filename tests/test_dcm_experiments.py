"""DCM experiments: synthetic domain generator, run records, tables and report sections."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_limits

from krepro.data.domains import domain_sample, split_domains
from krepro.data.parkinsons import FEATURES, Parkinsons
from krepro.experiments import dcm_parkinsons, dcm_synthetic
from krepro.report.dcm import paired, synthetic_section
from krepro.report.dcm_parkinsons import parkinsons_section
from krepro.seeding import generator

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
SYN_REFERENCE = {
    "min_repetitions": 20,
    "claims": {
        "dcm_beats_baselines": {
            "text": "DCM beats DICA and COIR.",
            "source": "Table 3",
            "z": 2.0,
            "chance_margin": 0.05,
        }
    },
}
PARK_REFERENCE = {
    "min_repetitions": 20,
    "claims": {
        "dcm_beats_baselines": {"text": "DCM beats.", "source": "Table 4", "z": 2.0},
        "fast_as_accurate": {"text": "Fast as accurate.", "source": "Table 4", "z": 2.0},
        "fast_much_faster": {
            "text": "Fast is faster.",
            "source": "Table 4",
            "min_speedup": 2,
            "min_repetitions": 2,
        },
        "informative": {"text": "Beats the mean.", "source": "note", "z": 2.0},
    },
}


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense problems: BLAS threads only add contention on a shared box."""
    with threadpool_limits(1):
        yield


def test_domain_generator_sizes_balance_and_wishart_mean():
    rng = generator(0, "test")
    sizes, balance, covs = [], [], []
    for _ in range(20):
        sample = domain_sample(rng, n_domains=10, mean_size=100, dim=10, eta=0.2, df=10)
        sizes += list(np.bincount(sample.domains))
        balance.append(np.mean(sample.y == 1))
        covs.append(sample.covariances.mean(axis=0))
    # Poisson(100): mean 100, sd 10; 200 draws → se 0.7.
    assert np.mean(sizes) == pytest.approx(100, abs=3)
    assert np.std(sizes) == pytest.approx(10, abs=2)
    assert set(np.unique(sample.y)) == {-1, 1}
    assert np.mean(balance) == pytest.approx(0.5, abs=0.05)
    # E[W(ηI, df)] = df η I = 2 I; 200 Wishart draws: se of a diagonal entry ≈ 0.06.
    mean_cov = np.mean(covs, axis=0)
    np.testing.assert_allclose(np.diag(mean_cov), 2.0, atol=0.3)
    assert np.abs(mean_cov - np.diag(np.diag(mean_cov))).max() < 0.3


def test_split_domains_keeps_domains_whole():
    sample = domain_sample(generator(0, "split"), n_domains=10, mean_size=20, dim=3)
    train = split_domains(sample.domains, 7, generator(0, "split", 1))
    assert len(np.unique(sample.domains[train])) == 7
    assert not set(sample.domains[train]) & set(sample.domains[~train])


def test_synthetic_records_table_and_section():
    records = []
    for centring in ("centred", "uncentred"):
        for gamma in (0.1, 0.5):
            records += dcm_synthetic.run_setting(
                seed=1, eta=0.2, gamma=gamma, n_repetitions=3, settings=SYN, centring=centring
            )
    runs = dcm_synthetic.tidy(records)
    assert len(runs) == 2 * 2 * 3 * len(SYN["methods"]) * len(SYN["classifier"])
    assert runs["accuracy"].between(0, 1).all()
    # Common random numbers: both γ and both centrings see the same data.
    sizes = runs.groupby(["centring", "gamma"])["n_train"].apply(list)
    assert len({tuple(v) for v in sizes}) == 1
    # Binary labels: one informative DCM/COIR component when centred, two uncentred.
    dcm = runs[runs["method"] == "dcm"].groupby("centring")["n_components"].max()
    assert dcm["centred"] == 1 and dcm["uncentred"] == 2
    table = dcm_synthetic.aggregate(runs)
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
    again = dcm_synthetic.tidy(
        dcm_synthetic.run_setting(seed=1, eta=0.2, gamma=0.1, n_repetitions=3, settings=SYN)
    )
    first = runs[(runs["gamma"] == 0.1) & (runs["centring"] == "centred")]
    np.testing.assert_array_equal(again["accuracy"], first["accuracy"].to_numpy())
    section = synthetic_section(table, runs, SYN_REFERENCE, primary=SYN_PRIMARY, scale="tiny")
    assert len(section.verdicts) == 4  # one claim × (2 centrings × 2 classifiers)
    assert sum(v.primary for v in section.verdicts) == 1
    assert all(v.verdict == "inconclusive" for v in section.verdicts)  # 3 < 20 repetitions
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
    runs = dcm_parkinsons.tidy(records)
    assert runs["rmse"].gt(0).all()
    table = dcm_parkinsons.aggregate(runs)
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
    sweep = dcm_parkinsons.sweep_table(runs)
    assert set(sweep["n_landmarks"]) == {5, 10}
    assert set(sweep["centring"]) == {"centred"} and set(sweep["svr_kernel"]) == {"rbf"}
    # The same landmarks for all fast methods of a split: FastDCM reduced vs paper solver
    # use the same feature map (the records' ranks agree).
    fast = [r for r in records if r["version"] == "fast" and r["centring"] == "centred"]
    assert len({(r["repetition"], r["target"], r["rank"]) for r in fast}) == 6
    section = parkinsons_section(
        table, runs, sweep, PARK_REFERENCE, primary=PARK["primary"], scale="tiny"
    )
    assert len(section.verdicts) == 4 * 4  # 4 claims × 4 readings
    assert sum(v.primary for v in section.verdicts) == 4
    assert "training mean" in section.body or "training-mean" in section.body


def test_paired_differences_are_per_split():
    runs = pd.DataFrame(
        {
            "g": ["a"] * 6,
            "repetition": [0, 0, 1, 1, 2, 2],
            "method": ["x", "y"] * 3,
            "v": [1.0, 2.0, 5.0, 6.5, 3.0, 3.5],
        }
    )
    d = paired(runs, ["g"], "method", "x", "y", "v").iloc[0]
    assert d["mean"] == pytest.approx(1.0)
    assert d["sd"] == pytest.approx(0.5)
    assert d["n"] == 3
