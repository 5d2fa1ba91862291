"""Adult (§7.1): tidy run table, Table 1 (.csv, .md, .tex) and the verdicts, one per
(protocol, grid) reading.

The verdicts read Table 1 back from the file just written, as a separate job would.
"""

import pandas as pd

from krepro.workflow.records import atomic_write_text, read_records
from krepro.report.fairness import (
    adult_section,
    adult_table1,
    adult_table1_latex,
    adult_table1_markdown,
)
from krepro.studies.render import write_section
from krepro.studies.verdicts import paper_reference
from krepro.workflow.runtime import job

with job(snakemake):
    out, params = snakemake.output, snakemake.params
    runs = pd.DataFrame.from_records(read_records(snakemake.input.runs)).drop(columns="params")
    atomic_write_text(out.runs, runs.to_csv(index=False))
    table = adult_table1(runs)
    atomic_write_text(out.table, table.to_csv(index=False))
    atomic_write_text(out.markdown, adult_table1_markdown(table))
    atomic_write_text(out.latex, adult_table1_latex(table))

    reference = paper_reference(snakemake.input.reference, "oblivious", "adult")
    section = adult_section(
        pd.read_csv(out.table),
        reference,
        primary_protocol=params.primary_protocol,
        primary_grid=params.primary_grid,
        scale=params.scale,
    )
    write_section(section, out.json, out.md)
