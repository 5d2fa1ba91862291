"""Projection of the oblivious features onto M for one γ (all repetitions)."""

from krepro.experiments.projection import run_gamma
from krepro.workflow.records import write_records
from krepro.workflow.runtime import job

with job(snakemake) as log:
    records = run_gamma(
        seed=snakemake.params.seed,
        gamma=float(snakemake.wildcards.gamma),
        settings=snakemake.params.settings,
    )
    log.info("%d records", len(records))
    write_records(
        snakemake.output[0], records, rule=snakemake.rule, wildcards=dict(snakemake.wildcards)
    )
