"""Students experiment (§7.1): tidy run table, mean ± sd table, Fig. 3 (error vs e_β,
observed and true labels) and the verdicts, one per reading.

The figure and the verdicts each read the tables back from the files just written, as
separate jobs would.
"""

import pandas as pd

from krepro.experiments.students import aggregate, tidy
from krepro.workflow.records import atomic_write_text, read_records
from krepro.studies.render import write_section
from krepro.report.students import plot_students, students_section
from krepro.studies.verdicts import paper_reference
from krepro.workflow.runtime import job

with job(snakemake):
    out, params = snakemake.output, snakemake.params
    runs = tidy(read_records(snakemake.input.runs))
    atomic_write_text(out.runs, runs.to_csv(index=False))
    atomic_write_text(out.table, aggregate(runs).to_csv(index=False))

    plot_students(pd.read_csv(out.runs), pd.read_csv(out.table), out.figure, params.readings)

    reference = paper_reference(snakemake.input.reference, "oblivious", "students")
    section = students_section(
        pd.read_csv(out.table),
        pd.read_csv(out.runs),
        reference,
        primary_reading=params.primary_reading,
        c_selections=params.c_selections,
        scale=params.scale,
    )
    write_section(section, out.json, out.md)
