"""Ridge experiments (§7.2): tidy run table, aggregate tables, Fig. 4 and the report section.

The figure and the verdicts each read the tables back from the files just written, as
separate jobs would.
"""

import pandas as pd

from krepro.experiments.ridge import aggregate, best_constant_table, tidy
from krepro.records import atomic_write_text, read_records
from krepro.report.compare import ridge_section
from krepro.report.figures import plot_ridge
from krepro.report.render import write_section
from krepro.report.verdicts import paper_reference
from krepro.runtime import job

with job(snakemake):
    out, settings = snakemake.output, snakemake.params.settings
    runs = tidy(read_records(snakemake.input.runs))
    atomic_write_text(out.runs, runs.to_csv(index=False))
    atomic_write_text(out.table, aggregate(runs).to_csv(index=False))
    constants = best_constant_table(settings["variants"], settings["partition"])
    atomic_write_text(out.best_constant, constants.to_csv(index=False))

    written = (out.table, out.best_constant, out.runs)
    plot_ridge(*map(pd.read_csv, written), out.figure)

    reference = paper_reference(snakemake.input.reference, "oblivious", "ridge")
    table, constants, runs = map(pd.read_csv, written)
    section = ridge_section(
        table, runs, constants, reference, settings, scale=snakemake.params.scale
    )
    write_section(section, out.json, out.md)
