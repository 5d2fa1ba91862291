"""DCM on Parkinson's: tidy run table, Table 4 (CSV, one row per reading × target × method;
Markdown, one table per reading), the landmark sweep and its figure, and the verdicts.

The figure and the verdicts each read the tables back from the files just written, as
separate jobs would.
"""

import pandas as pd

from krepro.experiments.dcm_parkinsons import AXES, aggregate, sweep_table, tidy
from krepro.workflow.records import atomic_write_text, read_records
from krepro.report.dcm import readings_markdown
from krepro.report.dcm_figures import plot_nystrom
from krepro.report.dcm_parkinsons import parkinsons_section, table4_markdown
from krepro.studies.render import write_section
from krepro.studies.verdicts import paper_reference
from krepro.workflow.runtime import job

with job(snakemake):
    out, params = snakemake.output, snakemake.params
    runs = tidy(read_records(snakemake.input.runs))
    table = aggregate(runs)
    atomic_write_text(out.runs, runs.to_csv(index=False))
    atomic_write_text(out.table, table.to_csv(index=False))
    atomic_write_text(out.markdown, readings_markdown(table, AXES, table4_markdown) + "\n")
    atomic_write_text(out.sweep, sweep_table(runs).to_csv(index=False))

    plot_nystrom(pd.read_csv(out.sweep), pd.read_csv(out.table), out.figure)

    reference = paper_reference(snakemake.input.reference, "dcm", "parkinsons")
    section = parkinsons_section(
        pd.read_csv(out.table),
        pd.read_csv(out.runs),
        pd.read_csv(out.sweep),
        reference,
        primary=params.primary,
        scale=params.scale,
    )
    write_section(section, out.json, out.md)
