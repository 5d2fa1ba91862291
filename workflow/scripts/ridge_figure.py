"""Paper Fig. 4 from the aggregate ridge table and the per-repetition runs."""

import pandas as pd

from krepro.report.figures import plot_ridge
from krepro.runtime import job

with job(snakemake):
    table = pd.read_csv(snakemake.input.table)
    constants = pd.read_csv(snakemake.input.best_constant)
    runs = pd.read_csv(snakemake.input.runs)
    plot_ridge(table, constants, runs, snakemake.output[0])
