"""All Table-1 methods for one Adult (protocol, grid) → run records."""

from krepro.data.adult import load_adult
from krepro.experiments.adult import run_method
from krepro.workflow.records import write_records
from krepro.workflow.runtime import job

with job(snakemake) as log:
    params, wildcards = snakemake.params, snakemake.wildcards
    split = load_adult(
        snakemake.input.data,
        snakemake.input.test,
        wildcards.adult_protocol,
        n_train=params.n_train_corrected,
    )
    records = []
    for method in params.methods:
        record = run_method(
            split,
            method,
            grid=params.grid,
            grid_name=wildcards.adult_grid,
            n_folds=params.n_folds,
            options=params.options,
        )
        log.info(
            "%s: %.1f s, test error %.3f", method, record["wall_seconds"], record["test_error"]
        )
        records.append(record)
    write_records(snakemake.output[0], records, rule=snakemake.rule, wildcards=dict(wildcards))
