"""Error vs DEO on all of Adult, and the landmark sweep (results/figures/adult_full.png)."""

import pandas as pd

from krepro.report.adult_full import plot_adult_full
from krepro.runtime import job

with job(snakemake):
    plot_adult_full(
        pd.read_csv(snakemake.input.table), pd.read_csv(snakemake.input.sweep), snakemake.output[0]
    )
