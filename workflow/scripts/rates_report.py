"""Verdicts of Props. 5 and 6 (the measured rates beside the theory)."""

import pandas as pd
import yaml

from krepro.report.rates import rates_section
from krepro.report.render import write_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["oblivious"]["rates"]
    section = rates_section(
        pd.read_csv(snakemake.input.table),
        pd.read_csv(snakemake.input.errors),
        reference,
        snakemake.params.settings,
        scale=snakemake.params.scale,
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
