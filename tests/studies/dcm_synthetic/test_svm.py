"""The DCM synthetic study's RBF-SVM grid choice (krepro.studies.dcm_synthetic.svm)
against scikit-learn's grid search."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import rankdata
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from krepro.studies.dcm_synthetic import svm as dcm_svm


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense problems: BLAS threads only add contention on a shared box."""
    with threadpool_limits(1):
        yield


# ------------------------------------------------- RBF SVM: lean search vs GridSearchCV

# Distinct γ and C values, so that a swapped grid order would show.
RBF_GRID = {"gammas": [0.2, 2.0, 8.0], "Cs": [0.1, 1.0, 10.0], "folds": 3}


def _grid_search(Z, y, groups, rbf):
    """The search rbf_svm replaces, as it was written."""
    folds = min(int(rbf["folds"]), len(np.unique(groups)))
    search = GridSearchCV(
        make_pipeline(StandardScaler(), SVC(kernel="rbf")),
        {"svc__gamma": list(rbf["gammas"]), "svc__C": list(rbf["Cs"])},
        cv=GroupKFold(n_splits=folds),
    )
    return search.fit(Z, y, groups=groups)


def _domains(seed, noise, n_domains=7, size=40):
    """Two features, labels from the first plus noise (``None``: classes 6 apart, separable),
    domains shifted; test points beside."""
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_domains), size)
    Z = rng.normal(size=(len(groups), 2)) + rng.normal(scale=0.5, size=(n_domains, 2))[groups]
    y = np.where(Z[:, 0] + (noise or 0.0) * rng.normal(size=len(groups)) > 0, 1, -1)
    if noise is None:
        Z[:, 0] += 3 * y
    return Z, y, groups, rng.normal(scale=1.5, size=(200, 2))


class _CountingSVC(SVC):
    fits = 0

    def fit(self, X, y, sample_weight=None):
        type(self).fits += 1
        return super().fit(X, y, sample_weight)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("noise", [None, 0.7, 3.0])
def test_rbf_svm_chooses_and_predicts_as_grid_search(seed, noise, monkeypatch):
    Z, y, groups, Z_test = _domains(seed, noise)
    monkeypatch.setattr(dcm_svm, "SVC", _CountingSVC)
    _CountingSVC.fits = 0
    model = dcm_svm.rbf_svm(Z, y, groups, RBF_GRID)
    search = _grid_search(Z, y, groups, RBF_GRID)
    chosen = model[-1]
    assert (chosen.gamma, chosen.C) == (
        search.best_params_["svc__gamma"],
        search.best_params_["svc__C"],
    )
    reference = search.best_estimator_
    assert np.array_equal(model.predict(Z_test), reference.predict(Z_test))
    assert np.array_equal(model.decision_function(Z_test), reference.decision_function(Z_test))
    # Fits: at most 9 candidates × 3 folds, plus the refit. Separable data give a perfect
    # first candidate (3 fits); noisy data prune some candidates early.
    assert _CountingSVC.fits <= 28
    if noise is None:
        assert search.cv_results_["mean_test_score"][0] == 1.0
        assert _CountingSVC.fits == 3 + 1
    if noise == 3.0:
        assert search.cv_results_["mean_test_score"].max() < 1.0


class _TableSVC:
    """Stand-in SVC whose validation accuracy is looked up in ``table[candidate, fold]``
    (fold k's training rows are tagged with k; validation labels are all 1)."""

    table, candidates, fits = None, None, 0

    def __init__(self, kernel, C, gamma):
        self.candidate = type(self).candidates.index((C, gamma))

    def fit(self, A, y):
        type(self).fits += 1
        self.fold = int(A[0, 0])
        return self

    def predict(self, B):
        hits = round(type(self).table[self.candidate, self.fold] * len(B))
        return np.where(np.arange(len(B)) < hits, 1, -1)


@pytest.mark.parametrize("seed", range(6))
def test_grid_choice_is_grid_search_rank_rule_with_fewer_fits(seed, monkeypatch):
    # Random accuracy tables with many ties (quarters): the pruned search must pick
    # GridSearchCV's rank_test_score.argmin() (rankdata(-mean, "min")) every time.
    rng = np.random.default_rng(seed)
    Cs, gammas, n_folds, fits = [0.1, 1.0, 10.0], [0.5, 2.0], 3, []
    folds = [(np.full((2, 1), k), None, np.zeros((4, 1)), np.ones(4)) for k in range(n_folds)]
    monkeypatch.setattr(dcm_svm, "SVC", _TableSVC)
    _TableSVC.candidates = [(C, g) for C in Cs for g in gammas]
    for _ in range(50):
        _TableSVC.table = rng.choice([0.5, 0.75, 1.0], p=[0.2, 0.5, 0.3], size=(6, n_folds))
        _TableSVC.fits = 0
        expected = rankdata(-np.average(_TableSVC.table, axis=1), method="min").argmin()
        assert dcm_svm._grid_choice(folds, Cs, gammas) == expected
        fits.append(_TableSVC.fits)
    assert max(fits) <= 18 and np.mean(fits) < 13  # pruning does skip fits


def test_rbf_svm_ties_go_to_the_first_candidate_in_grid_order():
    # Every candidate perfect: GridSearchCV takes the first one (C and γ smallest).
    Z, y, groups, _ = _domains(0, None)
    grid = {**RBF_GRID, "gammas": [0.2, 1.0]}  # γ = 8: too narrow for a few points
    search = _grid_search(Z, y, groups, grid)
    assert (search.cv_results_["mean_test_score"] == 1.0).all()
    chosen = dcm_svm.rbf_svm(Z, y, groups, grid)[-1]
    best = search.best_params_
    assert (chosen.C, chosen.gamma) == (best["svc__C"], best["svc__gamma"]) == (0.1, 0.2)


def test_rbf_svm_training_fold_with_one_class_as_grid_search():
    # GroupKFold(3) over 3 domains: the fold holding out domain 2 trains on domains 0 and 1,
    # which are all +1; GridSearchCV scores every candidate NaN there and keeps the first.
    Z, y, groups, _ = _domains(3, 0.7, n_domains=3)
    y[groups < 2] = 1
    with pytest.warns((FitFailedWarning, UserWarning)):
        search = _grid_search(Z, y, groups, {**RBF_GRID, "gammas": [1.0, 0.1]})
    assert np.isnan(search.cv_results_["mean_test_score"]).all()
    chosen = dcm_svm.rbf_svm(Z, y, groups, {**RBF_GRID, "gammas": [1.0, 0.1]})
    assert (chosen[-1].C, chosen[-1].gamma) == (0.1, 1.0)
    assert search.best_params_ == {"svc__C": 0.1, "svc__gamma": 1.0}
