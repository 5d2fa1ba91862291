"""Fig. 1 analogue (coverage vs log2 P) and RMSE vs P, from Table 1."""

import pandas as pd

from krepro.report.coverage import plot_coverage, plot_rmse
from krepro.runtime import job

with job(snakemake):
    params = snakemake.params
    table = pd.read_csv(snakemake.input[0])
    plot_coverage(table, snakemake.output.coverage, params.primary_variant, params.nominal)
    plot_rmse(table, snakemake.output.rmse, params.primary_variant)
