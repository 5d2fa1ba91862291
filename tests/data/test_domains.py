"""Synthetic domains of the DCM experiments (krepro.data.domains)."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from krepro.data.domains import domain_sample, split_domains
from krepro.seeding import generator


@pytest.fixture(autouse=True)
def _one_blas_thread():
    """Small dense problems: BLAS threads only add contention on a shared box."""
    with threadpool_limits(1):
        yield


def test_domain_generator_sizes_balance_and_wishart_mean():
    rng = generator(0, "test")
    sizes, balance, covs = [], [], []
    for _ in range(20):
        sample = domain_sample(rng, n_domains=10, mean_size=100, dim=10, eta=0.2, df=10)
        sizes += list(np.bincount(sample.domains))
        balance.append(np.mean(sample.y == 1))
        covs.append(sample.covariances.mean(axis=0))
    # Poisson(100): mean 100, sd 10; 200 draws → se 0.7.
    assert np.mean(sizes) == pytest.approx(100, abs=3)
    assert np.std(sizes) == pytest.approx(10, abs=2)
    assert set(np.unique(sample.y)) == {-1, 1}
    assert np.mean(balance) == pytest.approx(0.5, abs=0.05)
    # E[W(ηI, df)] = df η I = 2 I; 200 Wishart draws: se of a diagonal entry ≈ 0.06.
    mean_cov = np.mean(covs, axis=0)
    np.testing.assert_allclose(np.diag(mean_cov), 2.0, atol=0.3)
    assert np.abs(mean_cov - np.diag(np.diag(mean_cov))).max() < 0.3


def test_split_domains_keeps_domains_whole():
    sample = domain_sample(generator(0, "split"), n_domains=10, mean_size=20, dim=3)
    train = split_domains(sample.domains, 7, generator(0, "split", 1))
    assert len(np.unique(sample.domains[train])) == 7
    assert not set(sample.domains[train]) & set(sample.domains[~train])
