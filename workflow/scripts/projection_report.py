"""Verdicts of Props. 2 and 3 from the projection experiment."""

import pandas as pd
import yaml

from krepro.report.rates import projection_section
from krepro.report.render import write_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["oblivious"]["projection"]
    section = projection_section(
        pd.read_csv(snakemake.input.table),
        pd.read_csv(snakemake.input.runs),
        reference,
        snakemake.params.settings,
        scale=snakemake.params.scale,
    )
    write_section(section, snakemake.output.json, snakemake.output.md)
