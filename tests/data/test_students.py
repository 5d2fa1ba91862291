"""Students generator (krepro.data.students, §7.1)."""

import numpy as np
import pytest

from krepro.data.students import students_sample
from krepro.seeding import generator

PAPER = dict(
    theta=2.0, mu=2.5, sigma=0.5, low=1.0, high=4.0, shift_probability=0.9, y0_divisor=4.0,
    s_sampling="bernoulli", true_label="threshold",
)  # fmt: skip
CODE = {**PAPER, "theta": 2.5, "s_sampling": "balanced", "true_label": "noisy_threshold"}


def test_paper_generator_follows_the_data_model():
    sample = students_sample(generator(0, "t"), 20000, **PAPER)
    X, S = sample.X[:, 0], sample.S
    assert abs(S.mean() - 0.5) < 0.02  # Bernoulli(½)
    # X = X0 − B (S = 0) or X0 + B (S = 1), X0 ∈ [1, 4], B ~ Bernoulli(0.9)
    assert X[S == 0].min() >= 0 and X[S == 0].max() <= 4
    assert X[S == 1].min() >= 1 and X[S == 1].max() <= 5
    assert X[S == 1].mean() - X[S == 0].mean() == pytest.approx(2 * 0.9, abs=0.05)
    # observed labels: Y0 · 1{X + S ≥ θ}; never positive below the threshold
    assert not np.any(sample.y[(X + S) < 2.0])
    # true labels 1{X0 ≥ 2}: P(X0 ≥ 2) for TN(2.5, 0.5) on [1, 4] ≈ 0.84
    assert sample.y_true.mean() == pytest.approx(0.84, abs=0.02)
    # E[Y0] = E[X0]/4 ≈ 2.5/4: the typo resolution makes Y0 non-degenerate
    assert sample.y[(X + S) >= 4.5].mean() == pytest.approx(0.7, abs=0.1)


def test_verbatim_typo_gives_degenerate_y0():
    sample = students_sample(generator(0, "t"), 2000, **{**PAPER, "y0_divisor": 1.0})
    X, S = sample.X[:, 0], sample.S
    np.testing.assert_array_equal(sample.y, (X + S >= 2.0).astype(int))  # Y0 ≡ 1


def test_code_generator():
    sample = students_sample(generator(0, "t"), 1000, **CODE)
    np.testing.assert_array_equal(sample.S, np.repeat([0, 1], 500))  # balanced, sorted
    # the code's "true" label keeps the Bernoulli noise: Y0 · 1{X0 ≥ 2.5} ≤ 1{X0 ≥ 2.5}
    assert 0.2 < sample.y_true.mean() < 0.5


def test_generator_rejects_unknown_options():
    with pytest.raises(ValueError, match="s_sampling"):
        students_sample(generator(0), 10, **{**PAPER, "s_sampling": "coin"})
