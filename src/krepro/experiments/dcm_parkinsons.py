r"""DCM paper, Parkinson's Telemonitoring (Table 4) and a Nyström landmark sweep.

Per repetition: a random 29/13 split of the 42 subjects (the domains), the 16 voice features
z-scored with training statistics, for each target (motor and total UPDRS): COIR, DICA and
DCM in the standard (exact kernel PCA) and fast (Nyström, ``M`` landmarks shared by x, y and
the domain kernel, the same landmarks for every fast method) versions, ε-SVR on the z-scored
projections; sanity rows: SVR on the raw (z-scored) features and the training-mean
predictor. Kernels: RBF on x and y with the median heuristic
("γ set to the median" read as the median heuristic), delta on the subject.

Timing: ``fit_cpu_seconds`` / ``fit_wall_seconds`` cover the dimension-reduction fit
(kernels, solve, projection of the training points), not the SVR; the standard methods share
one kernel PCA per repetition whose full cost is charged to each of them.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

from krepro.data.parkinsons import TARGETS, subject_split
from krepro.dcm import COIR, DCM, DICA, fit_shared, median_gamma
from krepro.seeding import generator

__all__ = ["METHODS", "aggregate", "run_repetition", "sweep_table", "tidy"]

# (method, version) -> label
METHODS = {
    ("mean", "baseline"): "training mean",
    ("svr", "baseline"): "SVR on raw features",
    ("coir", "standard"): "COIR",
    ("dica", "standard"): "DICA",
    ("dcm", "standard"): "DCM",
    ("dcm_eq12", "standard"): "DCM (eq. 12 as printed)",
    ("coir", "fast"): "FastCOIR",
    ("dica", "fast"): "FastDICA",
    ("dcm", "fast"): "FastDCM",
    ("dcm_paper", "fast"): "FastDCM (eqs. 16-21 as printed)",
}


def _transformer(method, version, *, m, gamma, target_gamma, epsilon, rank_tol, M, seed):
    common = {
        "gamma": gamma,
        "epsilon": epsilon,
        "target_kernel": "rbf",
        "target_gamma": target_gamma,
        "rank_tol": rank_tol,
        "approximation": "exact" if version == "standard" else "nystroem",
        "n_landmarks": M,
        "random_state": seed,
    }
    if method == "coir":
        return COIR(m, **common)
    if method == "dica":
        return DICA(m, **common)
    if method == "dcm":
        return DCM(m, **common)
    if method == "dcm_eq12":
        return DCM(m, regularize=False, **common)
    if method == "dcm_paper":
        return DCM(m, solver="paper", **common)
    raise ValueError(f"Unknown method {method!r}.")


def _svr_rmse(Z, y, Z_test, y_test, svr):
    scaler = StandardScaler().fit(Z)
    model = SVR(kernel="rbf", gamma="auto", C=svr["C"], epsilon=svr["epsilon"])
    model.fit(scaler.transform(Z), y)
    prediction = model.predict(scaler.transform(Z_test))
    return float(np.sqrt(np.mean((prediction - y_test) ** 2)))


def run_repetition(data, *, seed, repetition, settings):
    """All targets, methods and landmark counts of one subject split → run records.

    ``settings``: n_train_subjects, epsilon, n_components, n_landmarks, methods_standard,
    methods_fast, sweep_landmarks, sweep_methods, svr (C, epsilon), kpca_rank_tol.
    """
    rng = generator(seed, "dcm_parkinsons", repetition)
    train = subject_split(data.subject, settings["n_train_subjects"], rng)
    landmark_seed = int(rng.integers(2**31 - 1))
    scaler = StandardScaler().fit(data.X[train])
    X, X_test = scaler.transform(data.X[train]), scaler.transform(data.X[~train])
    domains = data.subject[train]
    gamma = median_gamma(X)
    base = {
        "study": "dcm_parkinsons",
        "repetition": repetition,
        "seed": int(seed),
        "seed_keys": ["dcm_parkinsons", repetition],
        "n_train": int(train.sum()),
        "n_test": int((~train).sum()),
        "gamma": gamma,
    }
    m = settings["n_components"]
    cache, records = {}, []
    for target in TARGETS:
        y, y_test = data.targets[target][train], data.targets[target][~train]
        target_gamma = median_gamma(y)
        row = {**base, "target": target, "target_gamma": target_gamma}
        rmse_mean = float(np.sqrt(np.mean((y_test - y.mean()) ** 2)))
        records.append(
            {
                **row,
                "method": "mean",
                "version": "baseline",
                "n_landmarks": 0,
                "rmse": rmse_mean,
                "fit_cpu_seconds": 0.0,
                "fit_wall_seconds": 0.0,
            }
        )
        start, wall = time.process_time(), time.perf_counter()
        svr = SVR(kernel="rbf", gamma=gamma, **settings["svr"]).fit(X, y)
        rmse = float(np.sqrt(np.mean((svr.predict(X_test) - y_test) ** 2)))
        records.append(
            {
                **row,
                "method": "svr",
                "version": "baseline",
                "n_landmarks": 0,
                "rmse": rmse,
                "fit_cpu_seconds": time.process_time() - start,
                "fit_wall_seconds": time.perf_counter() - wall,
            }
        )
        jobs = [
            (meth, "standard", settings["n_landmarks"]) for meth in settings["methods_standard"]
        ]
        jobs += [(meth, "fast", settings["n_landmarks"]) for meth in settings["methods_fast"]]
        jobs += [
            (meth, "sweep", M)
            for M in settings["sweep_landmarks"]
            for meth in settings["sweep_methods"]
        ]
        transformers = [
            _transformer(
                meth,
                "standard" if version == "standard" else "fast",
                m=min(m, M) if version != "standard" else m,
                gamma=gamma,
                target_gamma=target_gamma,
                epsilon=settings["epsilon"],
                rank_tol=settings["kpca_rank_tol"],
                M=M,
                seed=landmark_seed,
            )
            for meth, version, M in jobs
        ]
        fitted = fit_shared(transformers, X, y, domains=domains, cache=cache)
        for (meth, version, M), (transformer, cpu, wall) in zip(jobs, fitted, strict=True):
            rmse = _svr_rmse(
                transformer.transform(X),
                y,
                transformer.transform(X_test),
                y_test,
                settings["svr"],
            )
            records.append(
                {
                    **row,
                    "method": meth,
                    "version": version,
                    "n_landmarks": 0 if version == "standard" else M,
                    "n_components": int(transformer.n_components_),
                    "rank": int(transformer.feature_map_.rank),
                    "rmse": rmse,
                    "fit_cpu_seconds": cpu,
                    "fit_wall_seconds": wall,
                }
            )
    return records


COLUMNS = [
    "target",
    "method",
    "version",
    "n_landmarks",
    "repetition",
    "rmse",
    "fit_cpu_seconds",
    "fit_wall_seconds",
    "n_train",
    "n_test",
    "seed",
]


def tidy(records):
    """One row per run (columns :data:`COLUMNS`)."""
    frame = pd.DataFrame.from_records(records)[COLUMNS]
    return frame.sort_values(
        ["target", "version", "method", "n_landmarks", "repetition"], kind="stable"
    ).reset_index(drop=True)


def _summarise(runs, keys, sort):
    """RMSE mean and sd (ddof = 1), mean fit CPU / wall seconds and run count per ``keys``."""
    return (
        runs.groupby(keys, sort=sort)
        .agg(
            rmse_mean=("rmse", "mean"),
            rmse_sd=("rmse", lambda v: v.std(ddof=1)),
            fit_cpu_seconds=("fit_cpu_seconds", "mean"),
            fit_wall_seconds=("fit_wall_seconds", "mean"),
            n_reps=("rmse", "size"),
        )
        .reset_index()
    )


def aggregate(runs):
    """Table 4: target, method, version, rmse_mean, rmse_sd, fit CPU / wall seconds, n_reps.

    Sweep rows are left out (see :func:`sweep_table`).
    """
    table = _summarise(
        runs[runs["version"] != "sweep"], ["target", "method", "version"], sort=False
    )
    order = {key: k for k, key in enumerate(METHODS)}
    table["order"] = [
        order.get((m, v), 99) for m, v in zip(table["method"], table["version"], strict=True)
    ]
    table = table.sort_values(["target", "order"], kind="stable").drop(columns="order")
    return table.reset_index(drop=True)


def sweep_table(runs):
    """Landmark sweep: target, method, n_landmarks, rmse mean/sd, fit CPU seconds, n_reps."""
    return _summarise(
        runs[runs["version"] == "sweep"], ["target", "method", "n_landmarks"], sort=True
    )
