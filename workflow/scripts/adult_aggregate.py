"""Tidy Adult run table and Table 1 (.csv, .md, .tex)."""

import pandas as pd

from krepro.records import atomic_write_text, read_records
from krepro.report.fairness import adult_table1, adult_table1_latex, adult_table1_markdown
from krepro.runtime import job

with job(snakemake):
    runs = pd.DataFrame.from_records(read_records(snakemake.input)).drop(columns="params")
    atomic_write_text(snakemake.output.runs, runs.to_csv(index=False))
    table = adult_table1(runs)
    atomic_write_text(snakemake.output.table, table.to_csv(index=False))
    atomic_write_text(snakemake.output.markdown, adult_table1_markdown(table))
    atomic_write_text(snakemake.output.latex, adult_table1_latex(table))
