"""The rates study gives the numbers it gave before its speed-up (the error using each
query's own cell, the series for the cells' pair sums and the low-rank GCV of the CME): its
records and embedding errors, against the fixture of tests/studies/speedup_regression.py."""

from __future__ import annotations

import numpy as np

from krepro.studies.rates.run import run_setting
from tests.studies.speedup_regression import ATOL, FIXTURE, RTOL, assert_records_equal, make


def test_rates_records_are_unchanged():
    settings = FIXTURE["rates"]["settings"]
    records = [r for s in make.SETTINGS for r in run_setting(seed=7, setting=s, settings=settings)]
    assert_records_equal(records, FIXTURE["rates"]["records"])


def test_embedding_errors_are_unchanged():
    got = make._embedding_errors()
    for key, expected in FIXTURE["rates"]["embedding_errors"].items():
        np.testing.assert_allclose(got[key], expected, rtol=RTOL, atol=ATOL, err_msg=key)
