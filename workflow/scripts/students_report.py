"""Verdicts and tables of the students experiment (§7.1, Fig. 3), one per reading."""

import pandas as pd
import yaml

from krepro.report.render import write_section
from krepro.report.students import students_section
from krepro.runtime import job

with job(snakemake):
    params = snakemake.params
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["oblivious"]["students"]
    section = students_section(
        pd.read_csv(snakemake.input.table),
        pd.read_csv(snakemake.input.runs),
        reference,
        primary_reading=params.primary_reading,
        c_selections=params.c_selections,
        scale=params.scale,
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
