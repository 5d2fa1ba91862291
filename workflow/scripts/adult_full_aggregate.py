"""Tidy run table, the adult_full table (.csv, .md) and the landmark-sweep table."""

import pandas as pd

from krepro.records import atomic_write_text, read_records
from krepro.report.adult_full import adult_full_markdown, adult_full_table, sweep_table
from krepro.runtime import job

with job(snakemake):
    runs = pd.DataFrame.from_records(read_records(snakemake.input.runs))
    atomic_write_text(snakemake.output.runs, runs.to_csv(index=False))
    table = adult_full_table(runs)
    atomic_write_text(snakemake.output.table, table.to_csv(index=False))
    atomic_write_text(snakemake.output.markdown, adult_full_markdown(table) + "\n")
    sweep = sweep_table(pd.DataFrame.from_records(read_records([snakemake.input.sweep])))
    atomic_write_text(snakemake.output.sweep, sweep.to_csv(index=False))
