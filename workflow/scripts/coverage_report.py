"""Paper-vs-reproduced section for the coverage study."""

import pandas as pd
import yaml

from krepro.records import atomic_write_text
from krepro.report.coverage import coverage_section
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
    )
    atomic_write_text(snakemake.output[0], section)
