"""One subject split of DCM Table 4 (both targets, all methods, landmark sweep) → records."""

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
    )
    log.info("%d records", len(records))
    write_records(
        snakemake.output[0], records, rule=snakemake.rule, wildcards=dict(snakemake.wildcards)
    )
