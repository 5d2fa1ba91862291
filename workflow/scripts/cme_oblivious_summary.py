"""Dyadic-vs-CME oblivious experiment: tidy run table, aggregate table, figure and verdicts.

The figure and the verdicts each read the tables back from the files just written, as
separate jobs would.
"""

import pandas as pd

from krepro.experiments.cme_oblivious import aggregate, tidy
from krepro.workflow.records import atomic_write_text, read_records
from krepro.report.cme_oblivious import cme_oblivious_section, plot_cme_oblivious
from krepro.studies.render import write_section
from krepro.studies.verdicts import paper_reference
from krepro.workflow.runtime import job

with job(snakemake):
    out = snakemake.output
    runs = tidy(read_records(snakemake.input.runs))
    atomic_write_text(out.runs, runs.to_csv(index=False))
    atomic_write_text(out.table, aggregate(runs).to_csv(index=False))

    plot_cme_oblivious(pd.read_csv(out.table), out.figure)

    reference = paper_reference(snakemake.input.reference, "cme", "oblivious_features")
    section = cme_oblivious_section(
        pd.read_csv(out.table), pd.read_csv(out.runs), reference, scale=snakemake.params.scale
    )
    write_section(section, out.json, out.md)
