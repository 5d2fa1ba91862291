r"""The conditional law of the CME experiment and its closed forms.

* :math:`X \sim U[0, 1]`;
* a real response :math:`Y \mid X = x \sim \tfrac12 N(-2x, s^2) + \tfrac12 N(2x, s^2)`: its
  mean is 0 for every x, while its spread (:math:`\operatorname{Var} = 4x^2 + s^2`) and shape
  (unimodal near 0, bimodal near 1) change with x;
* a categorical response :math:`C \mid X = x \sim \operatorname{Binomial}(2, x)`, i.e. class
  probabilities :math:`p(x) = ((1-x)^2,\ 2x(1-x),\ x^2)`.

With the Gaussian output kernel :math:`l(y, y') = \exp(-\gamma_l (y-y')^2)` the true
conditional embedding and all inner products are Gaussian integrals,
:math:`E\exp(-\gamma Z^2) = (1+2\gamma\sigma^2)^{-1/2}\exp(-\gamma m^2/(1+2\gamma\sigma^2))`
for :math:`Z \sim N(m, \sigma^2)`, so the MMD between a predicted embedding
:math:`\hat\mu_{Y|x} = \sum_i \alpha_i(x)\psi(y_i)` and the truth is exact:
:math:`\lVert\hat\mu - \mu_x\rVert^2 = \alpha^\top L\alpha - 2\sum_i\alpha_i\mu_x(y_i) +
\lVert\mu_x\rVert^2`.
"""

from __future__ import annotations

import numpy as np

from krepro.kernels import gram

__all__ = [
    "MODE_SLOPE",
    "N_CLASSES",
    "class_probabilities",
    "conditional_sd",
    "gaussian_expectation",
    "marginal_sd",
    "mmd_squared",
    "mmd_to_truth",
    "sample",
    "true_embedding",
    "true_embedding_inner",
    "true_mmd",
    "true_norm_sq",
]

MODE_SLOPE = 2.0  # mixture components at ±2x
N_CLASSES = 3


def marginal_sd(noise_sd):
    r"""Standard deviation of Y over X ~ U[0, 1]: :math:`\sqrt{4/3 + s^2}` (E[4X²] = 4/3)."""
    return float(np.sqrt(MODE_SLOPE**2 / 3.0 + noise_sd**2))


def class_probabilities(x):
    """:math:`p(x) = ((1-x)^2, 2x(1-x), x^2)`, the law of :math:`C = \\mathrm{Binomial}(2, x)`.

    Returns an array of shape ``(len(x), 3)``.
    """
    x = np.asarray(x, dtype=float)
    return np.column_stack([(1.0 - x) ** 2, 2.0 * x * (1.0 - x), x**2])


def conditional_sd(x, noise_sd):
    """Standard deviation of Y given X = x: :math:`\\sqrt{4x^2 + s^2}` (the mean is 0)."""
    return np.sqrt((MODE_SLOPE * np.asarray(x, dtype=float)) ** 2 + noise_sd**2)


def sample(rng, n, noise_sd):
    """Draw ``n`` triples (X, Y, C) from the law of the module docstring.

    Returns
    -------
    X, Y, C : ndarrays of shape (n,); C holds the integers 0, 1, 2.
    """
    X = rng.uniform(0.0, 1.0, size=n)
    sign = np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0)
    Y = sign * MODE_SLOPE * X + noise_sd * rng.normal(size=n)
    C = (rng.uniform(size=(n, 2)) < X[:, None]).sum(axis=1)  # two Bernoulli(x) trials
    return X, Y, C


def gaussian_expectation(mean, variance, gamma):
    r""":math:`E\exp(-\gamma Z^2)` for :math:`Z \sim N(\text{mean}, \text{variance})`."""
    scale = 1.0 + 2.0 * gamma * variance
    return np.exp(-gamma * np.asarray(mean) ** 2 / scale) / np.sqrt(scale)


def true_embedding(x, y, *, output_gamma, noise_sd):
    r"""True conditional embedding evaluated at output points, :math:`\mu_x(y) = E[l(Y, y)|x]`.

    Returns an array of shape ``(len(x), len(y))``.
    """
    x = np.asarray(x, dtype=float)[:, None]
    y = np.asarray(y, dtype=float)[None, :]
    variance = noise_sd**2
    return 0.5 * (
        gaussian_expectation(y - MODE_SLOPE * x, variance, output_gamma)
        + gaussian_expectation(y + MODE_SLOPE * x, variance, output_gamma)
    )


def true_embedding_inner(x_a, x_b, *, output_gamma, noise_sd):
    r""":math:`\langle\mu_{x_a}, \mu_{x_b}\rangle = E\,l(Y, Y')` with independent
    :math:`Y \sim P_{Y|x_a}`, :math:`Y' \sim P_{Y|x_b}`; shape ``(len(x_a), len(x_b))``."""
    a = MODE_SLOPE * np.asarray(x_a, dtype=float)[:, None]
    b = MODE_SLOPE * np.asarray(x_b, dtype=float)[None, :]
    variance = 2.0 * noise_sd**2  # Y − Y' adds the two component variances
    total = sum(
        gaussian_expectation(sa * a - sb * b, variance, output_gamma)
        for sa in (-1.0, 1.0)
        for sb in (-1.0, 1.0)
    )
    return 0.25 * total


def true_norm_sq(x, *, output_gamma, noise_sd):
    r""":math:`\lVert\mu_x\rVert^2 = \langle\mu_x, \mu_x\rangle` for each x (the diagonal of
    :func:`true_embedding_inner` without the full matrix); shape ``(len(x),)``."""
    x = np.asarray(x, dtype=float)
    # ⟨μ_x, μ_x⟩ for each x without forming the full matrix
    a = MODE_SLOPE * x
    variance = 2.0 * noise_sd**2
    return 0.5 * (
        gaussian_expectation(0.0, variance, output_gamma)
        + gaussian_expectation(2.0 * a, variance, output_gamma)
    )


def true_mmd(x_a, x_b, *, output_gamma, noise_sd):
    r"""MMD :math:`\lVert\mu_{x_a} - \mu_{x_b}\rVert` between true conditional laws, all pairs."""
    options = {"output_gamma": output_gamma, "noise_sd": noise_sd}
    squared = (
        true_norm_sq(x_a, **options)[:, None]
        + true_norm_sq(x_b, **options)[None, :]
        - 2.0 * true_embedding_inner(x_a, x_b, **options)
    )
    return np.sqrt(np.clip(squared, 0.0, None))


def mmd_squared(weights, output_gram, truth_at_train, truth_norm_sq):
    r"""Squared MMD :math:`\alpha^\top L\alpha - 2\sum_i\alpha_i\mu_x(y_i) + \lVert\mu_x\rVert^2`
    per row of ``weights`` (clipped at 0 against round-off).

    Parameters
    ----------
    weights : ndarray of shape (k, n)
        :math:`\alpha(x)` for k query points.
    output_gram : ndarray of shape (n, n)
        :math:`L = (l(y_i, y_j))`.
    truth_at_train : ndarray of shape (k, n)
        :math:`\mu_x(y_i)` (:func:`true_embedding`).
    truth_norm_sq : ndarray of shape (k,)
        :math:`\lVert\mu_x\rVert^2` (:func:`true_norm_sq`).
    """
    quadratic = np.sum((weights @ output_gram) * weights, axis=1)
    return np.clip(
        quadratic - 2.0 * np.sum(weights * truth_at_train, axis=1) + truth_norm_sq, 0.0, None
    )


def mmd_to_truth(weights, Y_train, x_query, *, output_gamma, noise_sd):
    r"""MMD between :math:`\hat\mu_{Y|x} = \sum_i\alpha_i(x)\psi(y_i)` and :math:`\mu_{Y|x}`.

    :math:`\lVert\hat\mu - \mu\rVert^2 = \alpha^\top L\alpha - 2\sum_i\alpha_i\mu_x(y_i) +
    \lVert\mu_x\rVert^2`, one value per row of ``weights`` (query point ``x_query[k]``).
    """
    law = {"output_gamma": output_gamma, "noise_sd": noise_sd}
    squared = mmd_squared(
        weights,
        gram(Y_train, None, "rbf", gamma=output_gamma),
        true_embedding(x_query, Y_train, **law),
        true_norm_sq(x_query, **law),
    )
    return np.sqrt(squared)
