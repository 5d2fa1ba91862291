"""(C, γ) of the plain SVM on explicit features, by validation accuracy (adult_full)."""

from krepro.data.adult import load_adult
from krepro.experiments.adult_full import FULL_TRAIN_ROWS, select_hyperparameters
from krepro.workflow.records import write_records
from krepro.workflow.runtime import job

with job(snakemake) as log:
    params = snakemake.params
    split = load_adult(
        snakemake.input.data, snakemake.input.test, "corrected", n_train=FULL_TRAIN_ROWS
    )
    record = select_hyperparameters(
        split,
        grid=params.grid,
        n_components=params.settings["n_components"],
        approximation=params.settings["approximation"],
        classifier=params.settings["classifier"],
        seed=params.seed,
        validation_fraction=params.validation_fraction,
    )
    log.info("selected C = %g, γ = %g", record["C"], record["gamma"])
    write_records(snakemake.output[0], [record], rule=snakemake.rule)
