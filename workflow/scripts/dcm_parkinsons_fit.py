"""One subject split of DCM Table 4 under one centring (both targets, all methods, SVR
kernels, and the landmark sweep under the primary reading) → records."""

from krepro.data.parkinsons import load_parkinsons
from krepro.experiments.dcm_parkinsons import run_repetition
from krepro.records import write_records
from krepro.runtime import job

with job(snakemake) as log:
    data = load_parkinsons(snakemake.input.data)
    records = run_repetition(
        data,
        seed=snakemake.params.seed,
        repetition=int(snakemake.wildcards.rep),
        settings=snakemake.params.settings,
        centring=snakemake.wildcards.centring,
        sweep=bool(snakemake.params.sweep),
    )
    log.info("%d records", len(records))
    write_records(
        snakemake.output[0], records, rule=snakemake.rule, wildcards=dict(snakemake.wildcards)
    )
