"""Figure of the dyadic-vs-CME oblivious experiment."""

import pandas as pd

from krepro.report.cme_oblivious import plot_cme_oblivious
from krepro.runtime import job

with job(snakemake):
    plot_cme_oblivious(pd.read_csv(snakemake.input[0]), snakemake.output[0])
