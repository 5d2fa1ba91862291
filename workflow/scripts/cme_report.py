"""Report section for the CME note: a computed verdict per claim."""

import pandas as pd
import yaml

from krepro.records import atomic_write_text
from krepro.report.cme import cme_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["cme"]
    section = cme_section(
        pd.read_csv(snakemake.input.table), pd.read_csv(snakemake.input.claims), reference
    )
    atomic_write_text(snakemake.output[0], section)
