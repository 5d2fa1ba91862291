r"""DCM paper, synthetic experiment (Table 3) and projection figure (Fig. 2).

Table 3: per (η, γ, repetition) draw 10 domains (:func:`krepro.data.domains.domain_sample`),
train on 7 random domains and report the accuracy on the pooled points of the other 3.
Methods: a pooled RBF SVM on raw x (no dimension reduction),
and COIR, DICA and DCM (regularised and eq. (12) as printed) projecting onto ``m = 2``
directions followed by a linear SVM on the z-scored projections (DICA's transformed kernel
:math:`K\mathcal B\mathcal B^\top K` is exactly a linear kernel on the projections).
The data stream is keyed by (η, repetition) and not by γ, so both γ columns see the same
data (common random numbers sharpen the comparison).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from krepro.data.domains import domain_sample, split_domains
from krepro.dcm import COIR, DCM, DICA, fit_shared
from krepro.seeding import generator

__all__ = ["FIG2_METHODS", "METHODS", "aggregate", "fig2_projections", "run_setting", "tidy"]

# method id -> (label, factory(gamma, epsilon, m, rank_tol))
METHODS = {
    "svm": "SVM (no DR)",
    "coir": "COIR",
    "dica": "DICA",
    "udica": "uDICA",
    "dcm": "DCM",
    "dcm_eq12": "DCM (eq. 12 as printed)",
}
FIG2_METHODS = ("coir", "dica", "dcm")


def make_transformer(method, *, gamma, epsilon, m, rank_tol):
    common = {"gamma": gamma, "epsilon": epsilon, "rank_tol": rank_tol}
    if method == "coir":
        return COIR(m, **common)
    if method == "dica":
        return DICA(m, **common)
    if method == "udica":
        return DICA(m, supervised=False, **common)
    if method == "dcm":
        return DCM(m, regularize=True, **common)
    if method == "dcm_eq12":
        return DCM(m, regularize=False, **common)
    raise ValueError(f"Unknown method {method!r}; expected one of {sorted(METHODS)}.")


def _classifier(kind, C):
    if kind == "linear":
        return SVC(kernel="linear", C=C)
    if kind == "rbf":
        return SVC(kernel="rbf", gamma="auto", C=C)
    raise ValueError(f"classifier must be 'linear' or 'rbf', got {kind!r}.")


def run_setting(*, seed, eta, gamma, n_repetitions, settings):
    """All repetitions and methods of one (η, γ) cell of Table 3 → run records.

    ``settings``: n_domains, n_train_domains, mean_domain_size, dim, wishart_df, c,
    epsilon, n_components, methods, classifier, C, kpca_rank_tol.
    """
    records = []
    for repetition in range(n_repetitions):
        rng = generator(seed, "dcm_synthetic", eta, repetition)
        sample = domain_sample(
            rng,
            n_domains=settings["n_domains"],
            mean_size=settings["mean_domain_size"],
            dim=settings["dim"],
            eta=eta,
            df=settings["wishart_df"],
            c=settings["c"],
        )
        train = split_domains(sample.domains, settings["n_train_domains"], rng)
        X, y, d = sample.X[train], sample.y[train], sample.domains[train]
        X_test, y_test = sample.X[~train], sample.y[~train]
        base = {
            "study": "dcm_synthetic",
            "eta": float(eta),
            "gamma": float(gamma),
            "repetition": repetition,
            "seed": int(seed),
            "seed_keys": ["dcm_synthetic", float(eta), repetition],
            "n_train": int(train.sum()),
            "n_test": int((~train).sum()),
            "test_balance": float(np.mean(y_test == 1)),
        }
        methods = list(settings["methods"])
        transformers = [
            make_transformer(
                m,
                gamma=gamma,
                epsilon=settings["epsilon"],
                m=settings["n_components"],
                rank_tol=settings["kpca_rank_tol"],
            )
            for m in methods
            if m != "svm"
        ]
        fitted = iter(fit_shared(transformers, X, y, domains=d))
        for method in methods:
            if method == "svm":
                start = time.process_time()
                model = SVC(kernel="rbf", gamma=gamma, C=settings["C"]).fit(X, y)
                cpu = time.process_time() - start
            else:
                transformer, cpu, _ = next(fitted)
                model = make_pipeline(
                    transformer,
                    StandardScaler(),
                    _classifier(settings["classifier"], settings["C"]),
                )
                model[1:].fit(transformer.transform(X), y)
            accuracy = float(np.mean(model.predict(X_test) == y_test))
            records.append({**base, "method": method, "accuracy": accuracy, "dr_cpu_seconds": cpu})
    return records


def tidy(records):
    """One row per run: eta, gamma, repetition, method, accuracy, n_train, n_test, ..."""
    columns = [
        "eta",
        "gamma",
        "repetition",
        "method",
        "accuracy",
        "n_train",
        "n_test",
        "test_balance",
        "dr_cpu_seconds",
        "seed",
    ]
    frame = pd.DataFrame.from_records(records)[columns]
    order = {m: k for k, m in enumerate(METHODS)}
    return frame.sort_values(
        ["eta", "gamma", "method", "repetition"],
        key=lambda c: c.map(order) if c.name == "method" else c,
        kind="stable",
    ).reset_index(drop=True)


def aggregate(runs):
    """Table 3: eta, gamma, method, accuracy_mean, accuracy_sd, n_reps (ddof = 1)."""
    table = (
        runs.groupby(["eta", "gamma", "method"], sort=False)["accuracy"]
        .agg(accuracy_mean="mean", accuracy_sd=lambda v: v.std(ddof=1), n_reps="size")
        .reset_index()
    )
    order = {m: k for k, m in enumerate(METHODS)}
    table = table.sort_values(
        ["eta", "gamma", "method"],
        key=lambda c: c.map(order) if c.name == "method" else c,
        kind="stable",
    )
    return table.reset_index(drop=True)


def fig2_projections(*, seed, settings):
    """Fig. 2 analogue: first two projection coordinates of COIR, DICA, DCM.

    Returns a tidy frame: method, split ("train"/"test"), domain, y, z1, z2.
    """
    rng = generator(seed, "dcm_fig2")
    sample = domain_sample(
        rng,
        n_domains=settings["n_domains"],
        mean_size=settings["mean_domain_size"],
        dim=settings["dim"],
        eta=settings["eta"],
        df=settings["wishart_df"],
        c=settings["c"],
    )
    train = split_domains(sample.domains, settings["n_train_domains"], rng)
    transformers = [
        make_transformer(
            m,
            gamma=settings["gamma"],
            epsilon=settings["epsilon"],
            m=2,
            rank_tol=settings["kpca_rank_tol"],
        )
        for m in FIG2_METHODS
    ]
    fitted = fit_shared(
        transformers, sample.X[train], sample.y[train], domains=sample.domains[train]
    )
    frames = []
    for method, (transformer, _, _) in zip(FIG2_METHODS, fitted, strict=True):
        for split, mask in (("train", train), ("test", ~train)):
            Z = transformer.transform(sample.X[mask])
            frames.append(
                pd.DataFrame(
                    {
                        "method": method,
                        "split": split,
                        "domain": sample.domains[mask],
                        "y": sample.y[mask],
                        "z1": Z[:, 0],
                        # DICA has rank(T_y) = 1 informative direction for binary labels
                        "z2": Z[:, 1] if Z.shape[1] > 1 else np.nan,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)
