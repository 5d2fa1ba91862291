"""Figure (results/figures/cme.png) and verdicts of the CME note's claims (report/cme.json,
.md)."""

import pandas as pd
import yaml

from krepro.report.cme import cme_section, plot_cme
from krepro.report.render import write_section
from krepro.runtime import job

with job(snakemake):
    inp = snakemake.input
    frames = [pd.read_csv(path) for path in (inp.table, inp.sample, inp.query, inp.curves)]
    plot_cme(*frames, pd.read_csv(inp.weights), snakemake.output.figure)

    with open(inp.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["cme"]
    section = cme_section(
        pd.read_csv(inp.table), pd.read_csv(inp.claims), reference, scale=snakemake.params.scale
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
