"""Table-1 methods of the Adult study (krepro.studies.adult.run): sex as strings, the
misaligned CV of the FERM reference, kernel FERM rows on sliced Gram matrices."""

import os
from pathlib import Path

import numpy as np
import pytest

# The offline UCI mirror (tests/conftest.py defaults it to shared/data beside the checkout).
MIRROR = Path(os.environ.get("KREPRO_DATA_MIRROR", "/nonexistent"))
DATA, TEST = MIRROR / "adult" / "adult.data", MIRROR / "adult" / "adult.test"
pytestmark = pytest.mark.skipif(not TEST.is_file(), reason="offline UCI Adult mirror not present")


def test_sex_as_strings_gives_the_table1_numbers_of_0_1_codes(reference):
    # A user's own copy of Adult has sex as "Female"/"Male"; every Table-1 method must give
    # the same record as with the 0/1 codes (Female < Male, as 0 < 1).
    from dataclasses import replace

    from krepro.studies.adult.run import METHODS, run_method

    n = 160
    codes = replace(
        reference,
        X_train=reference.X_train[:n],
        y_train=reference.y_train[:n],
        s_train=reference.s_train[:n],
        X_test=reference.X_test[:n],
        y_test=reference.y_test[:n],
        s_test=reference.s_test[:n],
    )
    names = np.array(["Female", "Male"])
    strings = replace(
        codes, s_train=names[codes.s_train.astype(int)], s_test=names[codes.s_test.astype(int)]
    )
    options = {
        "ferm_intercept": "free",
        "linear_ferm_selection": "argmax_abs",
        "oblivious_drop_sensitive": False,
    }
    grid = {"C": [1.0], "gamma": [0.1]}
    for method in METHODS:
        records = [
            run_method(split, method, grid=grid, grid_name="tiny", n_folds=2, options=options)
            for split in (codes, strings)
        ]
        for record in records:
            del record["wall_seconds"], record["cpu_seconds"]
        assert records[0] == records[1], method


def test_misaligned_cv_gives_fold_fits_the_first_rows_groups(monkeypatch):
    """The FERM reference's quirk: inside a fold the groups are the column's first rows."""
    from krepro.data.adult import AdultSplit
    from krepro.fairness.ferm import FERMClassifier
    from krepro.studies.adult.run import run_method

    rng = np.random.default_rng(0)
    n = 40
    X = rng.standard_normal((n, 3))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(n) > 0, 1, -1)
    s = (rng.random(n) < 0.5).astype(int)
    split = AdultSplit("reference", X, y, s, X, y, s, ("a", "b", "c"), (2,))
    seen = []
    original = FERMClassifier.fit

    def spy(self, X_fit, y_fit, *, sensitive_features=None):
        seen.append(np.asarray(sensitive_features).copy())
        return original(self, X_fit, y_fit, sensitive_features=sensitive_features)

    monkeypatch.setattr(FERMClassifier, "fit", spy)
    options = {
        "ferm_intercept": "all_support",
        "linear_ferm_selection": "argmax",
        "oblivious_drop_sensitive": True,
    }
    grid = {"C": [1.0], "gamma": [0.1]}
    run_method(split, "ferm_rbf_misaligned", grid=grid, grid_name="g", n_folds=2, options=options)
    folds, refit = seen[:-1], seen[-1]
    assert all(np.array_equal(g, s[: len(g)]) for g in folds)
    assert np.array_equal(refit, s)
    seen.clear()
    run_method(split, "ferm_rbf", grid=grid, grid_name="g", n_folds=2, options=options)
    assert not all(np.array_equal(g, s[: len(g)]) for g in seen[:-1])


@pytest.mark.parametrize("method", ["ferm_rbf", "ferm_rbf_exact", "ferm_rbf_misaligned"])
def test_kernel_ferm_rows_on_sliced_gram_matrices_are_the_rbf_fits(method):
    """Kernel FERM rows fit FERMClassifier(kernel="precomputed") on slices of one Gram matrix
    per γ: the same choice, CV accuracy and predictions as FERMClassifier(kernel="rbf")
    refitted on the fold's rows of X (computed here independently)."""
    from krepro.data.adult import AdultSplit
    from krepro.fairness.ferm import FERMClassifier
    from krepro.studies.adult.run import FERM_FORMULATIONS, METHODS, run_method
    from krepro.studies.selection import cross_validated_choice, grid_candidates

    rng = np.random.default_rng(3)
    n = 120
    X = rng.standard_normal((n, 3))
    s = (rng.random(n) < 0.5).astype(int)
    y = np.where(X[:, 0] + 0.5 * s + 0.4 * rng.standard_normal(n) > 0.2, 1, -1)
    X_test = rng.standard_normal((80, 3))
    s_test = (rng.random(80) < 0.5).astype(int)
    y_test = np.where(X_test[:, 0] + 0.5 * s_test > 0.2, 1, -1)
    split = AdultSplit("reference", X, y, s, X_test, y_test, s_test, ("a", "b", "c"), (2,))
    options = {
        "ferm_intercept": "all_support",
        "linear_ferm_selection": "argmax",
        "oblivious_drop_sensitive": True,
    }
    grid = {"C": [0.5, 4.0], "gamma": [0.1, 1.0]}
    record = run_method(split, method, grid=grid, grid_name="g", n_folds=3, options=options)

    formulation = FERM_FORMULATIONS[METHODS[method][2]]
    misaligned = method == "ferm_rbf_misaligned"

    def fit(candidate, rows):
        C, gamma = candidate
        groups = s[: len(rows)] if misaligned else s[rows]
        clf = FERMClassifier(
            kernel="rbf", C=C, gamma=gamma, intercept="all_support", formulation=formulation
        )
        return clf.fit(X[rows], y[rows], sensitive_features=groups)

    choice, accuracy, _ = cross_validated_choice(
        grid_candidates(grid, "rbf"), lambda c, tr, va: fit(c, tr).predict(X[va]), y, 3
    )
    predictions = fit(choice, np.arange(n)).predict(X_test)
    assert (record["C"], record["gamma"]) == choice
    assert record["cv_accuracy"] == pytest.approx(accuracy, abs=1e-12)
    assert record["test_error"] == pytest.approx(np.mean(predictions != y_test), abs=1e-12)
