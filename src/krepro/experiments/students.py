r"""Synthetic "students" classification of the oblivious-data paper (§7.1, Fig. 3).

Per repetition: a training sample (n = 1000), an independent estimation sample for the
oblivious features' conditional means, and a test sample (n = 1000), from
:func:`krepro.data.students.students_sample` with the variant's parameters. Methods:

* ``linear_svm`` — ``SVC(kernel="linear")`` on [X, S];
* ``linear_ferm`` — :class:`~krepro.ferm.LinearFERM` on [X, S] (groups routed per fold);
* ``oblivious_svm`` — ``SVC(kernel="precomputed")`` on the linear oblivious Gram of X (paper)
  or of [X, S] (authors' code; identical for a linear kernel).

The SVM and FERM see S as a feature, as on Adult (the paper's Fig. 3 shows FERM with a clearly
non-zero dependence, which a 1-d input would not allow: linear FERM on X alone can only
predict a constant). C is chosen by 5-fold CV accuracy on the training sample (the paper gives
no C; the authors' code picks C ∈ 2¹⁶…2¹⁹ on the *test* error, which is not done here).
Recorded on the test sample: error w.r.t. the observed labels, error w.r.t. the true labels,
:math:`e_\beta` (Table-1 convention, no ½) and DEO (observed labels).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.svm import SVC

from krepro.data.students import students_sample
from krepro.experiments.adult import cross_validated_choice
from krepro.ferm import LinearFERM
from krepro.metrics import beta_dependence, equal_opportunity_difference, misclassification_rate
from krepro.oblivious import ObliviousKernel
from krepro.seeding import generator

__all__ = ["METHODS", "METHOD_LABELS", "aggregate", "run_repetition", "run_variant", "tidy"]

METHODS = ("linear_svm", "linear_ferm", "oblivious_svm")
METHOD_LABELS = {
    "linear_svm": "Linear SVM",
    "linear_ferm": "Linear FERM",
    "oblivious_svm": "Oblivious SVM",
}
GENERATOR_KEYS = (
    "theta",
    "mu",
    "sigma",
    "low",
    "high",
    "shift_probability",
    "y0_divisor",
    "s_sampling",
    "true_label",
)


def _scores(prediction, test):
    return {
        "error_observed": misclassification_rate(test.y, prediction),
        "error_true": misclassification_rate(test.y_true, prediction),
        "beta": beta_dependence(prediction, test.S, labels=[0, 1]),
        "deo": equal_opportunity_difference(test.y, prediction, sensitive_features=test.S),
        "positive_rate": float(np.mean(prediction)),
    }


def _fit_features(method, train, test, Cs, n_folds, selection, cv_seed):
    X, y, s = train.features(True), train.y, train.S

    def fit(C, rows):
        if method == "linear_svm":
            return SVC(kernel="linear", C=C).fit(X[rows], y[rows])
        return LinearFERM(C=C, selection=selection).fit(
            X[rows], y[rows], sensitive_features=s[rows]
        )

    C, cv_accuracy, _ = cross_validated_choice(
        list(Cs), lambda C, tr, va: fit(C, tr).predict(X[va]), y, n_folds, cv_seed
    )
    return C, cv_accuracy, fit(C, np.arange(len(y))).predict(test.features(True))


def _fit_oblivious(train, estimation, test, Cs, n_folds, include_s, cv_seed):
    oblivious = ObliviousKernel(kernel="linear", partition="values")
    oblivious.fit(estimation.features(include_s), sensitive_features=estimation.S)
    X = train.features(include_s)
    O = oblivious.gram(X, train.S)
    y = train.y

    def fit(C, rows):
        return SVC(kernel="precomputed", C=C).fit(O[np.ix_(rows, rows)], y[rows])

    C, cv_accuracy, _ = cross_validated_choice(
        list(Cs), lambda C, tr, va: fit(C, tr).predict(O[np.ix_(va, tr)]), y, n_folds, cv_seed
    )
    model = fit(C, np.arange(len(y)))
    test_gram = oblivious.gram(test.features(include_s), test.S, X, train.S)
    return C, cv_accuracy, model.predict(test_gram)


def run_repetition(*, seed, repetition, variant, variant_params, sizes, Cs, n_folds):
    """All methods on one draw; returns one record per method.

    The stream is keyed by (``"students"``, repetition) and not by the variant, so that both
    variants start from the same random numbers.
    """
    rng = generator(seed, "students", repetition)
    generator_params = {key: variant_params[key] for key in GENERATOR_KEYS}
    train = students_sample(rng, sizes["n_train"], **generator_params)
    estimation = students_sample(rng, sizes["n_estimation"], **generator_params)
    test = students_sample(rng, sizes["n_test"], **generator_params)
    # Shuffled folds: the authors' generator sorts the rows by S, and unshuffled stratified
    # folds would then hold out every positive of one group at once.
    cv_seed = int(rng.integers(2**31 - 1))
    records = []
    for method in METHODS:
        start = time.process_time()
        if method == "oblivious_svm":
            C, cv_accuracy, prediction = _fit_oblivious(
                train,
                estimation,
                test,
                Cs,
                n_folds,
                variant_params["oblivious_include_s"],
                cv_seed,
            )
        else:
            C, cv_accuracy, prediction = _fit_features(
                method,
                train,
                test,
                Cs,
                n_folds,
                variant_params["linear_ferm_selection"],
                cv_seed,
            )
        records.append(
            {
                "study": "students",
                "variant": variant,
                "repetition": repetition,
                "method": method,
                "seed": int(seed),
                "seed_keys": ["students", repetition],
                "params": {**variant_params, "Cs": list(Cs), "n_folds": n_folds},
                "sizes": dict(sizes),
                "C": float(C),
                "cv_accuracy": cv_accuracy,
                **_scores(prediction, test),
                "cpu_seconds": time.process_time() - start,
            }
        )
    return records


def run_variant(*, seed, variant, variant_params, sizes, n_repetitions, Cs, n_folds):
    """All repetitions of one generator variant."""
    records = []
    for repetition in range(n_repetitions):
        records += run_repetition(
            seed=seed,
            repetition=repetition,
            variant=variant,
            variant_params=variant_params,
            sizes=sizes,
            Cs=Cs,
            n_folds=n_folds,
        )
    return records


COLUMNS = [
    "variant",
    "repetition",
    "method",
    "C",
    "cv_accuracy",
    "error_observed",
    "error_true",
    "beta",
    "deo",
    "positive_rate",
    "seed",
]


def tidy(records):
    """One row per (variant, repetition, method)."""
    frame = pd.DataFrame.from_records(records)[COLUMNS]
    order = {m: k for k, m in enumerate(METHODS)}
    return frame.sort_values(
        ["variant", "method", "repetition"],
        key=lambda c: c.map(order) if c.name == "method" else c,
        kind="stable",
    ).reset_index(drop=True)


def aggregate(runs):
    """Mean and sd (ddof = 1) per (variant, method) of the errors, e_β and DEO."""
    rows = []
    for (variant, method), group in runs.groupby(["variant", "method"], sort=False):
        row = {"variant": variant, "method": method, "label": METHOD_LABELS[method]}
        for metric in ("error_observed", "error_true", "beta", "deo"):
            row[f"{metric}_mean"] = float(group[metric].mean())
            row[f"{metric}_sd"] = float(group[metric].std(ddof=1)) if len(group) > 1 else np.nan
        row["n_reps"] = len(group)
        rows.append(row)
    return pd.DataFrame(rows)
