"""Verdicts (one per claim and reading) and Markdown section for DCM Table 4 and the sweep."""

import pandas as pd
import yaml

from krepro.report.dcm_parkinsons import parkinsons_section
from krepro.report.render import write_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["dcm"]["parkinsons"]
    section = parkinsons_section(
        pd.read_csv(snakemake.input.table),
        pd.read_csv(snakemake.input.runs),
        pd.read_csv(snakemake.input.sweep),
        reference,
        primary=snakemake.params.primary,
        scale=snakemake.params.scale,
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
