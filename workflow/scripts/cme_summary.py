"""Figure (results/figures/cme.png) and verdicts of the CME note's claims (report/cme.json,
.md)."""

import pandas as pd

from krepro.report.cme import cme_section, plot_cme
from krepro.studies.render import write_section
from krepro.studies.verdicts import paper_reference
from krepro.workflow.runtime import job

with job(snakemake):
    inp = snakemake.input
    frames = [pd.read_csv(path) for path in (inp.table, inp.sample, inp.query, inp.curves)]
    plot_cme(*frames, pd.read_csv(inp.weights), snakemake.output.figure)

    reference = paper_reference(inp.reference, "cme")
    section = cme_section(
        pd.read_csv(inp.table), pd.read_csv(inp.claims), reference, scale=snakemake.params.scale
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
