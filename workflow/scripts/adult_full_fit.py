"""One method on all of Adult (explicit features or a fairlearn peer) → one run record."""

from krepro.data.adult import load_adult
from krepro.experiments.adult_full import FULL_TRAIN_ROWS, run_full_method
from krepro.workflow.records import read_records, write_records
from krepro.workflow.runtime import job

with job(snakemake) as log:
    params, method = snakemake.params, snakemake.wildcards.adult_full_method
    (selection,) = read_records([snakemake.input.selection])
    split = load_adult(
        snakemake.input.data, snakemake.input.test, "corrected", n_train=FULL_TRAIN_ROWS
    )
    record = run_full_method(
        split,
        method,
        C=selection["C"],
        gamma=selection["gamma"],
        settings=params.settings,
        seed=params.seed,
    )
    log.info(
        "%s: fit %.1f CPU-s, test error %.4f, DEO %.4f",
        method,
        record["fit_cpu_seconds"],
        record["test_error"],
        record["deo"],
    )
    write_records(
        snakemake.output[0], [record], rule=snakemake.rule, wildcards=dict(snakemake.wildcards)
    )
