"""Paper Fig. 2 from the sampled points."""

import pandas as pd

from krepro.report.figures import plot_illustration
from krepro.runtime import job

with job(snakemake):
    plot_illustration(pd.read_csv(snakemake.input[0]), snakemake.output[0])
