"""Landmark sweep of ``adult_full``: the exact Gram-matrix methods against the same methods on
Nyström features with a growing number of landmarks, on the Table-1-sized corrected split.

The exact methods (``SVC`` on the RBF kernel, kernel FERM's QP and its exact primal, the
oblivious and M-oblivious SVMs of :class:`~krepro.fairness.oblivious.ObliviousKernel`) are the
limits of the explicit-feature methods of :mod:`.run`; here both use the same solver (libsvm,
``SVC(kernel="linear")`` on the features), so that agreement measures the approximation alone.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.svm import SVC

from krepro.data.adult import load_adult
from krepro.fairness.ferm import FERMClassifier
from krepro.fairness.ferm_features import FERMFeatures, ferm_projected_gram
from krepro.fairness.oblivious import ObliviousKernel
from krepro.fairness.oblivious_features import ObliviousFeatures
from krepro.kernels import gram
from krepro.records import write_records
from krepro.studies.adult_full.run import (
    STUDY,
    SWEEP_METHODS,
    _feature_map,
    _oblivious_rows,
    _random_state,
    _scores,
)

__all__ = ["run_sweep", "sweep"]


def _exact_predictions(split, C, gamma):
    """Test predictions of the exact Gram-matrix methods (fixed C, γ); the sweep's limits."""
    X, y, s = split.X_train, split.y_train, split.s_train
    X_test = split.X_test
    out = {}
    out["svm"] = SVC(kernel="rbf", C=C, gamma=gamma).fit(X, y).predict(X_test)
    out["ferm_qp"] = (
        FERMClassifier(kernel="rbf", C=C, gamma=gamma, intercept="free", formulation="donini")
        .fit(X, y, sensitive_features=s)
        .predict(X_test)
    )
    K_projected, K_test_projected = ferm_projected_gram(
        gram(X, None, "rbf", gamma=gamma), y, s, gram(X_test, X, "rbf", gamma=gamma)
    )
    out["ferm"] = SVC(kernel="precomputed", C=C).fit(K_projected, y).predict(K_test_projected)
    Xo, Xo_test = split.without_sensitive(X), split.without_sensitive(X_test)
    learn, estimate = _oblivious_rows(len(y), "split")
    kernel = ObliviousKernel(kernel="rbf", gamma=gamma).fit(
        Xo[estimate], sensitive_features=s[estimate]
    )
    model = SVC(kernel="precomputed", C=C).fit(kernel.gram(Xo[learn], s[learn]), y[learn])
    out["oblivious"] = model.predict(kernel.gram(Xo_test, split.s_test, Xo[learn], s[learn]))
    model = SVC(kernel="precomputed", C=C).fit(kernel.plain_gram(Xo[learn]), y[learn])
    out["m_oblivious"] = model.predict(kernel.mixed_gram(Xo_test, split.s_test, Xo[learn]))
    return out


def _feature_predictions(split, method, C, gamma, n_components, random_state):
    """Test predictions of one method on Nyström features with libsvm's linear SVM."""
    X, y, s = split.X_train, split.y_train, split.s_train
    if method in ("oblivious", "m_oblivious"):
        Xo, Xo_test = split.without_sensitive(X), split.without_sensitive(split.X_test)
        learn, estimate = _oblivious_rows(len(y), "split")
        features = ObliviousFeatures(
            gamma=gamma, n_components=min(n_components, len(y)), random_state=random_state
        ).fit(Xo[estimate], sensitive_features=s[estimate], landmarks=Xo)
        if method == "oblivious":
            F = features.transform(Xo[learn], sensitive_features=s[learn])
        else:
            F = features.plain_transform(Xo[learn])
        model = SVC(kernel="linear", C=C).fit(F, y[learn])
        test = features.transform(Xo_test, sensitive_features=split.s_test)
        return model.predict(test), features.n_components_
    if method == "ferm":
        ferm = FERMFeatures(
            gamma=gamma, n_components=min(n_components, len(y)), random_state=random_state
        )
        F = ferm.fit_transform(X, y, sensitive_features=s)
        model = SVC(kernel="linear", C=C).fit(F, y)
        return model.predict(ferm.transform(split.X_test)), ferm.n_components_
    feature_map = _feature_map(gamma, min(n_components, len(y)), "nystroem", random_state).fit(X)
    model = SVC(kernel="linear", C=C).fit(feature_map.transform(X), y)
    return model.predict(feature_map.transform(split.X_test)), feature_map.n_components_


def run_sweep(split, *, C, gamma, n_components, seed):
    """Landmark sweep: exact methods and Nyström versions with growing ``n_components``.

    Returns run records: one per exact method (``n_components`` None, ``kind`` "exact") and
    one per (method, landmark count) with ``agreement``, the share of test predictions equal
    to the exact method's (FERM's limit is the exact constrained primal, ``ferm``; the QP of
    Donini et al. is recorded as ``ferm_qp``). Landmark counts above the fit sample are capped
    (the records hold the count used); repeated counts are skipped.
    """
    s_test, y_test = split.s_test, split.y_test
    records = []

    def record(method, kind, prediction, n_used, agreement, cpu):
        return {
            "study": STUDY,
            "stage": "sweep",
            "method": method,
            "kind": kind,
            "n_components": n_used,
            "C": float(C),
            "gamma": float(gamma),
            **{
                k if k != "error" else "test_error": v
                for k, v in _scores(y_test, prediction, s_test).items()
            },
            "agreement": agreement,
            "n_train": len(split.y_train),
            "n_test": len(y_test),
            "cpu_seconds": cpu,
            "status": "ok",
        }

    start = time.process_time()
    exact = _exact_predictions(split, C, gamma)
    exact_cpu = time.process_time() - start
    for method, prediction in exact.items():
        records.append(record(method, "exact", prediction, None, 1.0, exact_cpu / len(exact)))
    for method in SWEEP_METHODS:
        seen = set()
        for count in n_components:
            start = time.process_time()
            prediction, used = _feature_predictions(
                split, method, C, gamma, int(count), _random_state(seed, "sweep", method, count)
            )
            if used in seen:
                continue
            seen.add(used)
            agreement = float(np.mean(prediction == exact[method]))
            records.append(
                record(
                    method,
                    "features",
                    prediction,
                    int(used),
                    agreement,
                    time.process_time() - start,
                )
            )
    return records


def sweep(job, log):
    """Job ``adult_full_sweep``: the landmark sweep on the Table-1-sized corrected split →
    one record per exact method and per (method, landmark count)."""
    settings = job.params.sweep
    split = load_adult(job.input.data, job.input.test, "corrected", n_train=settings["n_train"])
    records = run_sweep(
        split,
        C=settings["C"],
        gamma=settings["gamma"],
        n_components=settings["n_components"],
        seed=job.params.seed,
    )
    log.info("%d sweep records", len(records))
    write_records(job.output[0], records, rule=job.rule)
