"""`results_dir` through the illustration target (a quick one): a bad value is refused
before anything is written, and two scales write only under their own results_dir and
coexist. The shared tests and helpers: tests/workflow/test_results_dir.py."""

from __future__ import annotations

import pytest

from tests.workflow.test_results_dir import files_under
from tests.workflow.test_workflow import TINY_CONFIG, ok, snakemake

pytestmark = pytest.mark.workflow


def test_workflow_refuses_a_bad_results_dir_before_writing_anything(tmp_path):
    """The same refusal through snakemake: named by the schema path, nothing written."""
    result = snakemake("-n", "illustration", "--config", "results_dir=../up", workdir=tmp_path)
    out = result.stdout
    assert result.returncode != 0, out
    assert "Job stats:" not in out, out
    assert "schema['properties']['results_dir']" in out, out
    assert not files_under(tmp_path)


@pytest.mark.slow
def test_scales_write_only_under_their_results_dir_and_coexist(tmp_path):
    """The illustration target at two results_dirs, one nested in the other as results/paper
    is in results/: each run writes only under its own; both stay up to date."""
    ok(snakemake("illustration", workdir=tmp_path, config=TINY_CONFIG))
    quick = files_under(tmp_path)
    assert quick and all(path.startswith("results/") for path in quick), sorted(quick)
    assert {
        "results/benchmarks/illustration_sample.tsv",
        "results/logs/illustration/summary.log",
    } <= quick

    paper = ("--config", "results_dir=results/paper")
    ok(snakemake("illustration", *paper, workdir=tmp_path, config=TINY_CONFIG))
    added = files_under(tmp_path) - quick
    assert added == {f"results/paper/{path.removeprefix('results/')}" for path in quick}
    record = (tmp_path / "results/paper/benchmarks/illustration_summary.tsv").read_text()
    assert {"s", "cpu_time"} <= set(record.splitlines()[0].split("\t"))

    for args in [(), paper]:
        out = ok(snakemake("-n", "illustration", *args, workdir=tmp_path, config=TINY_CONFIG))
        assert "Nothing to be done" in out, out
