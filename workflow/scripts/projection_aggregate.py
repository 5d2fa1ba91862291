"""Tidy run table and the per-γ means of the projection experiment."""

from krepro.experiments.projection import aggregate, tidy
from krepro.records import atomic_write_text, read_records
from krepro.runtime import job

with job(snakemake):
    runs = tidy(read_records(snakemake.input))
    atomic_write_text(snakemake.output.runs, runs.to_csv(index=False))
    atomic_write_text(snakemake.output.table, aggregate(runs).to_csv(index=False))
