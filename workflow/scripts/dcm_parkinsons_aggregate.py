"""Tidy run table, Table 4 (CSV, one row per reading × target × method; Markdown, one table
per reading) and the landmark sweep table."""

from krepro.experiments.dcm_parkinsons import AXES, aggregate, sweep_table, tidy
from krepro.records import atomic_write_text, read_records
from krepro.report.dcm import readings_markdown
from krepro.report.dcm_parkinsons import table4_markdown
from krepro.runtime import job

with job(snakemake):
    runs = tidy(read_records(snakemake.input))
    table = aggregate(runs)
    atomic_write_text(snakemake.output.runs, runs.to_csv(index=False))
    atomic_write_text(snakemake.output.table, table.to_csv(index=False))
    atomic_write_text(
        snakemake.output.markdown, readings_markdown(table, AXES, table4_markdown) + "\n"
    )
    atomic_write_text(snakemake.output.sweep, sweep_table(runs).to_csv(index=False))
