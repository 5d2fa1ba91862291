"""All repetitions and methods of one (η, γ) cell of DCM Table 3 → run records."""

from krepro.experiments.dcm_synthetic import run_setting
from krepro.records import write_records
from krepro.runtime import job

with job(snakemake) as log:
    params = snakemake.params
    records = run_setting(
        seed=params.seed,
        eta=float(snakemake.wildcards.eta),
        gamma=float(snakemake.wildcards.gamma),
        n_repetitions=params.settings["n_repetitions"],
        settings=params.settings,
    )
    log.info("%d records", len(records))
    write_records(
        snakemake.output[0], records, rule=snakemake.rule, wildcards=dict(snakemake.wildcards)
    )
