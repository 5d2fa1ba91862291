"""One subject split of DCM Table 4 under one or several centrings (both targets, all
methods, SVR kernels, and the landmark sweep under the primary reading) → one records file
per centring.

Rule ``dcm_parkinsons_fit`` runs one centring (wildcard ``centring``); rule
``dcm_parkinsons_fit_readings`` runs every centring of the split in one job (outputs named
by centring), sharing the split, the scaling and the sanity rows.
"""

from krepro.data.parkinsons import load_parkinsons
from krepro.experiments.dcm_parkinsons import run_readings
from krepro.workflow.records import write_records
from krepro.workflow.runtime import job

with job(snakemake) as log:
    wildcards, params = snakemake.wildcards, snakemake.params
    if "centring" in wildcards.keys():
        outputs = {wildcards.centring: snakemake.output[0]}
    else:
        outputs = {centring: snakemake.output[centring] for centring in params.centrings}
    repetition = int(wildcards.rep)
    records = run_readings(
        load_parkinsons(snakemake.input.data),
        seed=params.seed,
        repetition=repetition,
        settings=params.settings,
        centrings=list(outputs),
        sweep_centrings=[params.sweep_centring],
    )
    for centring, path in outputs.items():
        mine = [record for record in records if record["centring"] == centring]
        log.info("%s: %d records", centring, len(mine))
        write_records(
            path,
            mine,
            rule=snakemake.rule,
            wildcards={"centring": centring, "rep": wildcards.rep},
        )
