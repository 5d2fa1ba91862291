"""Report section of the dyadic-vs-CME oblivious experiment."""

import pandas as pd

from krepro.records import atomic_write_text
from krepro.report.cme_oblivious import cme_oblivious_section
from krepro.runtime import job

with job(snakemake):
    section = cme_oblivious_section(pd.read_csv(snakemake.input[0]))
    atomic_write_text(snakemake.output[0], section)
