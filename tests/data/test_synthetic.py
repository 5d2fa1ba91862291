"""Synthetic data laws (krepro.data.synthetic): ground truth of the ridge and illustration
samples, the two-dimensional sensitive model."""

import numpy as np
import pytest

from krepro.data.synthetic import ridge_best_constant_mse, ridge_sample, uniform_moment
from krepro.seeding import generator


def test_two_dimensional_sensitive_model():
    sample = ridge_sample(
        generator(0, "t"), 20, gamma=0.0, experiment=2, noise_variance=0.0, sensitive_dim=2
    )
    assert sample.S.shape == (20, 2)
    s_bar = sample.S.sum(axis=1) / np.sqrt(2)
    np.testing.assert_allclose(sample.X[:, 0], s_bar)
    np.testing.assert_allclose(sample.y, s_bar**2 + np.mean(sample.S**2, axis=1))


def test_best_constant_closed_form_matches_monte_carlo():
    # Var(S²) for S ~ U[-5, 5] is 125 − (25/3)² = 500/9; check the formula and a simulation.
    assert uniform_moment(2, -5.0, 5.0) == pytest.approx(25 / 3)
    assert ridge_best_constant_mse(1, 0.1) == pytest.approx(500 / 9 + 0.1)
    assert ridge_best_constant_mse(2, 0.1) == pytest.approx(2000 / 9 + 0.1)
    sample = ridge_sample(generator(0, "mc"), 400_000, gamma=0.0, experiment=2, noise_variance=0.1)
    # Monte-Carlo sd of Var(Y) with 4e5 draws is ≈ 0.4 here; 1.5 is ~4 sd.
    assert np.var(sample.y) == pytest.approx(ridge_best_constant_mse(2, 0.1), abs=1.5)


def test_ridge_sample_follows_the_data_model():
    sample = ridge_sample(generator(1, "t"), 50, gamma=0.3, experiment=2, noise_variance=0.0)
    # Without noise Y = X² + S² exactly, and X = γU + (1 − γ)S stays inside [-5, 5].
    np.testing.assert_allclose(sample.y, sample.X[:, 0] ** 2 + sample.S**2)
    assert np.all(np.abs(sample.X) <= 5.0)
    with pytest.raises(ValueError, match="gamma"):
        ridge_sample(generator(1, "t"), 5, gamma=1.5, experiment=1, noise_variance=0.1)
    with pytest.raises(ValueError, match="experiment"):
        ridge_sample(generator(1, "t"), 5, gamma=0.5, experiment=3, noise_variance=0.1)
