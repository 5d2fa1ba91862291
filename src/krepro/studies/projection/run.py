r"""Projection of the oblivious features onto :math:`M = \varphi[\mathcal X]`, §7.2 data.

For each dependence γ and repetition: draw the §7.2 data (S, U ~ U[−5, 5],
:math:`X = \gamma U + (1-\gamma)S`, :math:`Y = X^2 + \varepsilon`), estimate
:math:`E[\varphi(X)\mid S]` with the paper's dyadic partition on an estimation sample, form
the oblivious features Z (eq. (9)) of a learner sample, and compute

* their projections W onto M and the empirical distance :math:`d_n(Z + h, M)` with
  :math:`h = 0` (Prop. 3, App. E.3; :func:`krepro.fairness.projection.project_onto_manifold`: grid
  search plus pattern-search refinement), and :math:`d(Z + h, M)` approximated by the same
  mean over a large independent reference sample;
* the dependence on S of X, Z (RKHS distances) and W: distance correlation;
* the :math:`e_\beta` dependence (eq. (14)) between S (binned) and the predictions of SVMs
  trained on X (plain kernel), on Z (the oblivious kernel) and on W (plain kernel of W),
  for the label :math:`1\{Y > \operatorname{median}\}`, on a test sample.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.svm import SVC

from krepro.data.synthetic import ridge_sample
from krepro.fairness.conditional import DyadicPartition, PartitionConditionalMean
from krepro.fairness.projection import (
    RBFKernel,
    feature_coordinates,
    oblivious_expansion,
    project_onto_manifold,
)
from krepro.metrics import beta_dependence, distance_correlation, misclassification_rate
from krepro.records import write_records
from krepro.seeding import generator

__all__ = ["FEATURES", "METRICS", "run", "run_gamma"]

#: The feature maps compared: X, the oblivious features Z and their projection W onto M.
FEATURES = ("X", "Z", "W")
#: The distance measures of each record.
METRICS = ("d_n", "d_reference", "abs_deviation", "mean_shift")


def _bins(S, low, high, n_bins):
    edges = np.linspace(low, high, int(n_bins) + 1)[1:-1]
    return np.digitize(np.asarray(S).reshape(-1), edges)


def _classify(train_gram, test_gram, labels, C):
    model = SVC(kernel="precomputed", C=C).fit(train_gram, labels)
    return model.predict(test_gram)


def run_gamma(*, seed, gamma, settings):
    """All repetitions of one γ.

    Parameters
    ----------
    seed : int
    gamma : float in [0, 1]
    settings : mapping
        The ``projection`` config section.

    Returns
    -------
    list of dict
        One record per repetition.
    """
    partition = settings["partition"]
    low, high = partition["low"], partition["high"]
    sizes = [settings[k] for k in ("n_estimation", "n_points", "n_test", "n_reference")]
    bounds = np.cumsum([0, *sizes])

    # gram(A, B, "rbf", gamma=...) bit for bit, with the pre-image search's shortcuts
    kernel = RBFKernel(settings["kernel_gamma"])

    records = []
    for repetition in range(settings["n_repetitions"]):
        rng = generator(seed, "projection", float(gamma), repetition)
        sample = ridge_sample(
            rng,
            int(bounds[-1]),
            gamma=float(gamma),
            experiment=1,
            noise_variance=settings["noise_variance"],
            low=low,
            high=high,
        )
        est, learn, test, ref = (sample.rows(bounds[i], bounds[i + 1]) for i in range(4))
        start = time.process_time()
        estimator = PartitionConditionalMean(
            DyadicPartition(low, high, partition["cells_per_axis"])
        ).fit(est.S)
        parts = {}
        for name, part in (("learn", learn), ("test", test), ("reference", ref)):
            expansion = oblivious_expansion(estimator, part.X, part.S, est.X, kernel)
            W, distances = project_onto_manifold(
                expansion, low, high, n_grid=settings["n_grid"], n_refine=settings["n_refine"]
            )
            parts[name] = (expansion, W, distances)
        Z_learn, W_learn, distances = parts["learn"]
        Z_test, W_test, _ = parts["test"]
        d_n, d_reference = float(distances.mean()), float(parts["reference"][2].mean())
        # ρ = max ‖φ(x)‖ over the domain (Prop. 3), on the search grid
        domain = np.linspace(low, high, settings["n_grid"])[:, None]
        rho = float(np.sqrt(np.max(np.diag(kernel(domain)))))
        labels = (learn.y > np.median(learn.y)).astype(int)
        grams = {
            "X": (kernel(learn.X), kernel(test.X, learn.X)),
            "Z": (Z_learn.gram(), Z_test.inner(Z_learn)),
            "W": (kernel(W_learn), kernel(W_test, W_learn)),
        }
        s_bins = _bins(test.S, low, high, settings["beta_bins"])
        test_labels = (test.y > np.median(learn.y)).astype(int)
        record = {
            "gamma": float(gamma),
            "repetition": repetition,
            "n_points": len(learn),
            "d_n": d_n,
            "d_reference": d_reference,
            "abs_deviation": abs(d_n - d_reference),
            "rho": rho,
            "mean_shift": float(np.mean(np.abs(W_learn[:, 0] - learn.X[:, 0]))),
            "dcor_X": distance_correlation(learn.X, learn.S),
            "dcor_Z": distance_correlation(feature_coordinates(grams["Z"][0]), learn.S),
            "dcor_W": distance_correlation(W_learn, learn.S),
        }
        for feature, (train_gram, test_gram) in grams.items():
            predictions = _classify(train_gram, test_gram, labels, settings["classifier_C"])
            record[f"beta_{feature}"] = beta_dependence(predictions, s_bins, labels=[0, 1])
            record[f"error_{feature}"] = misclassification_rate(test_labels, predictions)
        record["cpu_seconds"] = time.process_time() - start
        record["status"] = "ok"
        records.append(record)
    return records


def run(job, log):
    """Job ``projection_run``: projection of the oblivious features onto M for one γ (all
    repetitions) → run records.
    """
    records = run_gamma(
        seed=job.params.seed,
        gamma=float(job.wildcards.gamma),
        settings=job.params.settings,
    )
    log.info("%d records", len(records))
    write_records(job.output[0], records, rule=job.rule, wildcards=dict(job.wildcards))
