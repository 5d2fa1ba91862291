"""Run all γ values and repetitions of one ridge (variant, experiment) → run records."""

from krepro.experiments.ridge import run_setting
from krepro.records import write_records
from krepro.runtime import job

with job(snakemake) as log:
    wildcards, params = snakemake.wildcards, snakemake.params
    records = []
    for gamma in params.gammas:
        records += run_setting(
            seed=params.seed,
            experiment=int(wildcards.experiment),
            gamma=float(gamma),
            variant=wildcards.variant,
            variant_params=params.variant_params,
            sizes=params.sizes,
            n_repetitions=params.n_repetitions,
            kernel_gamma=params.kernel_gamma,
            partition=params.partition,
        )
    log.info("%d records", len(records))
    write_records(snakemake.output[0], records, rule=snakemake.rule, wildcards=dict(wildcards))
