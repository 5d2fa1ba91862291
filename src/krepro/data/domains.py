r"""Synthetic multi-domain classification data of the DCM paper (Table 3, Fig. 2).

Each of ``n_domains`` domains draws :math:`n_i \sim \mathrm{Poisson}(\text{mean size})`
points :math:`x \sim N(0, \Sigma_i)` in :math:`\mathbb R^d` with
:math:`\Sigma_i \sim \mathcal W(\eta I_d, \text{df})` (``scipy.stats.wishart(df, ηI)``,
:math:`E\Sigma_i = \text{df}\,\eta I`, MATLAB ``wishrnd``'s parameterisation). Labels follow
one function for all domains (the paper's bracket typo resolved):

.. math:: y = \mathrm{sgn}\big(\mathrm{sgn}(b_1^\top x + \varepsilon_1)
          \log|b_2^\top x + \varepsilon_2 + c|\big), \qquad \mathrm{sgn}(0) := +1,

:math:`\varepsilon_1, \varepsilon_2 \sim N(0, 1)` per point, :math:`b_1, b_2 \sim N(0, I_d)`
drawn once per data set and **not** normalised, :math:`c = 1` (unit-norm ``b`` make every
method chance-level; note §6.1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import wishart

__all__ = ["DomainSample", "domain_sample", "split_domains"]


@dataclass(frozen=True)
class DomainSample:
    """Features ``X``, labels ``y`` in {-1, +1}, domain ids ``domains``; weights ``b1, b2``."""

    X: np.ndarray
    y: np.ndarray
    domains: np.ndarray
    b1: np.ndarray
    b2: np.ndarray
    covariances: np.ndarray


def _sign(v):
    return np.where(v >= 0, 1, -1)


def domain_sample(
    rng, *, n_domains=10, mean_size=100, dim=10, eta=0.1, df=10, c=1.0, normalize_b=False
):
    """One synthetic data set of ``n_domains`` domains (see the module docstring)."""
    b1 = rng.standard_normal(dim)
    b2 = rng.standard_normal(dim)
    if normalize_b:
        b1, b2 = b1 / np.linalg.norm(b1), b2 / np.linalg.norm(b2)
    blocks, labels, ids, covariances = [], [], [], []
    for domain in range(n_domains):
        size = max(int(rng.poisson(mean_size)), 1)
        cov = np.atleast_2d(wishart(df=df, scale=eta * np.eye(dim)).rvs(random_state=rng))
        x = rng.multivariate_normal(np.zeros(dim), cov, size=size, method="cholesky")
        noise = rng.standard_normal((size, 2))
        inner = np.abs(x @ b2 + noise[:, 1] + c)
        y = _sign(_sign(x @ b1 + noise[:, 0]) * np.log(np.maximum(inner, 1e-300)))
        blocks.append(x)
        labels.append(y)
        ids.append(np.full(size, domain))
        covariances.append(cov)
    return DomainSample(
        X=np.vstack(blocks),
        y=np.concatenate(labels),
        domains=np.concatenate(ids),
        b1=b1,
        b2=b2,
        covariances=np.array(covariances),
    )


def split_domains(domains, n_train, rng):
    """Training mask of a random split of the domains: ``n_train`` domains train."""
    ids = np.unique(domains)
    if not 0 < n_train < len(ids):
        raise ValueError(f"n_train must lie in (0, {len(ids)}), got {n_train}.")
    return np.isin(domains, rng.permutation(ids)[:n_train])
