"""Landmark sweep on the Table-1-sized corrected split: exact methods vs explicit features."""

from krepro.data.adult import load_adult
from krepro.experiments.adult_full import run_sweep
from krepro.workflow.records import write_records
from krepro.workflow.runtime import job

with job(snakemake) as log:
    sweep = snakemake.params.sweep
    split = load_adult(
        snakemake.input.data, snakemake.input.test, "corrected", n_train=sweep["n_train"]
    )
    records = run_sweep(
        split,
        C=sweep["C"],
        gamma=sweep["gamma"],
        n_components=sweep["n_components"],
        seed=snakemake.params.seed,
    )
    log.info("%d sweep records", len(records))
    write_records(snakemake.output[0], records, rule=snakemake.rule)
