"""Projection onto M = φ[X] (App. E.3, Props. 2, 3): tidy run table, per-γ means, the figure
(d_n, dependence and e_β of X, Z and W against γ) and the verdicts.

The figure and the verdicts each read the tables back from the files just written, as
separate jobs would.
"""

import pandas as pd

from krepro.experiments.projection import aggregate, tidy
from krepro.workflow.records import atomic_write_text, read_records
from krepro.report.rates import plot_projection, projection_section
from krepro.studies.render import write_section
from krepro.studies.verdicts import paper_reference
from krepro.workflow.runtime import job

with job(snakemake):
    out, params = snakemake.output, snakemake.params
    runs = tidy(read_records(snakemake.input.runs))
    atomic_write_text(out.runs, runs.to_csv(index=False))
    atomic_write_text(out.table, aggregate(runs).to_csv(index=False))

    plot_projection(pd.read_csv(out.table), out.figure)

    reference = paper_reference(snakemake.input.reference, "oblivious", "projection")
    section = projection_section(
        pd.read_csv(out.table),
        pd.read_csv(out.runs),
        reference,
        params.settings,
        scale=params.scale,
    )
    write_section(section, out.json, out.md)
