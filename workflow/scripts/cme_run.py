"""CME note experiment: the λ table, the claims table and the figure data."""

from krepro.experiments.cme import run
from krepro.workflow.records import atomic_write_text
from krepro.workflow.runtime import job

with job(snakemake):
    results = run(seed=snakemake.params.seed, **snakemake.params.settings)
    for name in ("table", "claims", "sample", "query", "curves", "weights"):
        atomic_write_text(snakemake.output[name], results[name].to_csv(index=False))
