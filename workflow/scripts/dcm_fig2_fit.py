"""Projections of COIR, DICA and DCM for the Fig. 2 analogue."""

from krepro.experiments.dcm_synthetic import fig2_projections
from krepro.workflow.records import atomic_write_text
from krepro.workflow.runtime import job

with job(snakemake):
    frame = fig2_projections(seed=snakemake.params.seed, settings=snakemake.params.settings)
    atomic_write_text(snakemake.output[0], frame.to_csv(index=False))
