r"""Synthetic data models of the oblivious-data paper (Grünewälder & Khaleghi, JMLR 2021).

* :func:`ridge_sample` — §7.2: :math:`S, U \sim U[-5, 5]` independent,
  :math:`X = \gamma U + (1-\gamma) S`; experiment 1 :math:`Y = X^2 + \varepsilon`, experiment 2
  :math:`Y = X^2 + S^2 + \varepsilon`, :math:`\varepsilon \sim N(0, \sigma^2)`;
  :func:`ridge_splits` — one such draw cut into the training, estimation, validation and
  test samples of the §7.2 protocol.
* :func:`illustration_sample` — Fig. 2: :math:`X = S + U` with :math:`S, U` independent
  uniforms.
* :func:`uniform_moment` / :func:`ridge_best_constant_mse` — closed-form quantities of the
  ridge data model, used for the reference line of Fig. 4.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

__all__ = [
    "ILLUSTRATION_SETTINGS",
    "RidgeSample",
    "illustration_sample",
    "ridge_best_constant_mse",
    "ridge_sample",
    "ridge_splits",
    "uniform_moment",
]

RIDGE_EXPERIMENTS = (1, 2)


@dataclass(frozen=True)
class RidgeSample:
    """One draw of the ridge data model: sensitive ``S``, features ``X``, responses ``y``."""

    S: np.ndarray
    X: np.ndarray
    y: np.ndarray

    def __len__(self):
        return len(self.y)

    def rows(self, start, stop):
        """The rows ``start:stop`` as a new sample."""
        return RidgeSample(self.S[start:stop], self.X[start:stop], self.y[start:stop])


def ridge_sample(rng, n, *, gamma, experiment, noise_variance, low=-5.0, high=5.0, sensitive_dim=1):
    r"""Draw ``n`` points of the §7.2 data model.

    Parameters
    ----------
    rng : numpy.random.Generator
    n : int
    gamma : float in [0, 1]
        Dependence parameter: :math:`X = \gamma U + (1-\gamma) S` (γ = 0: X = S; γ = 1: X ⊥ S).
    experiment : {1, 2}
        1: :math:`Y = X^2 + \varepsilon` (S → X → Y is a Markov chain); 2: :math:`Y = X^2 +
        S^2 + \varepsilon`.
    noise_variance : float
        :math:`\operatorname{Var}\varepsilon` (the paper: 0.1; the authors' code: 0.01).
    low, high : float
        Support of the uniform laws of S and U.
    sensitive_dim : int, default=1
        Dimension d of S (an extension; the paper has d = 1). For d > 1, S ~ U[low, high]^d
        enters as :math:`\bar S = \sum_k S_k / \sqrt d` (same variance as one coordinate):
        :math:`X = \gamma U + (1-\gamma)\bar S`, and experiment 2 adds
        :math:`\frac1d\sum_k S_k^2`. With d = 1 the draws are exactly the paper's model.
    """
    if experiment not in RIDGE_EXPERIMENTS:
        raise ValueError(f"experiment must be one of {RIDGE_EXPERIMENTS}, got {experiment!r}.")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must lie in [0, 1], got {gamma!r}.")
    S = rng.uniform(low, high, n if sensitive_dim == 1 else (n, sensitive_dim))
    U = rng.uniform(low, high, n)
    noise = rng.normal(0.0, np.sqrt(noise_variance), n)
    if sensitive_dim == 1:
        S_bar, S_squared = S, S**2
    else:
        S_bar, S_squared = S.sum(axis=1) / np.sqrt(sensitive_dim), np.mean(S**2, axis=1)
    X = gamma * U + (1.0 - gamma) * S_bar
    y = X**2 + noise if experiment == 1 else X**2 + S_squared + noise
    return RidgeSample(S=S, X=X[:, None], y=y)


def ridge_splits(rng, sizes, gamma, experiment, noise_variance, low, high, sensitive_dim=1):
    """Training, estimation, validation and test samples, in the paper's row order.

    One :func:`ridge_sample` of ``n_train + n_estimation + n_validation + n_test`` points
    (the keys of ``sizes``), cut into four :class:`RidgeSample` in that order.
    """
    n_split = sizes["n_train"] + sizes["n_estimation"]
    n_all = n_split + sizes["n_validation"] + sizes["n_test"]
    sample = ridge_sample(
        rng,
        n_all,
        gamma=gamma,
        experiment=experiment,
        noise_variance=noise_variance,
        low=low,
        high=high,
        sensitive_dim=sensitive_dim,
    )
    edges = np.cumsum(
        [0, sizes["n_train"], sizes["n_estimation"], sizes["n_validation"], sizes["n_test"]]
    )
    return [sample.rows(a, b) for a, b in itertools.pairwise(edges)]


def uniform_moment(k, low, high):
    r""":math:`E S^k` for :math:`S \sim U[\mathrm{low}, \mathrm{high}]`."""
    return (high ** (k + 1) - low ** (k + 1)) / ((k + 1) * (high - low))


def ridge_best_constant_mse(experiment, noise_variance, low=-5.0, high=5.0):
    r"""Smallest test MSE of a predictor that is independent of S, at γ = 0.

    At γ = 0, X = S, so a predictor independent of S is a constant c; the best one is
    c = E Y and its MSE is :math:`\operatorname{Var}(Y)`: :math:`\operatorname{Var}(S^2) +
    \sigma^2` in experiment 1 (Y = S² + ε) and :math:`4\operatorname{Var}(S^2) + \sigma^2` in
    experiment 2 (Y = 2S² + ε). For S ~ U[−5, 5], Var(S²) = 125 − (25/3)² = 500/9.
    """
    var_s2 = uniform_moment(4, low, high) - uniform_moment(2, low, high) ** 2
    scale = {1: 1.0, 2: 4.0}[experiment]
    return scale * var_s2 + noise_variance


@dataclass(frozen=True)
class IllustrationSetting:
    """One panel pair of Fig. 2: X = S + U, S ~ U[s_low, s_high], U ~ U[u_low, u_high]."""

    name: str
    s_low: float
    s_high: float
    u_low: float
    u_high: float
    h: object  # the function plotted, h(x)
    h_label: str
    conditional_mean: object  # E[h(X) | S = s], closed form


ILLUSTRATION_SETTINGS = {
    "quadratic": IllustrationSetting(
        name="quadratic",
        s_low=0.0,
        s_high=1.0,
        u_low=-0.5,
        u_high=0.5,
        h=np.square,
        h_label="h1(x) = x²",
        # E[(s + U)²] = s² + Var U, U ~ U[-1/2, 1/2]
        conditional_mean=lambda s: s**2 + 1.0 / 12.0,
    ),
    "sine": IllustrationSetting(
        name="sine",
        s_low=0.0,
        s_high=2.0 * np.pi,
        u_low=0.0,
        u_high=np.pi / 2.0,
        h=np.sin,
        h_label="h2(x) = sin(x)",
        # E[sin(s + U)] = (cos s − cos(s + π/2)) / (π/2) = (2/π)(cos s + sin s)
        conditional_mean=lambda s: 2.0 / np.pi * (np.cos(s) + np.sin(s)),
    ),
}


def illustration_sample(rng, n, setting):
    """Draw ``n`` points (S, X) of one Fig. 2 setting (a key of ``ILLUSTRATION_SETTINGS``)."""
    spec = ILLUSTRATION_SETTINGS[setting]
    S = rng.uniform(spec.s_low, spec.s_high, n)
    U = rng.uniform(spec.u_low, spec.u_high, n)
    return S, S + U
