r"""DCM paper, Parkinson's Telemonitoring (Table 4) and a Nyström landmark sweep.

Per repetition: a random 29/13 split of the 42 subjects (the domains), the 16 voice features
z-scored with training statistics, for each target (motor and total UPDRS): COIR, DICA and
DCM in the standard (exact kernel PCA) and fast (Nyström, ``M`` landmarks shared by x, y and
the domain kernel, the same landmarks for every fast method) versions, ε-SVR on the z-scored
projections; sanity rows: SVR on the raw (z-scored) features and the training-mean
predictor. Kernels: RBF on x and y with the median heuristic
("γ set to the median" read as the median heuristic), delta on the subject.

Readings of the protocol (config axes; the run records carry one column per axis):
``centring`` (``centred``: every kernel centred on the training set; ``uncentred``: eq. (12)
on the raw Gram matrices) — one job per repetition fits every centring (job :func:`fit`,
:func:`run_readings`: the split, scaling and sanity rows shared); ``svr_kernel`` (``rbf``:
RBF ε-SVR with γ = 1/m on the z-scored projections; ``linear``: DICA's transformed kernel,
a linear kernel on the projections) — every kernel fitted on the same projections. The
sanity rows (training mean, SVR on raw features) do not depend on the reading and are
repeated in each for paired comparisons. The landmark sweep runs under the primary reading.

Timing: ``fit_cpu_seconds`` / ``fit_wall_seconds`` cover the dimension-reduction fit
(kernels, solve, projection of the training points), not the SVR; the standard methods share
one kernel PCA per repetition whose full cost is charged to each of them. The RBF ε-SVRs are
libsvm fits on a precomputed kernel block (most training points end up support vectors;
:func:`krepro.dcm.svm_predict.rbf_svr_predictions`: the same problem, the kernel from one BLAS
product instead of libsvm's entry-by-entry evaluation), their test predictions one kernel
block and one BLAS product. The linear ε-SVR is the same problem solved exactly in the primal
(:class:`krepro.fairness.linear_svr.LinearEpsilonSVR`: ~7× faster than libsvm's dual on five
features, and at the optimum where libsvm stops at its 1e-3 KKT tolerance). Identical
projections (FastDCM and its sweep row at the same landmark count) share one fit.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.preprocessing import StandardScaler

from krepro.content_key import content_key
from krepro.data.parkinsons import TARGETS, load_parkinsons, subject_split
from krepro.dcm import COIR, DCM, DICA, fit_shared, median_gamma
from krepro.dcm.svm_predict import rbf_svr_predictions
from krepro.fairness.linear_svr import LinearEpsilonSVR
from krepro.records import write_records
from krepro.seeding import generator
from krepro.studies.dcm_parkinsons.readings import AXES

__all__ = ["METHODS", "fit", "run_readings", "run_repetition"]

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


def _transformer(method, version, *, m, gamma, target_gamma, epsilon, rank_tol, M, seed, center):
    common = {
        "center": center,
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


def _svr_rmse(Z, y, Z_test, y_test, svr, kernel):
    if kernel not in AXES["svr_kernel"]:
        raise ValueError(f"svr_kernel must be one of {AXES['svr_kernel']}, got {kernel!r}.")
    scaler = StandardScaler().fit(Z)
    if kernel == "linear":  # the same problem as SVR(kernel="linear"), solved exactly
        model = LinearEpsilonSVR(C=svr["C"], epsilon=svr["epsilon"])
        prediction = model.fit(scaler.transform(Z), y).predict(scaler.transform(Z_test))
    else:
        prediction = rbf_svr_predictions(
            scaler.transform(Z), y, scaler.transform(Z_test), C=svr["C"], epsilon=svr["epsilon"]
        )
    return float(np.sqrt(np.mean((prediction - y_test) ** 2)))


def run_repetition(data, *, seed, repetition, settings, centring="centred", sweep=True):
    """All targets, methods, SVR kernels and landmark counts of one subject split under one
    centring → run records.

    ``settings``: n_train_subjects, epsilon, n_components, n_landmarks, methods_standard,
    methods_fast, sweep_landmarks, sweep_methods, svr (C, epsilon), svr_kernel (list),
    kpca_rank_tol, primary (the primary reading; the sweep uses its SVR kernel).
    ``sweep=False`` leaves the landmark sweep out.
    """
    return run_readings(
        data,
        seed=seed,
        repetition=repetition,
        settings=settings,
        centrings=[centring],
        sweep_centrings=[centring] if sweep else [],
    )


def run_readings(data, *, seed, repetition, settings, centrings, sweep_centrings=()):
    """:func:`run_repetition` for several centrings of one subject split, sharing the split,
    the scaling and the reading-independent sanity rows (the same records as separate calls,
    up to the sanity rows' timings).

    ``sweep_centrings``: the centrings that also run the landmark sweep.
    """
    for centring in centrings:
        if centring not in AXES["centring"]:
            raise ValueError(f"centring must be one of {AXES['centring']}, got {centring!r}.")
    rng = generator(seed, "dcm_parkinsons", repetition)
    train = subject_split(data.subject, settings["n_train_subjects"], rng)
    landmark_seed = int(rng.integers(2**31 - 1))
    scaler = StandardScaler().fit(data.X[train])
    X, X_test = scaler.transform(data.X[train]), scaler.transform(data.X[~train])
    gamma = median_gamma(X)
    split = {
        "X": X,
        "X_test": X_test,
        "domains": data.subject[train],
        "gamma": gamma,
        "landmark_seed": landmark_seed,
        "targets": {
            target: (data.targets[target][train], data.targets[target][~train])
            for target in TARGETS
        },
    }
    base = {
        "study": "dcm_parkinsons",
        "repetition": repetition,
        "seed": int(seed),
        "seed_keys": ["dcm_parkinsons", repetition],
        "n_train": int(train.sum()),
        "n_test": int((~train).sum()),
        "gamma": gamma,
    }
    sanity = {}
    for target, (y, y_test) in split["targets"].items():
        start, wall = time.process_time(), time.perf_counter()
        prediction = rbf_svr_predictions(X, y, X_test, gamma=gamma, **settings["svr"])
        sanity[target] = {
            "target_gamma": median_gamma(y),
            "mean": float(np.sqrt(np.mean((y_test - y.mean()) ** 2))),
            "svr": float(np.sqrt(np.mean((prediction - y_test) ** 2))),
            "cpu": time.process_time() - start,
            "wall": time.perf_counter() - wall,
        }
    records = []
    for centring in centrings:
        records += _reading_records(
            split,
            sanity,
            {**base, "centring": centring},
            settings,
            centring=centring,
            sweep=centring in sweep_centrings,
        )
    return records


def _reading_records(split, sanity, base, settings, *, centring, sweep):
    """Records of one centring: the sanity rows, then every method on both targets."""
    kernels = list(settings["svr_kernel"])
    sweep_kernel = settings.get("primary", {}).get("svr_kernel", kernels[0])
    X, X_test, gamma = split["X"], split["X_test"], split["gamma"]
    m = settings["n_components"]
    cache, records = {}, []
    for target, (y, y_test) in split["targets"].items():
        fitted_rmse = {}  # identical projections (FastDCM and its M = n_landmarks sweep row)
        target_gamma = sanity[target]["target_gamma"]
        row = {**base, "target": target, "target_gamma": target_gamma}
        for kernel in kernels:  # reading-independent sanity rows, repeated per reading
            records += [
                {
                    **row,
                    "svr_kernel": kernel,
                    "method": "mean",
                    "version": "baseline",
                    "n_landmarks": 0,
                    "rmse": sanity[target]["mean"],
                    "fit_cpu_seconds": 0.0,
                    "fit_wall_seconds": 0.0,
                },
                {
                    **row,
                    "svr_kernel": kernel,
                    "method": "svr",
                    "version": "baseline",
                    "n_landmarks": 0,
                    "rmse": sanity[target]["svr"],
                    "fit_cpu_seconds": sanity[target]["cpu"],
                    "fit_wall_seconds": sanity[target]["wall"],
                },
            ]
        jobs = [
            (meth, "standard", settings["n_landmarks"]) for meth in settings["methods_standard"]
        ]
        jobs += [(meth, "fast", settings["n_landmarks"]) for meth in settings["methods_fast"]]
        jobs += [
            (meth, "sweep", M)
            for M in (settings["sweep_landmarks"] if sweep else ())
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
                seed=split["landmark_seed"],
                center=centring == "centred",
            )
            for meth, version, M in jobs
        ]
        with warnings.catch_warnings():  # fewer informative components: n_components column
            warnings.filterwarnings("ignore", message=".*non-degenerate", category=UserWarning)
            fitted = fit_shared(transformers, X, y, domains=split["domains"], cache=cache)
        for (meth, version, M), (transformer, cpu, wall) in zip(jobs, fitted, strict=True):
            Z, Z_test = transformer.transform(X), transformer.transform(X_test)
            projections = content_key(Z, Z_test)
            for kernel in kernels if version != "sweep" else [sweep_kernel]:
                key = (projections, kernel)
                if key not in fitted_rmse:
                    fitted_rmse[key] = _svr_rmse(Z, y, Z_test, y_test, settings["svr"], kernel)
                records.append(
                    {
                        **row,
                        "svr_kernel": kernel,
                        "method": meth,
                        "version": version,
                        "n_landmarks": 0 if version == "standard" else M,
                        "n_components": int(transformer.n_components_),
                        "rank": int(transformer.feature_map_.rank),
                        "rmse": fitted_rmse[key],
                        "fit_cpu_seconds": cpu,
                        "fit_wall_seconds": wall,
                    }
                )
    return records


def fit(job, log):
    """Job ``dcm_parkinsons_fit`` and ``dcm_parkinsons_fit_readings``: one subject split of
    Table 4 under one or several centrings (both targets, all methods, SVR kernels, and the
    landmark sweep under the primary reading) → one records file per centring.

    Rule ``dcm_parkinsons_fit`` runs one centring (wildcard ``centring``); rule
    ``dcm_parkinsons_fit_readings`` runs every centring of the split in one job (outputs named
    by centring), sharing the split, the scaling and the sanity rows.
    """
    wildcards, params = job.wildcards, job.params
    if "centring" in wildcards.keys():
        outputs = {wildcards.centring: job.output[0]}
    else:
        outputs = {centring: job.output[centring] for centring in params.centrings}
    repetition = int(wildcards.rep)
    records = run_readings(
        load_parkinsons(job.input.data),
        seed=params.seed,
        repetition=repetition,
        settings=params.settings,
        centrings=list(outputs),
        sweep_centrings=[params.sweep_centring],
    )
    for centring, path in outputs.items():
        mine = [record for record in records if record["centring"] == centring]
        log.info("%s: %d records", centring, len(mine))
        write_records(
            path,
            mine,
            rule=job.rule,
            wildcards={"centring": centring, "rep": wildcards.rep},
        )
