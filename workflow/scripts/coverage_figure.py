"""Coverage heat map (Fig. 1 analogue), coverage vs log2 P, and RMSE vs P, from Table 1."""

import pandas as pd

from krepro.report.coverage_figures import plot_coverage, plot_coverage_heatmap, plot_rmse
from krepro.runtime import job

with job(snakemake):
    params, output = snakemake.params, snakemake.output
    table = pd.read_csv(snakemake.input[0])
    plot_coverage_heatmap(table, output.coverage, params.primary_variant, params.nominal)
    plot_coverage(table, output.lines, params.primary_variant, params.nominal)
    plot_rmse(table, output.rmse, params.primary_variant)
