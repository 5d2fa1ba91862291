"""Errors of the E[φ(X)|S] estimators against n for one setting (all sizes, repetitions)."""

from krepro.experiments.rates import run_setting
from krepro.workflow.records import write_records
from krepro.workflow.runtime import job

with job(snakemake) as log:
    records = run_setting(
        seed=snakemake.params.seed,
        setting=snakemake.wildcards.setting,
        settings=snakemake.params.settings,
    )
    log.info("%d records", len(records))
    write_records(
        snakemake.output[0], records, rule=snakemake.rule, wildcards=dict(snakemake.wildcards)
    )
