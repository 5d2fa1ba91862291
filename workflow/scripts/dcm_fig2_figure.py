"""DCM Fig. 2 analogue from the projection table."""

import pandas as pd

from krepro.report.dcm_figures import plot_fig2
from krepro.runtime import job

with job(snakemake):
    plot_fig2(pd.read_csv(snakemake.input[0]), snakemake.output[0])
