"""Verdicts of the dyadic-vs-CME oblivious experiment (results/report/cme_oblivious.json, .md)."""

import pandas as pd
import yaml

from krepro.report.cme_oblivious import cme_oblivious_section
from krepro.report.render import write_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["cme"]["oblivious_features"]
    section = cme_oblivious_section(
        pd.read_csv(snakemake.input.table),
        pd.read_csv(snakemake.input.runs),
        reference,
        scale=snakemake.params.scale,
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
