"""All repetitions of one students reading (generator variant × C selection) → run records."""

from krepro.experiments.students import method_selection, run_variant
from krepro.workflow.records import write_records
from krepro.workflow.runtime import job

with job(snakemake) as log:
    params, wildcards = snakemake.params, snakemake.wildcards
    reading = params.c_selections[wildcards.students_c_selection]
    records = run_variant(
        seed=params.seed,
        variant=wildcards.students_variant,
        variant_params=params.variant_params,
        sizes=params.sizes,
        n_repetitions=params.n_repetitions,
        selection=method_selection(
            params.c_selections, wildcards.students_c_selection, params.primary_c_selection
        ),
        n_folds=params.n_folds,
        c_selection=wildcards.students_c_selection,
        oblivious_solver=reading.get("solver", "libsvm"),
    )
    log.info("%d records", len(records))
    write_records(snakemake.output[0], records, rule=snakemake.rule, wildcards=dict(wildcards))
