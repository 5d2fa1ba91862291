r"""Experiment ``cme``: each claim of the conditional-mean-embedding note, on a known law.

Data: the law of :mod:`krepro.data.cme_law` (X uniform, Y a two-component mixture with mean 0
and x-dependent spread and shape, C binomial), whose conditional embeddings and MMDs are
known in closed form.

The claims demonstrated (section of the note in brackets):

* ``operator_form`` [Covariance-Operator View] — :math:`\hat C_{YX}(\hat C_{XX}+\lambda
  I)^{-1}\varphi(x) = \sum_i\alpha_i(x)\psi(y_i)` with explicit feature maps, and the factor
  :math:`n` in :math:`K + n\lambda I` (``KernelRidge(alpha=nλ)`` agrees, ``alpha=λ`` does not);
* ``squared_loss_target`` [Conditional Embeddings as Regression Targets] — held-out embedding
  loss = irreducible loss + :math:`\lVert\hat\mu_{Y|x}-\mu_{Y|x}\rVert^2` (the cross term
  vanishes), for the Gaussian, linear and delta output kernels;
* ``linear_mean_only``, ``gaussian_separates``, ``delta_frequencies`` [Why Regress to a
  Distributional Feature?] — what each output kernel retains of the conditional law;
* ``weights_not_probabilities`` [Interpretation and a Common Pitfall] — weight sums and
  negative weights as a function of :math:`\lambda`.

Regularisation is chosen per output kernel by the held-out embedding loss (the note's own
squared loss, computable from data), and the claims are evaluated at that :math:`\lambda`.
The λ table and the claims table are built by :mod:`.tables`; job ``run`` writes them with
the figure data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.kernel_ridge import KernelRidge

from krepro.cme import ConditionalMeanEmbedding
from krepro.data.cme_law import (
    N_CLASSES,
    class_probabilities,
    conditional_sd,
    mmd_squared,
    sample,
    true_embedding,
    true_mmd,
    true_norm_sq,
)
from krepro.kernels import gram
from krepro.records import atomic_write_text
from krepro.seeding import generator
from krepro.studies.cme.tables import OUTPUT_KERNELS, aggregate, claims_table

__all__ = ["CLAIMS", "DEFAULTS", "OUTPUT_KERNELS", "run", "run_experiment"]

CLAIMS = (
    "operator_form",
    "squared_loss_target",
    "linear_mean_only",
    "gaussian_separates",
    "delta_frequencies",
    "weights_not_probabilities",
)

# Defaults: a full run (5 repetitions × 7 values of λ) takes about 2 s on one core.
DEFAULTS = {
    "n_train": 500,
    "n_heldout": 1000,
    "n_query": 101,
    "n_repetitions": 5,
    "lambdas": (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0),
    "input_gamma": 20.0,
    "output_gamma": 1.0,
    "noise_sd": 0.3,
    "contrast_x": (0.1, 0.9),
    "display_x": (0.1, 0.5, 0.9),
    "weights_x": (0.0, 0.5),
    "n_eval": 141,
}


# -------------------------------------------------------------------------------------------
# one repetition


def _decomposition(loss, irreducible, excess):
    """Mean and standard error of loss − irreducible − excess over held-out points.

    Given the training sample, the held-out terms are i.i.d. and the cross term
    :math:`2\\langle\\psi(y)-\\mu_x, \\mu_x-\\hat\\mu_x\\rangle` has conditional mean 0, so
    the residual has mean 0 exactly when the note's decomposition holds.
    """
    residual = loss - irreducible - excess
    return float(residual.mean()), float(residual.std(ddof=1) / np.sqrt(len(residual)))


def _one_hot(C):
    return (np.asarray(C)[:, None] == np.arange(N_CLASSES)[None, :]).astype(float)


class _Repetition:
    """One training sample and one held-out sample, with every λ-independent quantity."""

    def __init__(self, rep, seed, p):
        self.p = p
        self.law = {"output_gamma": p["output_gamma"], "noise_sd": p["noise_sd"]}
        self.X, self.Y, self.C = sample(
            generator(seed, "cme", "train", rep), p["n_train"], p["noise_sd"]
        )
        self.X_val, self.Y_val, self.C_val = sample(
            generator(seed, "cme", "heldout", rep), p["n_heldout"], p["noise_sd"]
        )
        self.x_query = np.linspace(0.0, 1.0, p["n_query"])
        self.contrast = np.asarray(p["contrast_x"], dtype=float)
        # all query points of one λ in one solve: grid, held-out points, the contrast pair
        self.points = np.concatenate([self.x_query, self.X_val, self.contrast])
        self.L = gram(self.Y, None, "rbf", gamma=p["output_gamma"])
        self.members = _one_hot(self.C)
        self.p_query = class_probabilities(self.x_query)
        self.p_val = class_probabilities(self.X_val)
        self.truth_query = true_embedding(self.x_query, self.Y, **self.law)
        self.truth_val = true_embedding(self.X_val, self.Y, **self.law)
        self.norm_query = true_norm_sq(self.x_query, **self.law)
        self.norm_val = true_norm_sq(self.X_val, **self.law)
        self.cross_val = gram(self.Y_val, self.Y, "rbf", gamma=p["output_gamma"])
        self.rms_true_pairs = float(
            np.sqrt(np.mean(true_mmd(self.x_query, self.x_query, **self.law) ** 2))
        )
        # irreducible losses E‖ψ(Y) − μ_x‖² at the held-out x (l(y, y) = 1 for the Gaussian)
        self.irreducible = {
            "gaussian": 1.0 - self.norm_val,
            "linear": conditional_sd(self.X_val, p["noise_sd"]) ** 2,
            "delta": 1.0 - np.sum(self.p_val**2, axis=1),
        }

    def fit(self, lam):
        """The estimator of the note with the Gaussian output kernel.

        The weights α(x) do not depend on the output kernel, so they also give the linear
        (``W @ Y`` = ``predict_mean``) and delta (``W @ one_hot(C)`` = ``category_scores``)
        embeddings; the tests check both identities against the library methods.
        """
        return ConditionalMeanEmbedding(
            kernel="rbf",
            gamma=self.p["input_gamma"],
            output_kernel="rbf",
            output_gamma=self.p["output_gamma"],
            alpha=lam,
        ).fit(self.X[:, None], self.Y)

    def metrics(self, cme):
        """One row of the λ table, and the per-query-point values for the figure."""
        n_query, n_val = len(self.x_query), len(self.X_val)
        W_all = cme.weights(self.points[:, None])
        W, W_val, W_contrast = np.split(W_all, [n_query, n_query + n_val])
        mean = W @ self.Y  # the embedding under the linear output kernel (predict_mean)
        scores = W @ self.members  # the embedding under the delta kernel (category_scores)
        mmd = np.sqrt(mmd_squared(W, self.L, self.truth_query, self.norm_query))
        sums = W.sum(axis=1)

        # held-out embedding losses ‖ψ(y_j) − μ̂_{x_j}‖² and excess ‖μ̂_{x_j} − μ_{x_j}‖²
        mean_val, scores_val = W_val @ self.Y, W_val @ self.members
        quadratic = np.sum((W_val @ self.L) * W_val, axis=1)
        losses = {
            "gaussian": 1.0 - 2.0 * np.sum(W_val * self.cross_val, axis=1) + quadratic,
            "linear": (self.Y_val - mean_val) ** 2,
            "delta": np.sum((_one_hot(self.C_val) - scores_val) ** 2, axis=1),  # Brier score
        }
        excess = {
            "gaussian": mmd_squared(W_val, self.L, self.truth_val, self.norm_val),
            "linear": mean_val**2,  # the true conditional mean is 0
            "delta": np.sum((scores_val - self.p_val) ** 2, axis=1),
        }
        difference = W_contrast[0] - W_contrast[1]
        row = {
            "mean_weight_sum": float(sums.mean()),
            "mean_abs_weight_sum_minus_one": float(np.abs(sums - 1.0).mean()),
            "share_negative_weights": float(np.mean(W < 0.0)),
            "negative_weight_mass": float(np.clip(-W, 0.0, None).sum(axis=1).mean()),
            "min_weight": float(W.min()),
            "mmd_error": float(np.sqrt(np.mean(mmd**2))),
            "mmd_error_ratio": float(np.sqrt(np.mean(mmd**2)) / self.rms_true_pairs),
            "mean_error_linear": float(np.sqrt(np.mean(mean**2))),
            "category_abs_error": float(np.abs(scores - self.p_query).mean()),
            "min_category_score": float(scores.min()),
            "share_negative_category_scores": float(np.mean(scores < 0.0)),
            "contrast_mmd_predicted": float(np.sqrt(max(difference @ self.L @ difference, 0.0))),
            "contrast_linear_predicted": float(abs(difference @ self.Y)),
        }
        for kernel in OUTPUT_KERNELS:
            gap, gap_se = _decomposition(losses[kernel], self.irreducible[kernel], excess[kernel])
            row[f"heldout_loss_{kernel}"] = float(losses[kernel].mean())
            row[f"heldout_excess_{kernel}"] = float(excess[kernel].mean())
            row[f"decomposition_gap_{kernel}"] = gap
            row[f"decomposition_se_{kernel}"] = gap_se
        query = pd.DataFrame(
            {
                "x": self.x_query,
                "weight_sum": sums,
                "min_weight": W.min(axis=1),
                "mean_linear": mean,
                "sd_true": conditional_sd(self.x_query, self.p["noise_sd"]),
                "mmd_error": mmd,
            }
        )
        for c in range(N_CLASSES):
            query[f"score_{c}"] = scores[:, c]
            query[f"p_{c}"] = self.p_query[:, c]
        return row, query

    def curves(self, cme):
        """Predicted and true embeddings μ(y) at ``display_x``, on a grid of y."""
        y_eval = np.linspace(-3.5, 3.5, self.p["n_eval"])
        display = np.asarray(self.p["display_x"], dtype=float)
        predicted = cme.embedding(display[:, None], y_eval)  # Σ_i α_i(x) l(y_i, y)
        truth = true_embedding(display, y_eval, **self.law)
        return pd.concat(
            [
                pd.DataFrame({"x": x0, "y": y_eval, "predicted": predicted[k], "true": truth[k]})
                for k, x0 in enumerate(display)
            ],
            ignore_index=True,
        )

    def weights(self, cme):
        """α_i(x) against x_i for the query points ``weights_x``."""
        shown = np.asarray(self.p["weights_x"], dtype=float)
        W = cme.weights(shown[:, None])
        return pd.concat(
            [
                pd.DataFrame({"x_query": x0, "x_train": self.X, "weight": W[k]})
                for k, x0 in enumerate(shown)
            ],
            ignore_index=True,
        )


def _repetition(rep, *, seed, p):
    """All λ for one training sample: a list of table rows and, for rep 0, figure data."""
    data = _Repetition(rep, seed, p)
    rows, figure = [], {"query": [], "curves": [], "weights": []}
    for lam in p["lambdas"]:
        cme = data.fit(lam)
        row, query = data.metrics(cme)
        rows.append({"repetition": rep, "lambda": lam, **row})
        if rep == 0:
            figure["query"].append(query.assign(**{"lambda": lam}))
            figure["curves"].append(data.curves(cme).assign(**{"lambda": lam}))
            figure["weights"].append(data.weights(cme).assign(**{"lambda": lam}))
    if rep > 0:
        return rows, None
    figure = {key: pd.concat(value, ignore_index=True) for key, value in figure.items()}
    figure["sample"] = pd.DataFrame({"x": data.X, "y": data.Y, "c": data.C})
    figure["operator"] = _operator_check(data.X, data.Y, data.x_query, p)
    return rows, figure


def _operator_check(X, Y, x_query, p):
    r"""Covariance-operator form with explicit feature maps, and the factor n of nλ.

    Input kernel :math:`(g x x' + 1)^2` with :math:`\varphi(x) = (1, \sqrt{2g}x, g x^2)`,
    output kernel :math:`(y y' + 1)^2` with :math:`\psi(y) = (1, \sqrt2 y, y^2)` (its
    embedding holds the first two conditional moments). λ is the largest of the grid, where
    regularisation matters most, so that losing the factor n is visible.
    """
    lam, g, n = float(max(p["lambdas"])), 2.0, len(X)

    def phi(x):
        return np.column_stack([np.ones_like(x), np.sqrt(2.0 * g) * x, g * x**2])

    Psi = np.column_stack([np.ones_like(Y), np.sqrt(2.0) * Y, Y**2])
    Phi, Phi_query = phi(X), phi(x_query)
    C_xx, C_yx = Phi.T @ Phi / n, Psi.T @ Phi / n  # empirical covariance operators
    operator = np.linalg.solve(C_xx + lam * np.eye(3), Phi_query.T).T @ C_yx.T
    kernel = {"kernel": "poly", "degree": 2, "gamma": g, "coef0": 1.0}
    cme = ConditionalMeanEmbedding(**kernel, alpha=lam).fit(X[:, None], Y)
    weighted = cme.weights(x_query[:, None]) @ Psi  # Σ_i α_i(x) ψ(y_i)

    def kernel_ridge(alpha):  # vector-valued KRR of ψ(Y) on X, diagonal load alpha
        return KernelRidge(**kernel, alpha=alpha).fit(X[:, None], Psi).predict(x_query[:, None])

    return {
        "lambda": lam,
        "prediction_scale": float(np.abs(weighted).max()),
        "operator_max_abs_difference": float(np.abs(weighted - operator).max()),
        "kernel_ridge_n_lambda_max_abs_difference": float(
            np.abs(weighted - kernel_ridge(n * lam)).max()
        ),
        "kernel_ridge_lambda_max_abs_difference": float(np.abs(weighted - kernel_ridge(lam)).max()),
    }


def run_experiment(*, seed, **params):
    """Run the experiment: every λ of the grid on ``n_repetitions`` independent samples.

    Parameters
    ----------
    seed : int
        Config seed; repetition ``r`` draws its training sample from
        ``generator(seed, "cme", "train", r)`` and its held-out sample from
        ``generator(seed, "cme", "heldout", r)``.
    **params
        Overrides of :data:`DEFAULTS`: ``n_train``, ``n_heldout`` (held-out points for the
        embedding losses), ``n_query`` (grid on [0, 1] for the errors), ``n_repetitions``,
        ``lambdas`` (the λ of α(x) = (K + nλI)⁻¹k_x), ``input_gamma`` (RBF on X),
        ``output_gamma`` (Gaussian output kernel), ``noise_sd`` (s), ``contrast_x`` (two x
        whose laws are compared), ``display_x`` (x of the embedding curves), ``weights_x``
        (query points whose weights are kept), ``n_eval`` (output points of the curves).

    Returns
    -------
    results : dict of pandas.DataFrame
        ``table`` — one row per λ: means over repetitions, ``*_sd`` columns, ``n_reps``,
        ``selected_<kernel>`` flags (λ of least held-out embedding loss per output kernel);
        ``claims`` — measured quantities per claim (claim, quantity, value, sd);
        ``runs`` — one row per (λ, repetition) with the λ table's metrics (the per-repetition
        values the tested claims read);
        ``sample`` (x, y, c), ``query`` (per λ and query x: weight sum, mean, MMD error,
        category scores and true probabilities), ``curves`` (predicted and true embedding
        at ``display_x``), ``weights`` (α_i(x) at ``weights_x``) — figure data from
        repetition 0.
    """
    unknown = set(params) - set(DEFAULTS)
    if unknown:
        raise ValueError(
            f"Unknown cme parameter(s) {sorted(unknown)}; expected {sorted(DEFAULTS)}."
        )
    p = {**DEFAULTS, **params}
    p["lambdas"] = tuple(sorted(float(v) for v in p["lambdas"]))
    if len(p["lambdas"]) < 2 or p["lambdas"][0] <= 0:
        raise ValueError(f"lambdas must hold at least two positive values, got {p['lambdas']}.")
    if len(p["contrast_x"]) != 2:
        raise ValueError(f"contrast_x must hold two points, got {p['contrast_x']!r}.")
    if p["n_repetitions"] < 2:
        raise ValueError(f"n_repetitions must be at least 2, got {p['n_repetitions']!r}.")
    rows, figure = [], None
    for rep in range(p["n_repetitions"]):
        rep_rows, rep_figure = _repetition(rep, seed=seed, p=p)
        rows += rep_rows
        if rep == 0:
            figure = rep_figure
    table = aggregate(rows)
    operator = figure.pop("operator")
    runs = pd.DataFrame(rows).sort_values(["lambda", "repetition"], kind="stable")
    return {
        "table": table,
        "claims": claims_table(table, operator, p),
        "runs": runs.reset_index(drop=True),
        **figure,
    }


def run(job, log):
    """Job ``cme_run``: the experiment at the config's settings → the λ table, the claims
    table, the per-repetition table and the figure data (CSV each)."""
    results = run_experiment(seed=job.params.seed, **job.params.settings)
    for name in ("table", "claims", "runs", "sample", "query", "curves", "weights"):
        atomic_write_text(job.output[name], results[name].to_csv(index=False))
