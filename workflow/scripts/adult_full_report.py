"""Verdicts and tables of adult_full beside the paper's Table 1."""

import pandas as pd
import yaml

from krepro.records import read_records
from krepro.report.adult_full import adult_full_section
from krepro.report.render import write_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["oblivious"]
    (selection,) = read_records([snakemake.input.selection])
    section = adult_full_section(
        pd.read_csv(snakemake.input.table),
        pd.read_csv(snakemake.input.sweep),
        reference["adult_full"],
        reference["adult"]["table1"],
        selection=selection,
        settings=snakemake.params.settings,
        scale=snakemake.params.scale,
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
