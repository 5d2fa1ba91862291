"""adult_full: the experiment's methods on a small synthetic split, and its verdicts."""

import numpy as np
import pandas as pd
import pytest
import yaml

from krepro.data.adult import AdultSplit
from krepro.studies.adult_full.report import adult_full_section
from krepro.studies.adult_full.run import METHODS, run_full_method, select_hyperparameters
from krepro.studies.adult_full.sweep import run_sweep
from krepro.studies.adult_full.tables import adult_full_table, sweep_table
from krepro.studies.verdicts import INCONCLUSIVE, NOT_REPRODUCED, PARTLY, REPRODUCED

REFERENCE = "config/paper_reference.yaml"
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


@pytest.fixture(scope="module")
def reference():
    with open(REFERENCE, encoding="utf-8") as handle:
        return yaml.safe_load(handle)["oblivious"]


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


def _table(svm, ferm, oblivious, remover, **extra):
    rows = []
    for method, (error, deo, beta) in {
        "svm": svm,
        "ferm": ferm,
        "oblivious": oblivious,
        "correlation_remover": remover,
        **extra,
    }.items():
        rows.append(
            {
                "method": method,
                "family": "kernel",
                "test_error": error,
                "deo": deo,
                "beta": beta,
                "positive_rate": 0.2,
                "fit_cpu_seconds": 1.0,
                "train_error": error,
                "n_components": 100,
                "approximation": "nystroem",
                "C": 1.0,
                "gamma": 0.01,
                "n_train": 1000,
                "n_test": 500,
            }
        )
    return adult_full_table(pd.DataFrame(rows))


def _sweep(agreements):
    rows = []
    for method in ("svm", "ferm", "oblivious", "m_oblivious"):
        rows.append(
            {
                "method": method,
                "kind": "exact",
                "n_components": None,
                "test_error": 0.17,
                "deo": 0.1,
                "beta": 0.1,
                "positive_rate": 0.2,
                "agreement": 1.0,
                "C": 1.0,
                "gamma": 0.01,
                "n_train": 1628,
                "n_test": 500,
                "cpu_seconds": 1.0,
            }
        )
        for count, agreement in ((50, 0.9), (400, agreements[method])):
            rows.append(
                {**rows[-1], "kind": "features", "n_components": count, "agreement": agreement}
            )
    return sweep_table(pd.DataFrame(rows))


def _section(reference, table, sweep, scale="quick"):
    settings = {
        "n_components": 100,
        "approximation": "nystroem",
        "oblivious_estimation": "split",
        "exponentiated_gradient": {"eps": 0.01, "max_iter": 2},
        "grid": {"C": [1.0], "gamma": [0.01]},
    }
    selection = {"C": 1.0, "gamma": 0.01, "scores": [], "validation_fraction": None}
    section = adult_full_section(
        table,
        sweep,
        reference["adult_full"],
        reference["adult"]["table1"],
        selection=selection,
        settings=settings,
        scale=scale,
    )
    return {v.claim_id: v for v in section.verdicts}


GOOD = {"svm": 0.99, "ferm": 0.99, "oblivious": 0.98, "m_oblivious": 0.99}


def test_verdicts_when_the_paper_holds(reference):
    table = _table(
        svm=(0.16, 0.15, 0.16),
        ferm=(0.16, 0.08, 0.12),
        oblivious=(0.17, 0.03, 0.06),
        remover=(0.16, 0.06, 0.14),
    )
    verdicts = _section(reference, table, _sweep(GOOD))
    assert {k: v.verdict for k, v in verdicts.items()} == {
        "features_match_exact": REPRODUCED,
        "oblivious_reduces_beta": REPRODUCED,
        "oblivious_lowest_deo_rbf": REPRODUCED,
        "ferm_reduces_deo": REPRODUCED,
        "oblivious_beyond_correlation_remover": REPRODUCED,
    }
    for record in verdicts.values():
        assert record.primary and record.protocol == "primary" and record.paper == "oblivious"
        assert record.experiment == "adult_full" and record.scale == "quick"
    assert verdicts["features_match_exact"].n_repetitions is None
    assert verdicts["oblivious_reduces_beta"].n_repetitions == 1
    assert verdicts["oblivious_reduces_beta"].min_repetitions == 1


def test_verdicts_when_the_paper_fails(reference):
    table = _table(
        svm=(0.16, 0.15, 0.16),
        ferm=(0.16, 0.20, 0.12),
        oblivious=(0.22, 0.18, 0.06),  # e_β down, but error +0.06
        remover=(0.16, 0.06, 0.02),
    )
    verdicts = _section(reference, table, _sweep({**GOOD, "oblivious": 0.9}))
    assert verdicts["features_match_exact"].verdict == NOT_REPRODUCED
    assert verdicts["oblivious_reduces_beta"].verdict == PARTLY
    assert verdicts["oblivious_lowest_deo_rbf"].verdict == NOT_REPRODUCED
    assert verdicts["ferm_reduces_deo"].verdict == NOT_REPRODUCED
    assert verdicts["oblivious_beyond_correlation_remover"].verdict == NOT_REPRODUCED


def test_ties_are_inconclusive_and_no_reduction_is_not_reproduced(reference):
    table = _table(
        svm=(0.16, 0.100, 0.16),
        ferm=(0.16, 0.095, 0.12),
        oblivious=(0.16, 0.098, 0.159),
        remover=(0.16, 0.06, 0.155),
    )
    verdicts = _section(reference, table, _sweep(GOOD))
    assert verdicts["oblivious_lowest_deo_rbf"].verdict == INCONCLUSIVE
    assert verdicts["ferm_reduces_deo"].verdict == INCONCLUSIVE
    assert verdicts["oblivious_beyond_correlation_remover"].verdict == INCONCLUSIVE
    assert verdicts["oblivious_reduces_beta"].verdict == NOT_REPRODUCED


def test_table_relative_beta_and_order():
    table = _table(
        svm=(0.16, 0.15, 0.2),
        ferm=(0.16, 0.08, 0.1),
        oblivious=(0.17, 0.03, 0.05),
        remover=(0.16, 0.06, 0.14),
    )
    assert list(table["method"]) == ["svm", "ferm", "oblivious", "correlation_remover"]
    np.testing.assert_allclose(table["relative_beta_percent"], [100, 50, 25, 70])
