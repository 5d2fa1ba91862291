"""Error against n (log-log) with fitted and theoretical slopes."""

import pandas as pd

from krepro.report.rates import plot_rates
from krepro.runtime import job

with job(snakemake):
    plot_rates(
        pd.read_csv(snakemake.input.errors), pd.read_csv(snakemake.input.table), snakemake.output[0]
    )
