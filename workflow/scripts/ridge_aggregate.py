"""Tidy run table and the aggregate tables of the ridge experiments."""

from krepro.experiments.ridge import aggregate, best_constant_table, tidy
from krepro.records import atomic_write_text, read_records
from krepro.runtime import job

with job(snakemake):
    runs = tidy(read_records(snakemake.input))
    atomic_write_text(snakemake.output.runs, runs.to_csv(index=False))
    atomic_write_text(snakemake.output.table, aggregate(runs).to_csv(index=False))
    constants = best_constant_table(snakemake.params.variants, snakemake.params.partition)
    atomic_write_text(snakemake.output.best_constant, constants.to_csv(index=False))
