"""Paper Fig. 3 (error vs e_β, observed and true labels) from the students tables."""

import pandas as pd

from krepro.report.students import plot_students
from krepro.runtime import job

with job(snakemake):
    runs = pd.read_csv(snakemake.input.runs)
    table = pd.read_csv(snakemake.input.table)
    plot_students(runs, table, snakemake.output[0], snakemake.params.readings)
