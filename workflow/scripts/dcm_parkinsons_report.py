"""Paper-vs-reproduced section for DCM Table 4 and the Nyström sweep."""

import pandas as pd
import yaml

from krepro.records import atomic_write_text
from krepro.report.dcm import parkinsons_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["dcm"]["parkinsons"]
    section = parkinsons_section(
        pd.read_csv(snakemake.input.table),
        pd.read_csv(snakemake.input.runs),
        pd.read_csv(snakemake.input.sweep),
        reference,
    )
    atomic_write_text(snakemake.output[0], section)
