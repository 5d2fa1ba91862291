r"""The synthetic "students" data of the oblivious-data paper (§7.1, Fig. 3).

Paper: S ~ Bernoulli(½); X0 truncated normal on [1, 4]; B ~ Bernoulli(0.9);
X = (X0 − B)·1{S=0} + (X0 + B)·1{S=1}; U ~ U[0, 1]; Y0 = 1{U ≤ X0}; observed label
Y = Y0·1{X + S ≥ θ} with θ = 2; "true" (fair) label 1{X0 ≥ θ} (eq. (13)).

Two points of the text cannot be used as written; each is resolved by a named parameter:

* ``Y0 = 1{U ≤ X0}`` is always 1 (X0 ≥ 1). ``y0_divisor = 4`` gives Y0 = 1{U ≤ X0/4}, i.e.
  Y0 ~ Bernoulli(X0/4), the law of the authors' code (``SVM_Example.py``); ``y0_divisor = 1``
  is the text verbatim.
* The truncated normal's mean and sd are not given: ``mu = 2.5, sigma = 0.5`` (the code's).

The authors' code further differs: S is exactly balanced (first half 0),
θ = 2.5, the "true" label keeps the Bernoulli noise (Y0·1{X0 ≥ θ}), and the oblivious kernel
sees [X, S]. These are the parameters of the ``authors_code`` variant in the config.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import truncnorm

__all__ = ["S_SAMPLING", "TRUE_LABELS", "StudentsSample", "students_sample"]

S_SAMPLING = ("bernoulli", "balanced")
TRUE_LABELS = ("threshold", "noisy_threshold")


@dataclass(frozen=True)
class StudentsSample:
    """One sample: grade X (n, 1), group S, observed label y and fair label y_true (0/1)."""

    X: np.ndarray
    S: np.ndarray
    y: np.ndarray
    y_true: np.ndarray

    def features(self, include_s):
        """[X] or [X, S] as a 2-d float array."""
        return np.hstack([self.X, self.S[:, None].astype(float)]) if include_s else self.X


def students_sample(
    rng,
    n,
    *,
    theta=2.0,
    mu=2.5,
    sigma=0.5,
    low=1.0,
    high=4.0,
    shift_probability=0.9,
    y0_divisor=4.0,
    s_sampling="bernoulli",
    true_label="threshold",
):
    """Draw ``n`` students.

    Parameters
    ----------
    rng : numpy.random.Generator
    n : int
    theta : float, default=2.0
        Pass threshold θ (paper 2, code 2.5).
    mu, sigma, low, high : float
        Truncated normal of X0 (support [low, high]).
    shift_probability : float, default=0.9
        P(B = 1).
    y0_divisor : float, default=4.0
        Y0 = 1{U ≤ X0 / y0_divisor} (see the module docstring).
    s_sampling : {"bernoulli", "balanced"}
        S ~ Bernoulli(½) (paper) or first ⌊n/2⌋ rows 0, the rest 1 (code).
    true_label : {"threshold", "noisy_threshold"}
        1{X0 ≥ θ} (paper, eq. (13)) or Y0·1{X0 ≥ θ} (code).
    """
    if s_sampling not in S_SAMPLING:
        raise ValueError(f"s_sampling must be one of {S_SAMPLING}, got {s_sampling!r}.")
    if true_label not in TRUE_LABELS:
        raise ValueError(f"true_label must be one of {TRUE_LABELS}, got {true_label!r}.")
    if s_sampling == "bernoulli":
        S = (rng.random(n) < 0.5).astype(int)
    else:
        S = (np.arange(n) >= n // 2).astype(int)
    a, b = (low - mu) / sigma, (high - mu) / sigma
    X0 = truncnorm.rvs(a, b, loc=mu, scale=sigma, size=n, random_state=rng)
    B = (rng.random(n) < shift_probability).astype(float)
    X = np.where(S == 0, X0 - B, X0 + B)
    Y0 = (rng.random(n) <= X0 / y0_divisor).astype(int)
    y = Y0 * (X + S >= theta)
    fair = (X0 >= theta).astype(int)
    y_true = fair * Y0 if true_label == "noisy_threshold" else fair
    return StudentsSample(X=X[:, None], S=S, y=y.astype(int), y_true=y_true.astype(int))
