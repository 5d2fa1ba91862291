"""The dcm_synthetic study through snakemake (tiny config): its config refused before any
job, in a dry run and a real one. The helpers: tests/workflow/test_workflow.py."""

from __future__ import annotations

import pytest

from tests.workflow.test_workflow import assert_rejected_before_any_job

pytestmark = pytest.mark.workflow


def _as_many_training_domains_as_domains(config):
    config["dcm_synthetic"]["n_train_domains"] = config["dcm_synthetic"]["n_domains"]
    return [r"dcm_synthetic\.n_train_domains", r"dcm_synthetic\.n_domains"]


# A refusal in a dry run and in a real run (the checks run when the Snakefile is parsed,
# before any job, with or without -n).
@pytest.mark.parametrize(
    ("break_config", "dry_run"),
    [(_as_many_training_domains_as_domains, True), (_as_many_training_domains_as_domains, False)],
    ids=["domains", "domains-run"],
)
def test_invalid_config_is_rejected_before_any_job(break_config, dry_run, tiny, tmp_path):
    assert_rejected_before_any_job(break_config, dry_run, tiny, tmp_path)
