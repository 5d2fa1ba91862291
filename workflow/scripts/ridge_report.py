"""Paper-vs-reproduced section for the ridge experiments."""

import pandas as pd
import yaml

from krepro.records import atomic_write_text
from krepro.report.compare import ridge_section
from krepro.runtime import job

with job(snakemake):
    with open(snakemake.input.reference, encoding="utf-8") as handle:
        reference = yaml.safe_load(handle)["oblivious"]["ridge"]
    section = ridge_section(
        pd.read_csv(snakemake.input.table),
        pd.read_csv(snakemake.input.runs),
        pd.read_csv(snakemake.input.best_constant),
        reference,
        snakemake.params.primary_variant,
    )
    atomic_write_text(snakemake.output[0], section)
