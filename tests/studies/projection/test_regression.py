"""The projection study gives the numbers it gave before its speed-up (the pre-image search
carrying the current point's value over, sharing candidates and using
:class:`krepro.fairness.projection.RBFKernel`): its records and the search itself, against
the fixture of tests/studies/speedup_regression.py."""

from __future__ import annotations

import numpy as np
import pytest

from krepro.fairness.projection import project_onto_manifold
from krepro.studies.projection.run import run_gamma
from tests.studies.speedup_regression import ATOL, FIXTURE, RTOL, assert_records_equal, make


def test_projection_records_are_unchanged():
    settings = FIXTURE["projection"]["settings"]
    records = [r for g in settings["gammas"] for r in run_gamma(seed=7, gamma=g, settings=settings)]
    assert_records_equal(records, FIXTURE["projection"]["records"])


@pytest.mark.parametrize("name", ["partition", "cme", "two_dim"])
def test_projection_search_is_unchanged(name):
    expansion, low, high, n_grid, n_refine = make._expansions()[name]
    W, distances = project_onto_manifold(expansion, low, high, n_grid=n_grid, n_refine=n_refine)
    expected = FIXTURE["projection"]["search"][name]
    np.testing.assert_allclose(W, expected["W"], rtol=0, atol=ATOL)
    np.testing.assert_allclose(distances, expected["distances"], rtol=RTOL, atol=ATOL)
