"""`results_dir` and the ridge target: no rule of the quick scale produces a file of the
papers' scale. The shared tests: tests/workflow/test_results_dir.py."""

from __future__ import annotations

import pytest

from tests.workflow.test_workflow import snakemake

pytestmark = pytest.mark.workflow


def test_a_quick_scale_rule_does_not_produce_a_paper_scale_file():
    """The default config (results_dir: results) has no rule for a results/paper/ file."""
    target = "results/paper/ridge/runs/paper_text/experiment-1.json"
    result = snakemake("-n", target)
    assert result.returncode != 0, result.stdout
    assert "MissingRuleException" in result.stdout or "No rule to produce" in result.stdout
