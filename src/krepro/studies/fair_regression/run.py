r"""Fair regression with a continuous sensitive feature S: error–dependence fronts per method.

Per data set and random split, every method is fitted at each value of its one trade-off
parameter and its test predictions are scored by their error and by their dependence on S
(:func:`krepro.metrics.dependence_report`: HSIC with its permutation p-value, distance
correlation, the spread of the mean prediction over quantile bins of S through fairlearn's
``MetricFrame``). All methods share the split's standardisation (X and y by their training
mean and sd), the RBF kernel :math:`\exp(-\gamma\lVert x - x'\rVert^2)` with
:math:`\gamma` = ``kernel_gamma_scale`` / d and the ridge penalty :math:`\lambda` of the
1/n-scaled objective :math:`\frac1n\lVert y - K\alpha\rVert^2 + \lambda\alpha^\top K\alpha`
(``KernelRidge(alpha = nλ)``).

Methods and their swept parameter (:data:`METHODS`):

``krr``
    kernel ridge regression, no fairness; parameter λ.
``oblivious_partition``, ``oblivious_cme``
    oblivious ridge regression in an explicit Nyström feature space
    (:class:`krepro.fairness.oblivious.ObliviousFeatures`, paper eq. (9)) with the paper's
    plug-in estimator of :math:`E[\tilde\varphi(X)\mid S]` on a dyadic partition of the range
    of S (Prop. 6) or the conditional mean embedding
    (:class:`krepro.cme.CMEConditionalMean`, λ by generalised cross-validation); parameter
    t ∈ [0, 1], the partial obliviousness of :func:`partial_oblivious`,
    :math:`z_t = \tilde\varphi(x) - t\,(\hat E[\tilde\varphi(X)\mid S=s] -
    \hat E\tilde\varphi(X))`: t = 0 is the plain feature ridge (≈ KRR), t = 1 the oblivious
    features of the paper. The conditional mean of :math:`z_t` given S is
    :math:`E\tilde\varphi(X) + (1 - t)(E[\tilde\varphi(X)\mid S] - E\tilde\varphi(X))`: its
    dependence on S, measured in the feature space, shrinks linearly to 0, which is why this
    interpolation is the natural one-parameter family between KRR and the oblivious fit. The
    conditional means are estimated on the training rows themselves; a row whose S falls in
    a partition cell without training rows keeps its plain features
    (:func:`_empty_cells_unadjusted`).
``correlation_remover``
    fairlearn's :class:`~fairlearn.preprocessing.CorrelationRemover` (S removed linearly
    from X, strength α) followed by KRR at λ; parameter α.
``bounded_group_loss``
    fairlearn's :class:`~fairlearn.reductions.ExponentiatedGradient` with
    :class:`~fairlearn.reductions.BoundedGroupLoss` (square loss) on quantile bins of S —
    the binned practice — around a ridge regression on the same Nyström features (KRR in
    their span); the prediction is the mixture's mean. Parameter c: the bound on every bin's
    loss is c times the largest bin loss of the unconstrained fit (c = 1: no constraint
    binds; smaller c: stronger).
``hsic_ridge``
    :class:`krepro.fairness.hsic_ridge.HSICRidge` (fair kernel learning, Pérez-Suay et al.
    2017) at λ; parameter μ, the weight of the HSIC penalty (y standardised, so μ is in the
    units of a standardised target).

Adult is a classification case: every method regresses the 0/1 label (a linear probability
model in the kernel space) and the error is the misclassification rate of the score
thresholded at 1/2; the dependence is that of the scores.

Synthetic data (:func:`krepro.data.fair_regression.gaussian_shift_sample`) has a known
:math:`E[\varphi(X)\mid S]`: per split the partition and CME estimates of
:math:`\langle E[\varphi(X)\mid S=s], \varphi(x)\rangle` are compared with
:func:`krepro.data.fair_regression.true_conditional_embedding` (:func:`truth_errors`).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge

from krepro.cme import CMEConditionalMean
from krepro.data.fair_regression import (
    gaussian_shift_sample,
    load_adult_age,
    load_diabetes_age,
    load_parkinsons_age,
    true_conditional_embedding,
)
from krepro.data.parkinsons import subject_split
from krepro.fairness.conditional import DyadicPartition, PartitionConditionalMean
from krepro.fairness.hsic_ridge import HSICRidge, median_heuristic_gamma
from krepro.fairness.oblivious import ObliviousFeatures
from krepro.kernels import gram
from krepro.metrics import dependence_report
from krepro.records import write_records
from krepro.seeding import generator, seed_sequence

__all__ = [
    "CLASSIFICATION",
    "DATASETS",
    "METHODS",
    "Split",
    "draw_split",
    "fit",
    "partial_oblivious",
    "run_split",
    "truth_errors",
]

DATASETS = ("synthetic", "diabetes", "parkinsons", "adult")
CLASSIFICATION = ("adult",)
METHODS = (
    "krr",
    "oblivious_partition",
    "oblivious_cme",
    "correlation_remover",
    "bounded_group_loss",
    "hsic_ridge",
)
PARAMETER_NAMES = {
    "krr": "λ",
    "oblivious_partition": "t",
    "oblivious_cme": "t",
    "correlation_remover": "α",
    "bounded_group_loss": "c",
    "hsic_ridge": "μ",
}


class Split:
    """One train/test split, standardised by the training rows (S kept in its units)."""

    def __init__(self, X_train, y_train, S_train, X_test, y_test, S_test, s_bounds):
        mean, sd = X_train.mean(axis=0), X_train.std(axis=0)
        sd = np.where(sd > 0, sd, 1.0)
        self.X_train, self.X_test = (X_train - mean) / sd, (X_test - mean) / sd
        self.y_mean, self.y_sd = float(y_train.mean()), float(y_train.std()) or 1.0
        self.y_train = (y_train - self.y_mean) / self.y_sd
        self.y_test = y_test  # original units
        self.S_train, self.S_test = S_train.astype(float), S_test.astype(float)
        self.s_bounds = s_bounds

    def original(self, standardised):
        """Predictions back in the units of y."""
        return standardised * self.y_sd + self.y_mean


def _subsample(rng, mask, cap):
    rows = np.flatnonzero(mask)
    return rows if cap is None or len(rows) <= cap else np.sort(rng.choice(rows, cap, False))


def draw_split(dataset, data, settings, rng):
    """One random split of ``dataset`` (``data``: the whole :class:`SensitiveRegression`;
    synthetic data are drawn afresh).

    Diabetes: a random ``test_fraction`` of the rows. Parkinson's: ``n_train_subjects``
    subjects train (:func:`krepro.data.parkinsons.subject_split`), then at most
    ``max_train_rows`` / ``max_test_rows`` recordings of each side. Adult: ``n_train`` +
    ``n_test`` rows drawn from the training file (``data``), split at random. The bounds of
    the dyadic partition are the range of S over the whole data set (a property of S, not of
    the labels).
    """
    own = settings[dataset]
    if dataset == "synthetic":
        model = {k: own[k] for k in ("d", "shift", "shifted_axes", "sd", "s_effect", "noise_sd")}
        train = gaussian_shift_sample(rng, own["n_train"], **model)
        test = gaussian_shift_sample(rng, own["n_test"], **model)
        return Split(train.X, train.y, train.S, test.X, test.y, test.S, (0.0, 1.0)), train
    bounds = (float(data.S.min()), float(data.S.max()) + 1e-9)
    if dataset == "parkinsons":
        mask = subject_split(data.groups, own["n_train_subjects"], rng)
        train = _subsample(rng, mask, own["max_train_rows"])
        test = _subsample(rng, ~mask, own["max_test_rows"])
    else:
        n = len(data)
        n_test = round(own["test_fraction"] * n) if "test_fraction" in own else own["n_test"]
        n_train = n - n_test if "test_fraction" in own else own["n_train"]
        order = rng.permutation(n)
        train, test = np.sort(order[:n_train]), np.sort(order[n_train : n_train + n_test])
    split = Split(
        data.X[train], data.y[train], data.S[train], data.X[test], data.y[test], data.S[test],
        bounds,
    )  # fmt: skip
    return split, None


def partial_oblivious(plain, oblivious, t):
    r""":math:`z_t = \tilde\varphi + t\,(z - \tilde\varphi)`: the plain features moved a share
    t of the way to the oblivious ones (t = 0 plain, t = 1 the paper's eq. (9)).

    Parameters
    ----------
    plain, oblivious : ndarray of shape (n, D)
    t : float in [0, 1]
    """
    if not 0.0 <= t <= 1.0:
        raise ValueError(f"t must lie in [0, 1], got {t!r}.")
    return plain + t * (oblivious - plain)


def _bins(S_train, S, n_bins):
    """Quantile bins of S (edges from the training rows) as integer labels."""
    edges = np.unique(np.quantile(S_train, np.linspace(0, 1, n_bins + 1))[1:-1])
    return np.searchsorted(edges, S, side="right")


def bounded_group_loss(loss, upper_bound):
    """fairlearn's :class:`~fairlearn.reductions.BoundedGroupLoss` (and its default objective,
    :class:`~fairlearn.reductions.MeanLoss`) with a vectorised ``signed_weights``.

    fairlearn 0.15 maps each row's group to its weight through a row-wise
    ``DataFrame.apply``, a Python loop over the samples that dominates the reduction's cost;
    here the same weights come from one ``reindex``
    (``tests/studies/fair_regression/test_run.py`` checks that they are equal).
    """
    from fairlearn.reductions import BoundedGroupLoss, MeanLoss

    def signed_weights(self, lambda_vec=None):
        if lambda_vec is None:
            adjust = pd.Series(1.0, index=self.index)
        else:
            adjust = lambda_vec / self.prob_attr
        groups = self.tags["group_id"]
        return pd.Series(adjust.reindex(groups).to_numpy(), index=self.tags.index)

    class VectorisedMeanLoss(MeanLoss):
        pass

    class VectorisedBoundedGroupLoss(BoundedGroupLoss):
        def default_objective(self):
            return VectorisedMeanLoss(self.reduction_loss)

    VectorisedMeanLoss.signed_weights = signed_weights
    VectorisedBoundedGroupLoss.signed_weights = signed_weights
    return VectorisedBoundedGroupLoss(loss, upper_bound=upper_bound)


class ArraySquareLoss:
    r"""fairlearn's :class:`~fairlearn.reductions.SquareLoss` on numpy arrays:
    :math:`(\mathrm{clip}(y) - \mathrm{clip}(\hat y))^2` with both clipped to
    ``[min_val, max_val]`` (fairlearn's clips pandas Series, whose overhead dominates a
    reduction on a few thousand rows)."""

    def __init__(self, min_val, max_val):
        self.min_val, self.max_val = min_val, max_val
        self.min, self.max = 0, (max_val - min_val) ** 2

    def eval(self, y_true, y_pred):
        low, high = self.min_val, self.max_val
        clipped_true = np.clip(np.asarray(y_true), low, high)
        return (clipped_true - np.clip(np.asarray(y_pred), low, high)) ** 2


def _eg_predict(model, X):
    """Mean prediction of an ExponentiatedGradient mixture (weights over its predictors)."""
    weights = model.weights_.to_numpy()
    keep = weights > 0
    predictions = np.column_stack(
        [p.predict(X) for p, k in zip(model.predictors_, keep, strict=True) if k]
    )
    return predictions @ (weights[keep] / weights[keep].sum())


def _oblivious_features(split, settings, estimator, landmark_seed):
    """Plain and oblivious Nyström features of the training and test rows (the landmarks
    drawn with ``landmark_seed``: the same for both estimators)."""
    common = {
        "kernel": "rbf",
        "gamma": settings["_gamma"],
        "n_components": min(settings["n_components"], len(split.y_train)),
        "random_state": landmark_seed,
    }
    if estimator == "partition":
        features = ObliviousFeatures(
            partition="dyadic",
            partition_bounds=tuple(split.s_bounds),
            cells_per_axis=settings["partition"]["cells_per_axis"],
            **common,
        )
    else:
        cme = settings["cme"]
        features = ObliviousFeatures(
            conditional_mean=CMEConditionalMean(
                kernel="rbf",
                gamma=cme["gamma_scale"] * median_heuristic_gamma(split.S_train[:, None]),
                alphas=10.0 ** np.arange(cme["log10_alpha_min"], cme["log10_alpha_max"] + 1),
            ),
            **common,
        )
    features.fit(split.X_train, sensitive_features=split.S_train)
    mapped = {}
    for side in ("train", "test"):
        X, S = getattr(split, f"X_{side}"), getattr(split, f"S_{side}")
        plain, oblivious = (
            features.feature_map_.transform(X),
            features.transform(X, sensitive_features=S),
        )
        if estimator == "partition":
            oblivious = _empty_cells_unadjusted(features.conditional_mean_, S, plain, oblivious)
        mapped[side] = plain, oblivious
    return mapped


def _empty_cells_unadjusted(conditional_mean, S, plain, oblivious):
    r"""Rows whose S falls in a cell without training rows keep their plain features.

    The plug-in estimate of an empty cell is the zero element, which would move such rows by
    :math:`+\hat E\tilde\varphi(X)`; with a continuous S split by subject (Parkinson's: 42
    ages over 8 cells) a test subject's age can fall in an empty cell. Using the overall mean
    there (no adjustment) is the estimate that ignores S where nothing is known about it.
    """
    cells = conditional_mean.cell_of(S[:, None])
    empty = (cells >= 0) & (conditional_mean.cell_counts_[np.maximum(cells, 0)] == 0)
    if not empty.any():
        return oblivious
    oblivious = oblivious.copy()
    oblivious[empty] = plain[empty]
    return oblivious


def _fits(split, settings, rng):
    """Test predictions (standardised units) of every (method, parameter), with CPU seconds.

    Yields
    ------
    (method, parameter, prediction, cpu_seconds)
    """
    n = len(split.y_train)
    lam, gamma = settings["ridge_lambda"], settings["_gamma"]
    sweeps = settings["sweeps"]
    Xtr, ytr, Xte = split.X_train, split.y_train, split.X_test

    def krr(alpha, X_train=Xtr, X_test=Xte):
        model = KernelRidge(alpha=n * alpha, kernel="rbf", gamma=gamma).fit(X_train, ytr)
        return model.predict(X_test)

    for value in sweeps["krr"]:
        start = time.process_time()
        yield "krr", float(value), krr(float(value)), time.process_time() - start

    plain, landmark_seed = None, int(rng.integers(2**31 - 1))
    for estimator in ("partition", "cme"):
        start = time.process_time()
        mapped = _oblivious_features(split, settings, estimator, landmark_seed)
        shared = time.process_time() - start
        plain = mapped["train"][0], mapped["test"][0]
        for t in sweeps["oblivious"]:
            start = time.process_time()
            model = Ridge(alpha=n * lam).fit(partial_oblivious(*mapped["train"], t), ytr)
            prediction = model.predict(partial_oblivious(*mapped["test"], t))
            cpu = time.process_time() - start + shared / len(sweeps["oblivious"])
            yield f"oblivious_{estimator}", float(t), prediction, cpu

    from fairlearn.preprocessing import CorrelationRemover
    from fairlearn.reductions import ExponentiatedGradient

    for alpha in sweeps["correlation_remover"]:
        start = time.process_time()
        remover = CorrelationRemover(sensitive_feature_ids=[Xtr.shape[1]], alpha=float(alpha))
        remover.fit(np.column_stack([Xtr, split.S_train]))
        cleaned = [remover.transform(np.column_stack([X, S])) for X, S in
                   ((Xtr, split.S_train), (Xte, split.S_test))]  # fmt: skip
        prediction = krr(lam, *cleaned)
        yield "correlation_remover", float(alpha), prediction, time.process_time() - start

    start = time.process_time()
    groups = _bins(split.S_train, split.S_train, settings["n_bins"])
    base = Ridge(alpha=n * lam).fit(plain[0], ytr)
    low, high = float(ytr.min()), float(ytr.max())
    loss = ArraySquareLoss(low, high)
    clipped = np.clip(base.predict(plain[0]), low, high)
    group_loss = pd.Series(loss.eval(ytr, clipped)).groupby(groups).mean()
    shared = time.process_time() - start
    eg = settings["exponentiated_gradient"]
    for c in sweeps["bounded_group_loss"]:
        start = time.process_time()
        model = ExponentiatedGradient(
            Ridge(alpha=n * lam),
            constraints=bounded_group_loss(loss, float(c) * float(group_loss.max())),
            eps=eg["eps"],
            max_iter=eg["max_iter"],
        )
        model.fit(plain[0], ytr, sensitive_features=groups)
        prediction = _eg_predict(model, plain[1])
        cpu = time.process_time() - start + shared / len(sweeps["bounded_group_loss"])
        yield "bounded_group_loss", float(c), prediction, cpu

    for mu in sweeps["hsic_ridge"]:
        start = time.process_time()
        model = HSICRidge(alpha=lam, mu=float(mu), gamma=gamma)
        model.fit(Xtr, ytr, sensitive_features=split.S_train)
        yield "hsic_ridge", float(mu), model.predict(Xte), time.process_time() - start


def truth_errors(train, settings, rng):
    r"""Root-mean-square error of the partition and CME estimates of
    :math:`\langle E[\varphi(X)\mid S=s], \varphi(x)\rangle = E[k(X, x)\mid S=s]` against
    the closed form (:func:`krepro.data.fair_regression.true_conditional_embedding`), and of
    the S-blind estimate :math:`\frac1m\sum_v k(x_v, x)` (what ignoring S gives).

    The estimates are formed on the training sample of a synthetic split (raw units, the RBF
    kernel with ``synthetic.truth_gamma``) at ``truth_points`` points x and ``truth_points``
    values s, both drawn from the model.

    Returns
    -------
    dict
        ``truth_error_partition``, ``truth_error_cme``, ``truth_error_blind``.
    """
    own = settings["synthetic"]
    model = {k: own[k] for k in ("d", "shift", "shifted_axes", "sd")}
    gamma = own["truth_gamma"]
    query = gaussian_shift_sample(
        rng, own["truth_points"], **model, s_effect=own["s_effect"], noise_sd=own["noise_sd"]
    )
    truth = true_conditional_embedding(query.X, query.S, gamma=gamma, **model)
    K = gram(train.X, query.X, kernel="rbf", gamma=gamma)  # (m, p)
    cme = settings["cme"]
    estimators = {
        "partition": PartitionConditionalMean(
            DyadicPartition(0.0, 1.0, cells_per_axis=settings["partition"]["cells_per_axis"])
        ).fit(train.S[:, None]),
        "cme": CMEConditionalMean(
            kernel="rbf",
            gamma=cme["gamma_scale"] * median_heuristic_gamma(train.S[:, None]),
            alphas=10.0 ** np.arange(cme["log10_alpha_min"], cme["log10_alpha_max"] + 1),
        ).fit(train.S[:, None], output_gram=gram(train.X, kernel="rbf", gamma=gamma)),
    }
    errors = {}
    for name, estimator in estimators.items():
        membership = estimator.membership(query.S[:, None])
        estimate = membership @ (estimator.weights_.T @ K)
        errors[f"truth_error_{name}"] = float(np.sqrt(np.mean((np.asarray(estimate) - truth) ** 2)))
    blind = np.broadcast_to(K.mean(axis=0), truth.shape)
    errors["truth_error_blind"] = float(np.sqrt(np.mean((blind - truth) ** 2)))
    return errors


def _error(dataset, split, prediction):
    """RMSE in the units of y, or the misclassification rate of the score at 1/2."""
    if dataset in CLASSIFICATION:
        return float(np.mean((prediction >= 0.5) != (split.y_test >= 0.5)))
    return float(np.sqrt(np.mean((prediction - split.y_test) ** 2)))


def run_split(dataset, data, settings, *, seed, split_index):
    """Every (method, parameter) on one split: error and dependence records.

    Parameters
    ----------
    dataset : str
        One of :data:`DATASETS`.
    data : SensitiveRegression or None
        The loaded data set (None for ``synthetic``).
    settings : dict
        The ``fair_regression`` config section.
    seed : int
    split_index : int

    Returns
    -------
    list of dict
    """
    rng = generator(seed, "fair_regression", dataset, split_index)
    split, synthetic_train = draw_split(dataset, data, settings, rng)
    settings = {**settings, "_gamma": settings["kernel_gamma_scale"] / split.X_train.shape[1]}
    records = []
    for method, parameter, standardised, cpu in _fits(split, settings, rng):
        prediction = split.original(standardised)
        report = dependence_report(
            prediction,
            split.S_test,
            n_bins=settings["n_bins"],
            n_permutations=settings["hsic_permutations"],
            max_samples=settings["dependence_max_samples"],
            # one stream per split: every method is scored on the same rows and permutations
            seed=seed_sequence(seed, "fair_regression", "dependence", dataset, split_index),
        )
        records.append(
            {
                "dataset": dataset,
                "split": split_index,
                "method": method,
                "parameter": parameter,
                "error": _error(dataset, split, prediction),
                "hsic": report.hsic,
                "hsic_p_value": report.hsic_p_value,
                "dcor": report.distance_correlation,
                "group_spread": report.group_spread,
                "n_train": len(split.y_train),
                "n_test": len(split.y_test),
                "cpu_seconds": cpu,
                "seed": int(seed),
            }
        )
    if synthetic_train is not None:
        rng_truth = generator(seed, "fair_regression", "truth", split_index)
        truth = truth_errors(synthetic_train, settings, rng_truth)
        for record in records:
            record.update(truth)
    return records


def load(dataset, paths):
    """The data set's rows (None for synthetic data, which each split draws)."""
    if dataset == "synthetic":
        return None
    if dataset == "diabetes":
        return load_diabetes_age()
    if dataset == "parkinsons":
        return load_parkinsons_age(paths["parkinsons"])
    return load_adult_age(paths["adult"])


def fit(job, log):
    """Job ``fair_regression_fit``: every split, method and parameter of one data set."""
    dataset = job.wildcards.fair_regression_dataset
    settings = job.params.settings
    data = load(dataset, {key: job.input[key] for key in job.input.keys()})
    records = []
    for split_index in range(settings["n_splits"]):
        records += run_split(dataset, data, settings, seed=job.params.seed,
                             split_index=split_index)  # fmt: skip
    log.info("%s: %d records", dataset, len(records))
    write_records(job.output[0], records, rule=job.rule, wildcards=dict(job.wildcards))
