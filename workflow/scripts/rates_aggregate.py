"""Tidy run table, mean errors per n, and the log-log slopes beside the theory."""

from krepro.experiments.rates import error_table, slope_table, tidy
from krepro.records import atomic_write_text, read_records
from krepro.runtime import job

with job(snakemake):
    runs = tidy(read_records(snakemake.input))
    atomic_write_text(snakemake.output.runs, runs.to_csv(index=False))
    atomic_write_text(snakemake.output.errors, error_table(runs).to_csv(index=False))
    slopes = slope_table(
        runs,
        seed=snakemake.params.seed,
        n_bootstrap=snakemake.params.n_bootstrap,
        confidence=snakemake.params.confidence,
    )
    atomic_write_text(snakemake.output.table, slopes.to_csv(index=False))
