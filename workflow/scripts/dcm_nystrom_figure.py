"""Accuracy/time trade-off of FastDCM over the number of landmarks."""

import pandas as pd

from krepro.report.dcm_figures import plot_nystrom
from krepro.runtime import job

with job(snakemake):
    plot_nystrom(
        pd.read_csv(snakemake.input.sweep), pd.read_csv(snakemake.input.table), snakemake.output[0]
    )
