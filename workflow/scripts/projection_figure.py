"""d_n, dependence and e_β of X, Z and W against γ."""

import pandas as pd

from krepro.report.rates import plot_projection
from krepro.runtime import job

with job(snakemake):
    plot_projection(pd.read_csv(snakemake.input[0]), snakemake.output[0])
