"""One shard of the coverage study: repetitions first..last of one penalty variant → .npz."""

from krepro.experiments.coverage import run_shard, save_shard, settings_from_config
from krepro.workflow.runtime import job

with job(snakemake) as log:
    wildcards, params = snakemake.wildcards, snakemake.params
    settings = settings_from_config(params.section, wildcards.variant)
    first, last = int(wildcards.first), int(wildcards.last)
    log.info("variant %s, repetitions %d..%d, %s", wildcards.variant, first, last, settings)
    shard = run_shard(params.seed, first, last + 1, settings, log=log)
    save_shard(snakemake.output[0], shard, settings, wildcards.variant, params.seed)
