"""Paper-vs-reproduced section for Fig. 2."""

import pandas as pd
import yaml

from krepro.records import atomic_write_text
from krepro.report.compare import illustration_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["oblivious"]["illustration"]
    section = illustration_section(pd.read_csv(snakemake.input.summary), reference)
    atomic_write_text(snakemake.output[0], section)
