"""adult_full: the experiment's methods and sweep on a small synthetic split."""

import numpy as np
import pandas as pd
import pytest

from krepro.data.adult import AdultSplit
from krepro.studies.adult_full.run import METHODS, run_full_method, select_hyperparameters
from krepro.studies.adult_full.sweep import run_sweep

SETTINGS = {
    "n_components": 30,
    "approximation": "nystroem",
    "classifier": {"tol": 1e-3, "max_iter": 200},
    "oblivious_estimation": "split",
    "correlation_remover_alpha": 1.0,
    "exponentiated_gradient": {"eps": 0.05, "max_iter": 2},
}


def _split(n_train=240, n_test=300, seed=0):
    """Adult-like split: ±1 labels, S = gender also column 0 of X, X depends on S."""
    rng = np.random.default_rng(seed)
    n = n_train + n_test
    s = rng.integers(0, 2, n)
    X = np.column_stack([s - 0.5, rng.normal(size=(n, 3)) + 0.8 * s[:, None]])
    y = np.where(X[:, 1] + 0.5 * X[:, 2] + 0.5 * rng.normal(size=n) > 0.7, 1, -1)
    return AdultSplit(
        protocol="corrected",
        X_train=X[:n_train],
        y_train=y[:n_train],
        s_train=s[:n_train],
        X_test=X[n_train:],
        y_test=y[n_train:],
        s_test=s[n_train:],
        feature_names=("gender=Male", "a", "b", "c"),
        sensitive_columns=(0,),
    )


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_runs_and_scores(method):
    split = _split()
    record = run_full_method(split, method, C=1.0, gamma=0.3, settings=SETTINGS, seed=1)
    assert record["status"] == "ok"
    assert 0 <= record["test_error"] <= 0.5
    assert 0 <= record["deo"] <= 1 and 0 <= record["beta"] <= 1
    assert 0 < record["positive_rate"] < 1
    expected_rows = len(split.y_train) // 2 if method in ("oblivious", "m_oblivious") else 240
    assert record["n_train"] == expected_rows
    again = run_full_method(split, method, C=1.0, gamma=0.3, settings=SETTINGS, seed=1)
    assert again["test_error"] == record["test_error"]  # seeded: landmarks and randomised rules


def test_fairness_interventions_lower_their_targets():
    split = _split(n_train=600, n_test=2000)
    runs = {
        m: run_full_method(split, m, C=1.0, gamma=0.3, settings=SETTINGS, seed=1)
        for m in ("svm", "oblivious", "threshold_optimizer")
    }
    assert runs["oblivious"]["beta"] < runs["svm"]["beta"]
    assert runs["threshold_optimizer"]["deo"] < runs["svm"]["deo"]


def test_selection_one_point_grid_and_grid():
    split = _split()
    one = select_hyperparameters(
        split,
        grid={"C": [2.0], "gamma": [0.5]},
        n_components=20,
        approximation="nystroem",
        classifier=SETTINGS["classifier"],
        seed=1,
        validation_fraction=0.25,
    )
    assert (one["C"], one["gamma"], one["scores"]) == (2.0, 0.5, [])
    grid = select_hyperparameters(
        split,
        grid={"C": [0.1, 1.0], "gamma": [0.1, 0.5]},
        n_components=20,
        approximation="nystroem",
        classifier=SETTINGS["classifier"],
        seed=1,
        validation_fraction=0.25,
    )
    best = max(r["accuracy"] for r in grid["scores"])
    chosen = [r for r in grid["scores"] if (r["C"], r["gamma"]) == (grid["C"], grid["gamma"])]
    assert len(grid["scores"]) == 4 and chosen[0]["accuracy"] == best


def test_sweep_with_every_point_reproduces_exact_methods():
    split = _split(n_train=120, n_test=200)
    records = run_sweep(split, C=1.0, gamma=0.3, n_components=[10, 500], seed=1)
    frame = pd.DataFrame(records)
    exact = frame[frame["kind"] == "exact"]
    assert set(exact["method"]) == {"svm", "ferm", "ferm_qp", "oblivious", "m_oblivious"}
    largest = frame[frame["kind"] == "features"].groupby("method")["n_components"].max()
    assert (largest[["svm", "ferm", "oblivious", "m_oblivious"]] == 120).all()
    full = frame[(frame["kind"] == "features") & (frame["n_components"] == 120)]
    # Every training point a landmark: the same libsvm dual, up to solver tolerance.
    assert (full["agreement"] >= 0.99).all()
