"""Verdicts and tables of the ridge experiments (§7.2, Fig. 4)."""

import pandas as pd
import yaml

from krepro.report.compare import ridge_section
from krepro.report.render import write_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["oblivious"]["ridge"]
    section = ridge_section(
        pd.read_csv(snakemake.input.table),
        pd.read_csv(snakemake.input.runs),
        pd.read_csv(snakemake.input.best_constant),
        reference,
        snakemake.params.settings,
        scale=snakemake.params.scale,
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
