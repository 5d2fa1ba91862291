"""Verdicts and tables of Adult (§7.1, Table 1), one per (protocol, grid) reading."""

import pandas as pd
import yaml

from krepro.report.fairness import adult_section
from krepro.report.render import write_section
from krepro.runtime import job

with job(snakemake):
    params = snakemake.params
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["oblivious"]["adult"]
    section = adult_section(
        pd.read_csv(snakemake.input.table),
        reference,
        primary_protocol=params.primary_protocol,
        primary_grid=params.primary_grid,
        scale=params.scale,
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
