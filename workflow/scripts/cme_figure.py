"""results/figures/cme.png from the figure data of the CME experiment."""

import pandas as pd

from krepro.report.cme import plot_cme
from krepro.runtime import job

with job(snakemake):
    frames = {name: pd.read_csv(path) for name, path in snakemake.input.items()}
    plot_cme(
        frames["table"],
        frames["sample"],
        frames["query"],
        frames["curves"],
        frames["weights"],
        snakemake.output[0],
    )
