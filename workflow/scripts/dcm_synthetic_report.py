"""Verdicts (one per claim and reading) and Markdown section for DCM Table 3."""

import pandas as pd
import yaml

from krepro.report.dcm import synthetic_section
from krepro.report.render import write_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["dcm"]["synthetic"]
    section = synthetic_section(
        pd.read_csv(snakemake.input.table),
        pd.read_csv(snakemake.input.runs),
        reference,
        primary=snakemake.params.primary,
        scale=snakemake.params.scale,
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
