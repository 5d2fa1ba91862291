"""Verdicts of the CME note's claims (results/report/cme.json, .md)."""

import pandas as pd
import yaml

from krepro.report.cme import cme_section
from krepro.report.render import write_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["cme"]
    section = cme_section(
        pd.read_csv(snakemake.input.table),
        pd.read_csv(snakemake.input.claims),
        reference,
        scale=snakemake.params.scale,
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
