"""Rates of the E[φ(X)|S] estimators (Props. 5, 6): tidy run table, mean errors per n, the
log-log slopes beside the theory, the error-vs-n figure and the verdicts.

The figure and the verdicts each read the tables back from the files just written, as
separate jobs would.
"""

import pandas as pd

from krepro.experiments.rates import error_table, slope_table, tidy
from krepro.workflow.records import atomic_write_text, read_records
from krepro.report.rates import plot_rates, rates_section
from krepro.studies.render import write_section
from krepro.studies.verdicts import paper_reference
from krepro.workflow.runtime import job

with job(snakemake):
    out, params = snakemake.output, snakemake.params
    runs = tidy(read_records(snakemake.input.runs))
    atomic_write_text(out.runs, runs.to_csv(index=False))
    atomic_write_text(out.errors, error_table(runs).to_csv(index=False))
    slopes = slope_table(
        runs,
        seed=params.seed,
        n_bootstrap=params.settings["n_bootstrap"],
        confidence=params.settings["confidence"],
    )
    atomic_write_text(out.table, slopes.to_csv(index=False))

    plot_rates(pd.read_csv(out.errors), pd.read_csv(out.table), out.figure)

    reference = paper_reference(snakemake.input.reference, "oblivious", "rates")
    section = rates_section(
        pd.read_csv(out.table),
        pd.read_csv(out.errors),
        reference,
        params.settings,
        scale=params.scale,
    )
    write_section(section, out.json, out.md)
