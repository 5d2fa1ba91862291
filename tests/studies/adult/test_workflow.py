"""The adult study through snakemake (tiny config): the fast lane's end-to-end run of its
target, and its readings in the tiny run. The helpers and the tiny run:
tests/workflow/test_workflow.py and tests/conftest.py."""

from __future__ import annotations

import pandas as pd
import pytest

from krepro.studies import STUDIES
from tests.workflow.test_workflow import (
    PNG_SIGNATURE,
    TINY_CONFIG,
    job_stats,
    ok,
    snakemake,
)

pytestmark = pytest.mark.workflow


@pytest.mark.smoke
def test_one_study_runs_end_to_end(tmp_path):
    """The fast lane's end-to-end run: ``snakemake adult`` on the tiny config, from the UCI
    download (the offline mirror, checksums verified) through the fits to Table 1, its
    figure and its report section. The whole tiny run (every study and the report) is the
    workflow lane's ``tiny_run``."""
    out = ok(snakemake("adult", workdir=tmp_path, config=TINY_CONFIG))
    stats = job_stats(out)
    assert {"adult_fit", "adult_summary", "adult"} <= set(stats), out
    assert not set(stats) & {"report", "all"}, out  # the target, not the default
    for path in (*STUDIES["adult"].outputs, STUDIES["adult"].section):
        assert (tmp_path / "results" / path).stat().st_size > 0, path
    assert (tmp_path / "results/figures/adult_table1.png").read_bytes()[:8] == PNG_SIGNATURE
    table = pd.read_csv(tmp_path / "results/tables/adult_table1.csv")
    assert len(table) > 0 and table.notna().any(axis=None)


def test_tiny_run_adult_primary_methods_only_in_the_primary_reading(tiny_run, tiny):
    adult = tiny["adult"]
    runs = pd.read_csv(tiny_run / "results/adult/adult.csv")
    primary = (adult["primary_protocol"], adult["primary_grid"])
    for (protocol, grid), methods in runs.groupby(["protocol", "grid"])["method"]:
        variants = {
            v["method"]
            for v in adult["variants"].values()
            if (v["protocol"], v["grid"]) == (protocol, grid)
        }
        expected = set(adult["methods"]) | variants
        if (protocol, grid) == primary:
            expected |= set(adult["primary_methods"])
        assert set(methods) == expected, (protocol, grid, sorted(set(methods)))
