"""Run all γ values and repetitions of one (d, experiment) setting, both estimators."""

import numpy as np

from krepro.experiments.cme_oblivious import run_setting
from krepro.workflow.records import write_records
from krepro.workflow.runtime import job

with job(snakemake) as log:
    settings, dim = snakemake.params.settings, int(snakemake.wildcards.dim)
    partition = settings["partition"]
    records = []
    for gamma in settings["gammas"]:
        records += run_setting(
            seed=snakemake.params.seed,
            sensitive_dim=dim,
            experiment=int(snakemake.wildcards.experiment),
            gamma=float(gamma),
            sizes={
                key: settings[key] for key in ("n_train", "n_estimation", "n_validation", "n_test")
            },
            n_repetitions=settings["n_repetitions"],
            noise_variance=settings["noise_variance"],
            lambdas=2.0 ** np.arange(settings["log2_lambda_min"], settings["log2_lambda_max"] + 1),
            kernel_gamma=settings["kernel_gamma"],
            partition={
                "low": partition["low"],
                "high": partition["high"],
                "cells_per_axis": {
                    1: partition["cells_per_axis_1d"],
                    2: partition["cells_per_axis_2d"],
                },
            },
            n_permutations=settings["hsic_permutations"],
            cme={
                "gamma": settings["cme"]["gamma"],
                "alphas": 10.0
                ** np.arange(
                    settings["cme"]["log10_alpha_min"], settings["cme"]["log10_alpha_max"] + 1
                ),
            },
        )
    log.info("%d records", len(records))
    write_records(
        snakemake.output[0], records, rule=snakemake.rule, wildcards=dict(snakemake.wildcards)
    )
