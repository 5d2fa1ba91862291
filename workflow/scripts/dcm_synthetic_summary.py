"""DCM synthetic experiment: tidy run table, Table 3 (CSV, one row per reading × setting ×
method; Markdown, one table per reading), Fig. 2 and the verdicts (one per claim and reading).

The verdicts read the tables back from the files just written, as a separate job would.
"""

import pandas as pd

from krepro.experiments.dcm_synthetic import AXES, aggregate, tidy
from krepro.workflow.records import atomic_write_text, read_records
from krepro.report.dcm import readings_markdown, synthetic_section, table3_markdown
from krepro.report.dcm_figures import plot_fig2
from krepro.studies.render import write_section
from krepro.studies.verdicts import paper_reference
from krepro.workflow.runtime import job

with job(snakemake):
    out, params = snakemake.output, snakemake.params
    runs = tidy(read_records(snakemake.input.runs))
    table = aggregate(runs)
    atomic_write_text(out.runs, runs.to_csv(index=False))
    atomic_write_text(out.table, table.to_csv(index=False))
    atomic_write_text(out.markdown, readings_markdown(table, AXES, table3_markdown) + "\n")

    plot_fig2(pd.read_csv(snakemake.input.projections), out.figure)

    reference = paper_reference(snakemake.input.reference, "dcm", "synthetic")
    section = synthetic_section(
        pd.read_csv(out.table),
        pd.read_csv(out.runs),
        reference,
        primary=params.primary,
        scale=params.scale,
    )
    write_section(section, out.json, out.md)
