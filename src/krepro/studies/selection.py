"""Model selection shared by the fair-classification studies (§7.1): the (C, γ) grid in
``GridSearchCV``'s order and the choice by stratified cross-validation."""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import StratifiedKFold

__all__ = ["cross_validated_choice", "grid_candidates"]


def grid_candidates(grid, kernel):
    """(C, γ) pairs in ``GridSearchCV`` order (C outer, γ inner); γ is None for linear."""
    gammas = grid["gamma"] if kernel == "rbf" else [None]
    return [(float(C), None if g is None else float(g)) for C in grid["C"] for g in gammas]


def cross_validated_choice(candidates, fit_predict, y, n_folds, shuffle_seed=None):
    """The candidate with the best mean fold accuracy (first one on ties, as GridSearchCV).

    ``fit_predict(candidate, train_rows, validation_rows)`` returns predictions for the
    validation rows. Folds are ``StratifiedKFold(n_folds)`` in row order (GridSearchCV's
    default) or shuffled with ``shuffle_seed``. Returns (best candidate, its mean accuracy,
    all mean accuracies).
    """
    shuffle = shuffle_seed is not None
    splitter = StratifiedKFold(n_folds, shuffle=shuffle, random_state=shuffle_seed)
    folds = list(splitter.split(np.zeros(len(y)), y))
    scores = []
    for candidate in candidates:
        accuracy = [np.mean(fit_predict(candidate, tr, va) == y[va]) for tr, va in folds]
        scores.append(float(np.mean(accuracy)))
    best = int(np.argmax(scores))
    return candidates[best], scores[best], scores
