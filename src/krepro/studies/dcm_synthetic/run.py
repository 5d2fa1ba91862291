r"""DCM paper, synthetic experiment (Table 3) and projection figure (Fig. 2).

Table 3: per (η, γ, repetition) draw 10 domains (:func:`krepro.data.domains.domain_sample`),
train on 7 random domains and report the accuracy on the pooled points of the other 3.
Methods: a pooled RBF SVM on raw x (no dimension reduction),
and COIR, DICA and DCM (regularised and eq. (12) as printed) projecting onto at most
``m = 2`` informative directions followed by an SVM on the z-scored projections.
The data stream is keyed by (η, repetition) and not by γ, so both γ columns see the same
data (common random numbers sharpen the comparison).

Readings of the protocol (the paper leaves them open; each is a config axis, the workflow
runs every combination, and the run records carry one column per axis):

* ``centring`` — ``centred``: all kernels centred on the training set; ``uncentred``:
  eq. (12) applied to the raw Gram matrices;
* ``classifier`` — the SVM on the projections: ``rbf`` (Gaussian RBF; γ and C chosen by
  grouped cross-validation over the training domains, :func:`.svm.rbf_svm`) or ``linear``
  (C from the config; DICA's transformed kernel :math:`K\mathcal B\mathcal B^\top K` is a
  linear kernel on the projections);
* ``b_scale`` — ``gaussian``: :math:`b_1, b_2 \sim N(0, I)`; ``unit``: normalised to norm 1.

The data and the dimension reduction depend on (centring, b_scale), one job each (job
``fit``: every repetition of one (η, γ) cell); all classifiers are fitted on the same
projections in that job. The no-DR SVM does not depend on
the centring or the classifier and is repeated in every reading for paired comparisons.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from krepro.data.domains import domain_sample, split_domains
from krepro.dcm import COIR, DCM, DICA, fit_shared
from krepro.records import atomic_write_text, write_records
from krepro.seeding import generator
from krepro.studies.dcm_synthetic.readings import AXES
from krepro.studies.dcm_synthetic.svm import rbf_svm

__all__ = [
    "FIG2_METHODS",
    "METHODS",
    "fig2_fit",
    "fig2_projections",
    "fit",
    "run_setting",
]

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


def make_transformer(method, *, gamma, epsilon, m, rank_tol, center=True):
    common = {"gamma": gamma, "epsilon": epsilon, "rank_tol": rank_tol, "center": center}
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


def _classify(kind, Z, y, groups, settings):
    if kind == "linear":
        return make_pipeline(StandardScaler(), SVC(kernel="linear", C=settings["C"])).fit(Z, y)
    if kind == "rbf":
        return rbf_svm(Z, y, groups, settings["rbf_svm"])
    raise ValueError(f"classifier must be one of {AXES['classifier']}, got {kind!r}.")


def run_setting(
    *, seed, eta, gamma, n_repetitions, settings, centring="centred", b_scale="gaussian"
):
    """All repetitions, methods and classifiers of one (η, γ) cell under one (centring,
    b_scale) reading → run records.

    ``settings``: n_domains, n_train_domains, mean_domain_size, dim, wishart_df, c,
    epsilon, n_components, methods, classifier (list of classifiers), C, rbf_svm (gammas,
    Cs, folds), kpca_rank_tol.
    """
    if centring not in AXES["centring"]:
        raise ValueError(f"centring must be one of {AXES['centring']}, got {centring!r}.")
    if b_scale not in AXES["b_scale"]:
        raise ValueError(f"b_scale must be one of {AXES['b_scale']}, got {b_scale!r}.")
    classifiers = list(settings["classifier"])
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
            normalize_b=b_scale == "unit",
        )
        train = split_domains(sample.domains, settings["n_train_domains"], rng)
        X, y, d = sample.X[train], sample.y[train], sample.domains[train]
        X_test, y_test = sample.X[~train], sample.y[~train]
        base = {
            "study": "dcm_synthetic",
            "centring": centring,
            "b_scale": b_scale,
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
                center=centring == "centred",
            )
            for m in methods
            if m != "svm"
        ]
        with warnings.catch_warnings():  # fewer informative components: n_components column
            warnings.filterwarnings("ignore", message=".*non-degenerate", category=UserWarning)
            fitted = iter(fit_shared(transformers, X, y, domains=d))
        for method in methods:
            if method == "svm":
                start = time.process_time()
                model = SVC(kernel="rbf", gamma=gamma, C=settings["C"]).fit(X, y)
                cpu = time.process_time() - start
                accuracy = float(np.mean(model.predict(X_test) == y_test))
                records += [
                    {
                        **base,
                        "method": method,
                        "classifier": kind,
                        "n_components": 0,
                        "accuracy": accuracy,
                        "dr_cpu_seconds": cpu,
                    }
                    for kind in classifiers
                ]
                continue
            transformer, cpu, _ = next(fitted)
            Z, Z_test = transformer.transform(X), transformer.transform(X_test)
            for kind in classifiers:
                model = _classify(kind, Z, y, d, settings)
                accuracy = float(np.mean(model.predict(Z_test) == y_test))
                records.append(
                    {
                        **base,
                        "method": method,
                        "classifier": kind,
                        "n_components": int(transformer.n_components_),
                        "accuracy": accuracy,
                        "dr_cpu_seconds": cpu,
                    }
                )
    return records


def fig2_projections(*, seed, settings):
    """Fig. 2 analogue: the informative projection coordinates (at most two) of COIR, DICA
    and DCM under the primary centring (``settings["centring"]``, default centred).

    Returns a tidy frame: method, split ("train"/"test"), domain, y, z1, z2; ``z2`` is NaN
    where the method has a single informative component (binary labels with centred
    kernels: rank(T_y) = 1).
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
            center=settings.get("centring", "centred") == "centred",
        )
        for m in FIG2_METHODS
    ]
    with warnings.catch_warnings():  # fewer than 2 informative components is expected
        warnings.simplefilter("ignore", UserWarning)
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
                        "z2": Z[:, 1] if Z.shape[1] > 1 else np.nan,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def fit(job, log):
    """Job ``dcm_synthetic_fit``: every repetition and method of one (η, γ) cell of Table 3
    under one (centring, b_scale) reading → run records."""
    params, wildcards = job.params, job.wildcards
    records = run_setting(
        seed=params.seed,
        eta=float(wildcards.eta),
        gamma=float(wildcards.gamma),
        n_repetitions=int(params.n_repetitions),
        settings=params.settings,
        centring=wildcards.centring,
        b_scale=wildcards.b_scale,
    )
    log.info("%d records", len(records))
    write_records(job.output[0], records, rule=job.rule, wildcards=dict(wildcards))


def fig2_fit(job, log):
    """Job ``dcm_fig2_fit``: the projections of COIR, DICA and DCM for the Fig. 2 analogue
    (:func:`fig2_projections`) → CSV."""
    frame = fig2_projections(seed=job.params.seed, settings=job.params.settings)
    atomic_write_text(job.output[0], frame.to_csv(index=False))
