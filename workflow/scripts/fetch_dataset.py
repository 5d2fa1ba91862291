"""Fetch one UCI file, verified against its SHA-256 (mirror from KREPRO_DATA_MIRROR)."""

from krepro.data.download import fetch_dataset_file
from krepro.workflow.runtime import job

with job(snakemake) as log:
    source = fetch_dataset_file(
        snakemake.wildcards.dataset, snakemake.wildcards.filename, snakemake.output[0]
    )
    log.info("%s/%s from %s", snakemake.wildcards.dataset, snakemake.wildcards.filename, source)
