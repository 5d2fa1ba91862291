"""Verdicts and supporting tables of the coverage study (results/report/coverage.json, .md)."""

import pandas as pd
import yaml

from krepro.report.coverage import coverage_section
from krepro.report.render import write_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["coverage"]
    section = coverage_section(
        pd.read_csv(snakemake.input.table),
        pd.read_csv(snakemake.input.runs),
        reference,
        snakemake.params.primary_variant,
        snakemake.params.settings,
        scale=snakemake.params.scale,
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
