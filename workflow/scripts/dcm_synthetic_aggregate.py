"""Tidy run table and Table 3 (CSV, one row per reading × setting × method; Markdown, one
table per reading) of the DCM synthetic experiment."""

from krepro.experiments.dcm_synthetic import AXES, aggregate, tidy
from krepro.records import atomic_write_text, read_records
from krepro.report.dcm import readings_markdown, table3_markdown
from krepro.runtime import job

with job(snakemake):
    runs = tidy(read_records(snakemake.input))
    table = aggregate(runs)
    atomic_write_text(snakemake.output.runs, runs.to_csv(index=False))
    atomic_write_text(snakemake.output.table, table.to_csv(index=False))
    atomic_write_text(
        snakemake.output.markdown, readings_markdown(table, AXES, table3_markdown) + "\n"
    )
