"""All repetitions of one students generator variant → run records."""

from krepro.experiments.students import run_variant
from krepro.records import write_records
from krepro.runtime import job

with job(snakemake) as log:
    params = snakemake.params
    low, high = params.log2_C
    records = run_variant(
        seed=params.seed,
        variant=snakemake.wildcards.students_variant,
        variant_params=params.variant_params,
        sizes=params.sizes,
        n_repetitions=params.n_repetitions,
        Cs=[2.0**k for k in range(low, high + 1)],
        n_folds=params.n_folds,
    )
    log.info("%d records", len(records))
    write_records(
        snakemake.output[0], records, rule=snakemake.rule, wildcards=dict(snakemake.wildcards)
    )
