r"""Kernel fairness on all of UCI Adult with explicit features, beside fairlearn's tools.

Table 1 of the oblivious-data paper (§7.1) ran the RBF methods on 1,628 training rows because
the exact methods cost :math:`O(n^2)` memory. Here the RBF kernel is approximated by
``n_components`` Nyström features
(:class:`~krepro.fairness.oblivious_features.KernelFeatureMap`), so every method runs on the
corrected protocol's 30,162 training and 15,060 test rows (:func:`krepro.data.adult.load_adult`,
``protocol="corrected"``) with one linear classifier (:class:`sklearn.svm.LinearSVC`, primal
squared hinge) on top:

``svm``
    the classifier on the features of X (gender included, as Table 1's SVM);
``ferm``
    :class:`~krepro.fairness.ferm_features.FERMFeatures`: features projected onto :math:`u^\perp`
    (FERM's ε = 0 constraint), then the classifier;
``oblivious`` / ``m_oblivious``
    :class:`~krepro.fairness.oblivious_features.ObliviousFeatures` on X without gender: conditional
    means estimated on the second half of the training rows, the classifier trained on the
    first half's oblivious (``oblivious``) or plain (``m_oblivious``) features, test points
    mapped to oblivious features (Algorithm 1's split; ``oblivious_estimation: in_sample``
    uses all rows for both);
``correlation_remover``
    fairlearn's :class:`~fairlearn.preprocessing.CorrelationRemover` (the linear special case
    of the oblivious map for binary S) on X, then the same features and classifier;
``exponentiated_gradient``
    fairlearn's reduction :class:`~fairlearn.reductions.ExponentiatedGradient` with
    :class:`~fairlearn.reductions.TruePositiveRateParity` (DEO's constraint) around the
    classifier on the SVM's features (randomised predictions, seeded);
``threshold_optimizer``
    fairlearn's post-processing :class:`~fairlearn.postprocessing.ThresholdOptimizer`
    (true-positive-rate parity, accuracy objective) on the fitted SVM's decision values.

The kernel scale γ and C are chosen once, for the plain SVM, by accuracy on a stratified
validation part of the training rows (:func:`select_hyperparameters`), and shared by every
method, so that the methods differ only in their fairness intervention.

Jobs: ``select`` (:func:`select_hyperparameters`) and ``fit`` (:func:`run_full_method`, one
method per job). The landmark sweep against the exact methods is in :mod:`.sweep`.
"""

from __future__ import annotations

import io
import time

import numpy as np
from fairlearn.postprocessing import ThresholdOptimizer
from fairlearn.preprocessing import CorrelationRemover
from fairlearn.reductions import ExponentiatedGradient, TruePositiveRateParity
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC

from krepro.data.adult import load_adult
from krepro.fairness.ferm_features import FERMFeatures
from krepro.fairness.oblivious_features import KernelFeatureMap, ObliviousFeatures
from krepro.metrics import beta_dependence, equal_opportunity_difference, misclassification_rate
from krepro.records import atomic_write_bytes, read_records, write_records
from krepro.seeding import seed_sequence

__all__ = [
    "ESTIMATIONS",
    "FULL_TRAIN_ROWS",
    "METHODS",
    "METHOD_LABELS",
    "SWEEP_METHODS",
    "fit",
    "fit_full_method",
    "read_predictions",
    "run_full_method",
    "select",
    "select_hyperparameters",
    "write_predictions",
]

STUDY = "adult_full"
# Every complete adult.data row: the corrected protocol's training set at full scale.
FULL_TRAIN_ROWS = 30162
# name: (label, family)
METHODS = {
    "svm": ("SVM (RBF)", "kernel"),
    "ferm": ("FERM (RBF)", "kernel"),
    "oblivious": ("Oblivious (RBF)", "kernel"),
    "m_oblivious": ("M-Oblivious (RBF)", "kernel"),
    "correlation_remover": ("CorrelationRemover + SVM (RBF)", "fairlearn"),
    "exponentiated_gradient": ("ExponentiatedGradient, TPR parity (RBF)", "fairlearn"),
    "threshold_optimizer": ("ThresholdOptimizer, TPR parity (RBF)", "fairlearn"),
}
METHOD_LABELS = {name: spec[0] for name, spec in METHODS.items()}
SWEEP_METHODS = ("svm", "ferm", "oblivious", "m_oblivious")
ESTIMATIONS = ("split", "in_sample")


def _random_state(seed, *keys):
    """A 32-bit integer seed for scikit-learn / fairlearn from the stream ``(seed, *keys)``."""
    return int(seed_sequence(seed, STUDY, *keys).generate_state(1)[0])


def _classifier(C, settings):
    return LinearSVC(C=C, dual=False, tol=settings["tol"], max_iter=settings["max_iter"])


def _feature_map(gamma, n_components, approximation, random_state):
    return KernelFeatureMap(
        kernel="rbf",
        gamma=gamma,
        n_components=n_components,
        approximation=approximation,
        random_state=random_state,
    )


def _scores(y_true, y_pred, s):
    return {
        "error": misclassification_rate(y_true, y_pred),
        "deo": equal_opportunity_difference(y_true, y_pred, sensitive_features=s),
        "beta": beta_dependence(y_pred, s, labels=np.unique(y_true)),
        "positive_rate": float(np.mean(y_pred == 1)),
    }


def select_hyperparameters(
    split, *, grid, n_components, approximation, classifier, seed, validation_fraction
):
    """(C, γ) of the plain SVM with the best accuracy on a stratified validation part.

    Candidates in ``GridSearchCV`` order (C outer, γ inner; first on ties). A one-point grid
    is returned without fitting. Returns a record with the choice and every score.
    """
    candidates = [(float(C), float(g)) for C in grid["C"] for g in grid["gamma"]]
    start = time.process_time()
    scores = []
    if len(candidates) > 1:
        rows = np.arange(len(split.y_train))
        fit_rows, validation_rows = train_test_split(
            rows,
            test_size=validation_fraction,
            stratify=split.y_train,
            random_state=_random_state(seed, "validation"),
        )
        X_fit, X_val = split.X_train[fit_rows], split.X_train[validation_rows]
        y_fit, y_val = split.y_train[fit_rows], split.y_train[validation_rows]
        for gamma in grid["gamma"]:
            feature_map = _feature_map(
                gamma, n_components, approximation, _random_state(seed, "landmarks", "select")
            ).fit(X_fit)
            F_fit, F_val = feature_map.transform(X_fit), feature_map.transform(X_val)
            for C in grid["C"]:
                model = _classifier(C, classifier).fit(F_fit, y_fit)
                accuracy = float(np.mean(model.predict(F_val) == y_val))
                scores.append({"C": float(C), "gamma": float(gamma), "accuracy": accuracy})
        order = {(c, g): k for k, (c, g) in enumerate(candidates)}
        best = max(scores, key=lambda r: (r["accuracy"], -order[(r["C"], r["gamma"])]))
        choice = (best["C"], best["gamma"])
    else:
        choice = candidates[0]
    return {
        "study": STUDY,
        "C": choice[0],
        "gamma": choice[1],
        "scores": scores,
        "validation_fraction": validation_fraction if len(candidates) > 1 else None,
        "cpu_seconds": time.process_time() - start,
    }


def _oblivious_rows(n, estimation):
    if estimation == "split":
        half = n // 2
        return np.arange(half), np.arange(half, n)
    if estimation == "in_sample":
        return np.arange(n), np.arange(n)
    raise ValueError(f"oblivious_estimation must be one of {ESTIMATIONS}, got {estimation!r}.")


def _fit_predict(split, method, C, gamma, settings, seed):
    """Fit one method; return (train rows used, train predictions, a predict function)."""
    n_components, approximation = settings["n_components"], settings["approximation"]
    classifier = settings["classifier"]
    landmarks = _random_state(seed, "landmarks", method)
    X, y, s = split.X_train, split.y_train, split.s_train
    all_rows = np.arange(len(y))
    if method in ("oblivious", "m_oblivious"):
        X, X_test = split.without_sensitive(X), split.without_sensitive(split.X_test)
        learn, estimate = _oblivious_rows(len(y), settings["oblivious_estimation"])
        features = ObliviousFeatures(
            kernel="rbf",
            gamma=gamma,
            n_components=n_components,
            approximation=approximation,
            variant=method,
            random_state=landmarks,
        )
        # Landmarks from every training row: learner and estimation points alike.
        features.fit(X[estimate], sensitive_features=s[estimate], landmarks=X)
        if method == "oblivious":
            F = features.transform(X[learn], sensitive_features=s[learn])
        else:
            F = features.plain_transform(X[learn])
        model = _classifier(C, classifier).fit(F, y[learn])
        return (
            learn,
            model.predict(F),
            lambda: model.predict(features.transform(X_test, sensitive_features=split.s_test)),
        )
    if method == "ferm":
        ferm = FERMFeatures(
            kernel="rbf",
            gamma=gamma,
            n_components=n_components,
            approximation=approximation,
            random_state=landmarks,
        )
        F = ferm.fit_transform(X, y, sensitive_features=s)
        model = _classifier(C, classifier).fit(F, y)
        return all_rows, model.predict(F), lambda: model.predict(ferm.transform(split.X_test))
    X_test = split.X_test
    if method == "correlation_remover":
        remover = CorrelationRemover(
            sensitive_feature_ids=list(split.sensitive_columns),
            alpha=settings["correlation_remover_alpha"],
        ).fit(X)
        X, X_test = remover.transform(X), remover.transform(X_test)
    # The SVM's features (same landmarks for svm, correlation_remover and the fairlearn peers).
    feature_map = _feature_map(
        gamma, n_components, approximation, _random_state(seed, "landmarks", "svm")
    ).fit(X)
    F = feature_map.transform(X)
    if method in ("svm", "correlation_remover"):
        model = _classifier(C, classifier).fit(F, y)
        return all_rows, model.predict(F), lambda: model.predict(feature_map.transform(X_test))
    y01 = (y == 1).astype(int)
    predict_state = _random_state(seed, "predict", method)
    if method == "exponentiated_gradient":
        options = settings["exponentiated_gradient"]
        reduction = ExponentiatedGradient(
            _classifier(C, classifier),
            constraints=TruePositiveRateParity(),
            eps=options["eps"],
            max_iter=options["max_iter"],
        )
        reduction.fit(F, y01, sensitive_features=s)

        def predict(features):
            return 2 * reduction.predict(features, random_state=predict_state) - 1

        return all_rows, predict(F), lambda: predict(feature_map.transform(X_test))
    if method == "threshold_optimizer":
        base = _classifier(C, classifier).fit(F, y)
        post = ThresholdOptimizer(
            estimator=base,
            constraints="true_positive_rate_parity",
            objective="accuracy_score",
            prefit=True,
            predict_method="decision_function",
        )
        post.fit(F, y01, sensitive_features=s)

        def predict(features, groups):
            labels = post.predict(features, sensitive_features=groups, random_state=predict_state)
            return 2 * np.asarray(labels) - 1

        return all_rows, predict(F, s), lambda: predict(feature_map.transform(X_test), split.s_test)
    raise ValueError(f"Unknown method {method!r}; expected one of {sorted(METHODS)}.")


def run_full_method(split, method, *, C, gamma, settings, seed):
    """Fit and score one method on the whole split; returns one run record (dict).

    ``settings``: ``n_components``, ``approximation``, ``classifier`` (``tol``, ``max_iter``),
    ``oblivious_estimation``, ``correlation_remover_alpha``, ``exponentiated_gradient``
    (``eps``, ``max_iter``).
    """
    return fit_full_method(split, method, C=C, gamma=gamma, settings=settings, seed=seed)[0]


def fit_full_method(split, method, *, C, gamma, settings, seed):
    """:func:`run_full_method` and the method's test predictions (±1, int8).

    The predictions are what the summary's test-set bootstrap resamples
    (:mod:`krepro.studies.adult_full.bootstrap`).
    """
    if method not in METHODS:
        raise ValueError(f"Unknown method {method!r}; expected one of {sorted(METHODS)}.")
    label, family = METHODS[method]
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    rows, train_prediction, predict_test = _fit_predict(split, method, C, gamma, settings, seed)
    fit_cpu = time.process_time() - start_cpu
    test_prediction = predict_test()
    predict_cpu = time.process_time() - start_cpu - fit_cpu
    scores = _scores(split.y_test, test_prediction, split.s_test)
    record = {
        "study": STUDY,
        "protocol": split.protocol,
        "method": method,
        "label": label,
        "family": family,
        "approximation": settings["approximation"],
        "n_components": int(settings["n_components"]),
        "C": float(C),
        "gamma": float(gamma),
        "test_error": scores["error"],
        "deo": scores["deo"],
        "beta": scores["beta"],
        "positive_rate": scores["positive_rate"],
        "train_error": misclassification_rate(split.y_train[rows], train_prediction),
        "n_train": len(rows),
        "n_test": len(split.y_test),
        "n_features": int(split.X_train.shape[1]),
        "fit_cpu_seconds": fit_cpu,
        "predict_cpu_seconds": predict_cpu,
        "wall_seconds": time.perf_counter() - start_wall,
        "status": "ok",
    }
    return record, np.asarray(test_prediction).astype(np.int8)


def write_predictions(path, split, prediction):
    """Test labels, sensitive feature and one method's predictions as ``.npz`` (atomic)."""
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        y_test=np.asarray(split.y_test).astype(np.int8),
        s_test=np.asarray(split.s_test),
        prediction=np.asarray(prediction).astype(np.int8),
    )
    atomic_write_bytes(path, buffer.getvalue())


def read_predictions(paths, methods):
    """``(y_test, s_test, {method: predictions})`` from the fit jobs' ``.npz`` files.

    Every file must hold the same test labels and sensitive feature (the bootstrap pairs the
    methods row by row).
    """
    y_test = s_test = None
    predictions = {}
    for path, method in zip(paths, methods, strict=True):
        with np.load(path) as data:
            if y_test is None:
                y_test, s_test = data["y_test"], data["s_test"]
            elif not (
                np.array_equal(y_test, data["y_test"]) and np.array_equal(s_test, data["s_test"])
            ):
                raise ValueError(f"{path}: test rows differ from the other methods'.")
            predictions[method] = data["prediction"]
    return y_test, s_test, predictions


def select(job, log):
    """Job ``adult_full_select``: (C, γ) of the plain SVM on explicit features, by validation
    accuracy on the full training rows → one selection record."""
    params = job.params
    split = load_adult(job.input.data, job.input.test, "corrected", n_train=FULL_TRAIN_ROWS)
    record = select_hyperparameters(
        split,
        grid=params.grid,
        n_components=params.settings["n_components"],
        approximation=params.settings["approximation"],
        classifier=params.settings["classifier"],
        seed=params.seed,
        validation_fraction=params.validation_fraction,
    )
    log.info("selected C = %g, γ = %g", record["C"], record["gamma"])
    write_records(job.output[0], [record], rule=job.rule)


def fit(job, log):
    """Job ``adult_full_fit``: one method on all of Adult (explicit features or a fairlearn
    peer) at the selected (C, γ) → one run record and its test predictions (``.npz``)."""
    params, method = job.params, job.wildcards.adult_full_method
    (selection,) = read_records([job.input.selection])
    split = load_adult(job.input.data, job.input.test, "corrected", n_train=FULL_TRAIN_ROWS)
    record, prediction = fit_full_method(
        split,
        method,
        C=selection["C"],
        gamma=selection["gamma"],
        settings=params.settings,
        seed=params.seed,
    )
    log.info(
        "%s: fit %.1f CPU-s, test error %.4f, DEO %.4f",
        method,
        record["fit_cpu_seconds"],
        record["test_error"],
        record["deo"],
    )
    write_records(job.output.record, [record], rule=job.rule, wildcards=dict(job.wildcards))
    write_predictions(job.output.predictions, split, prediction)
