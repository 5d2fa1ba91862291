"""The regression fixture of two speed-ups: the experiments give the numbers they gave before.

Expected values: ``tests/fixtures/projection_rates_regression.json``, a small fixture written by
``tests/fixtures/make_projection_rates_regression.py`` with the code of commit ddce698, i.e.
before the pre-image search carried the current point's value over, shared candidates and
used :class:`krepro.fairness.projection.RBFKernel`, and before the rates error used each query's own
cell, the series for the cells' pair sums and the low-rank GCV of the CME. The search makes
discrete choices (argmin over candidates), so W must agree exactly for the choices to
agree; the rates errors are sums formed in another order (round-off ~1e-16 relative,
amplified by the difference of O(1) terms that makes a squared error). Tolerance: 1e-10
relative (1e-12 absolute) on every number, 5e-9 on distance correlations (``DCOR_RTOL``).

The tests: ``tests/studies/<name>/test_regression.py`` of the two studies.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

DATA = Path(__file__).parents[1] / "fixtures"
FIXTURE = json.loads((DATA / "projection_rates_regression.json").read_text())
_spec = importlib.util.spec_from_file_location(
    "make_regression", DATA / "make_projection_rates_regression.py"
)
make = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make)

RTOL, ATOL = 1e-10, 1e-12
# Distance correlations are square roots of ratios of double-centred distance sums whose O(1)
# terms cancel: the BLAS kernels of another CPU move them by up to 6.3e-10 relative (measured
# on AMD EPYC with OpenBLAS's Haswell kernels against the fixture's machine), not by a choice.
DCOR_RTOL = 5e-9


def assert_records_equal(got, expected):
    assert len(got) == len(expected)
    for new, old in zip(got, expected, strict=True):
        new = {k: v for k, v in new.items() if k != "cpu_seconds"}
        assert set(new) == set(old)
        for key, value in old.items():
            if isinstance(value, float):
                rtol = DCOR_RTOL if key.startswith("dcor") else RTOL
                assert new[key] == pytest.approx(value, rel=rtol, abs=ATOL), key
            else:
                assert new[key] == value, key
