"""Paper-vs-reproduced section for Adult (§7.1, Table 1)."""

import pandas as pd
import yaml

from krepro.records import atomic_write_text
from krepro.report.fairness import adult_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["oblivious"]["adult"]
    atomic_write_text(
        snakemake.output[0], adult_section(pd.read_csv(snakemake.input.table), reference)
    )
