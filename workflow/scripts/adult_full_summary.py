"""adult_full: tidy run table, the adult_full table (.csv, .md), the landmark-sweep table,
the figure (error vs DEO, and the sweep) and the verdicts beside the paper's Table 1.

The figure and the verdicts each read the tables back from the files just written, as
separate jobs would.
"""

import pandas as pd

from krepro.workflow.records import atomic_write_text, read_records
from krepro.report.adult_full import (
    adult_full_markdown,
    adult_full_section,
    adult_full_table,
    plot_adult_full,
    sweep_table,
)
from krepro.studies.render import write_section
from krepro.studies.verdicts import paper_reference
from krepro.workflow.runtime import job

with job(snakemake):
    inp, out = snakemake.input, snakemake.output
    runs = pd.DataFrame.from_records(read_records(inp.runs))
    atomic_write_text(out.runs, runs.to_csv(index=False))
    table = adult_full_table(runs)
    atomic_write_text(out.table, table.to_csv(index=False))
    atomic_write_text(out.markdown, adult_full_markdown(table) + "\n")
    sweep = sweep_table(pd.DataFrame.from_records(read_records([inp.sweep])))
    atomic_write_text(out.sweep, sweep.to_csv(index=False))

    plot_adult_full(pd.read_csv(out.table), pd.read_csv(out.sweep), out.figure)

    reference = paper_reference(inp.reference, "oblivious")
    (selection,) = read_records([inp.selection])
    section = adult_full_section(
        pd.read_csv(out.table),
        pd.read_csv(out.sweep),
        reference["adult_full"],
        reference["adult"]["table1"],
        selection=selection,
        settings=snakemake.params.settings,
        scale=snakemake.params.scale,
    )
    write_section(section, out.json, out.md)
