"""The RBF SVM on the projections of DCM Table 3: γ and C chosen by grouped cross-validation
over the training domains, with the choice of ``GridSearchCV`` at a fraction of its cost
(:func:`rbf_svm`)."""

from __future__ import annotations

import itertools

import numpy as np
from sklearn import config_context
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

__all__ = ["rbf_svm"]


def _scaled_folds(Z, y, groups, n_folds):
    """Per :class:`GroupKFold` fold: training rows scaled by a StandardScaler fitted on them,
    validation rows scaled alike, and both label vectors (the pipeline's inputs to its SVC)."""
    folds = []
    for train, test in GroupKFold(n_splits=n_folds).split(Z, y, groups):
        scaler = StandardScaler().fit(Z[train])
        folds.append((scaler.transform(Z[train]), y[train], scaler.transform(Z[test]), y[test]))
    return folds


def _grid_choice(folds, Cs, gammas):
    """Index (C outer, γ inner) of the candidate ``GridSearchCV`` picks: the first highest mean
    fold accuracy.

    A candidate is abandoned as soon as it cannot beat the best so far: its mean with the
    folds not yet fitted counted as accuracy 1 bounds its actual mean (rounded sums are
    monotone in each term), and a later candidate needs a strictly higher mean. Its folds
    are fitted in the order of the best candidate's accuracies, lowest first, where a loss
    is likeliest; the mean is always taken in fold order. Once a candidate scores 1 on every
    fold, no later one is fitted.
    """
    best, best_scores = 0, None
    for index, (C, gamma) in enumerate(itertools.product(Cs, gammas)):
        scores = np.ones(len(folds))
        best_mean = -np.inf if best_scores is None else np.average(best_scores)
        order = range(len(folds)) if best_scores is None else np.argsort(best_scores, kind="stable")
        for k in order:
            if np.average(scores) <= best_mean:
                break
            A, y_train, B, y_test = folds[k]
            prediction = SVC(kernel="rbf", C=C, gamma=gamma).fit(A, y_train).predict(B)
            scores[k] = np.mean(prediction == y_test)  # = accuracy_score
        else:
            if np.average(scores) > best_mean:  # GridSearchCV's mean_test_score
                best, best_scores = index, scores
    return best


def rbf_svm(Z, y, groups, rbf):
    """RBF SVM on the z-scored projections, γ and C chosen on the training domains.

    The rule: grouped ``rbf["folds"]``-fold cross-validation (:class:`GroupKFold`, whole
    domains held out, as at test time) over the grid ``rbf["gammas"]`` × ``rbf["Cs"]``,
    highest mean accuracy (first in grid order on ties), then a refit on all training
    domains. Deterministic: no shuffling.

    The choice is exactly that of ``GridSearchCV(make_pipeline(StandardScaler(),
    SVC(kernel="rbf")), {"svc__gamma": gammas, "svc__C": Cs}, cv=GroupKFold(folds))``, and
    the returned model is that pipeline refitted, without the search's per-candidate
    overhead: each fold is scaled once, the SVCs see the same arrays as in the pipeline
    (hence the same libsvm results), sklearn's finiteness and parameter checks are
    skipped, and candidates that can no longer win are not fitted (:func:`_grid_choice`).
    Candidates are in ParameterGrid's order (keys sorted: C outer, γ inner); GridSearchCV's
    ``rank_test_score.argmin()`` (``rankdata(-mean, method="min")``, no rounding) is the
    first maximum of the mean. A training fold with one class fails every candidate there:
    GridSearchCV then ranks them all tied (NaN means) and takes the first, as here.

    Not ``SVC(kernel="precomputed")``: numpy's ``exp`` and BLAS products differ from
    libsvm's own RBF kernel in the last bits, and libsvm's stopping tolerance (1e-3) turns
    that into decision values differing by up to 4e-3 (paper-scale jobs: fold accuracies
    changed in 15 of 192 searches, though no choice did).
    ``tests/studies/dcm_synthetic/test_svm.py`` runs both searches.
    """
    n_folds = min(int(rbf["folds"]), len(np.unique(groups)))
    Cs, gammas = list(rbf["Cs"]), list(rbf["gammas"])
    Z, y = np.asarray(Z, dtype=float), np.asarray(y)
    folds = _scaled_folds(Z, y, groups, n_folds)
    one_class = [len(np.unique(y_train)) < 2 for _, y_train, _, _ in folds]
    if all(one_class):
        raise ValueError("Every cross-validation fit fails: each training fold has one class.")
    # The folds are finite float arrays already: skip sklearn's per-fit finiteness and
    # parameter checks (the results do not depend on them).
    with config_context(assume_finite=True, skip_parameter_validation=True):
        best = 0 if any(one_class) else _grid_choice(folds, Cs, gammas)
    C, gamma = Cs[best // len(gammas)], gammas[best % len(gammas)]
    return make_pipeline(StandardScaler(), SVC(kernel="rbf", gamma=gamma, C=C)).fit(Z, y)
