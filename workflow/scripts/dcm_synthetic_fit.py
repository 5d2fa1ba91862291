"""All repetitions and methods of one (η, γ) cell of DCM Table 3 under one reading → records."""

from krepro.experiments.dcm_synthetic import run_setting
from krepro.workflow.records import write_records
from krepro.workflow.runtime import job

with job(snakemake) as log:
    params, wildcards = snakemake.params, snakemake.wildcards
    records = run_setting(
        seed=params.seed,
        eta=float(wildcards.eta),
        gamma=float(wildcards.gamma),
        n_repetitions=int(params.n_repetitions),
        settings=params.settings,
        centring=wildcards.centring,
        b_scale=wildcards.b_scale,
    )
    log.info("%d records", len(records))
    write_records(snakemake.output[0], records, rule=snakemake.rule, wildcards=dict(wildcards))
