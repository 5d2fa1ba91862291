r"""Rates of the estimators of :math:`E[\varphi(X)\mid S]` (paper Props. 5 and 6), measured.

For each setting (a finite S with k values, or a uniform :math:`S \in [0,1]^d`) and sample
size n, repetitions draw an estimation sample of
:class:`krepro.fairness.rates.GaussianConditionalModel`, fit the estimator and record its
error :math:`\lVert E^S_n\varphi(X) - E^S\varphi(X)\rVert_{2,n}` against the closed-form
truth (:func:`krepro.fairness.rates.embedding_errors`, averaged over the law of S).
Estimators:

* ``partition`` — the paper's plug-in estimator: one cell per value of a finite S; for a
  continuous S the dyadic partition with Proposition 6's :math:`\ell = n^{1/(2(d+1))}` cells
  per axis;
* ``cme`` — the conditional mean embedding :math:`\sum_v\alpha_v(s)\varphi(x_v)`
  (:class:`krepro.cme.CMEConditionalMean`, λ by generalised cross-validation), continuous S.

The run table and the log-log slopes beside the theory are made by
:mod:`krepro.studies.rates.tables`.
"""

from __future__ import annotations

import time

import numpy as np

from krepro.cme import CMEConditionalMean
from krepro.fairness.conditional import (
    DyadicPartition,
    FiniteValuePartition,
    PartitionConditionalMean,
)
from krepro.fairness.rates import (
    GaussianConditionalModel,
    cells_per_axis_schedule,
    embedding_errors,
)
from krepro.records import write_records
from krepro.seeding import generator
from krepro.studies.rates import parse_setting

__all__ = ["run", "run_setting"]


def _model(setting, settings):
    kind, value = parse_setting(setting)
    common = {
        "mean_scale": settings["mean_scale"],
        "sd": settings["sd"],
        "kernel_gamma": settings["kernel_gamma"],
    }
    if kind == "finite":
        return GaussianConditionalModel("finite", n_values=value, **common)
    return GaussianConditionalModel("continuous", d=value, **common)


def _fit_partition(model, S, n, settings):
    if model.kind == "finite":
        partition = FiniteValuePartition(values=np.arange(model.n_values, dtype=float))
        estimator = PartitionConditionalMean(partition).fit(S)
        return estimator, model.query_points(), {"n_cells": model.n_values}
    continuous = settings["continuous"]
    ell = cells_per_axis_schedule(n, model.d, scale=continuous["cells_scale"])
    estimator = PartitionConditionalMean(DyadicPartition(0.0, 1.0, ell)).fit(S)
    per_cell = -(-continuous["grid_points_per_axis"][f"d{model.d}"] // ell)  # ceil division
    query = model.query_points(ell, per_cell)
    return estimator, query, {"n_cells": ell**model.d, "cells_per_axis": ell}


def _fit_cme(model, S, X, settings):
    cme = settings["cme"]
    alphas = 10.0 ** np.arange(cme["log10_alpha_min"], cme["log10_alpha_max"] + 1)
    estimator = CMEConditionalMean(kernel="rbf", gamma=cme["gamma"], alphas=alphas)
    estimator.fit(S, output_gram=model.kernel(X))
    query = model.query_points(settings["cme"]["grid_points_per_axis"][f"d{model.d}"])
    return estimator, query, {"lambda": estimator.alpha_}


def run_setting(*, seed, setting, settings):
    """All sizes and repetitions of one setting, for every estimator that applies.

    Parameters
    ----------
    seed : int
        Root seed; the sample of (setting, n, repetition) is shared by the estimators.
    setting : str
        ``finite_k<k>`` or ``continuous_d<d>``.
    settings : mapping
        The ``rates`` config section.

    Returns
    -------
    list of dict
        One record per (estimator, n, repetition): ``error`` (the :math:`\\lVert\\cdot
        \\rVert_{2,n}` error), cell counts or the selected λ, CPU seconds.
    """
    model = _model(setting, settings)
    kind = model.kind
    jobs = [("partition", settings[kind]["sizes"])]
    if kind == "continuous" and model.d in settings["cme"]["dims"]:
        jobs.append(("cme", settings["cme"]["sizes"]))
    records = []
    for estimator_name, sizes in jobs:
        for n in sizes:
            for repetition in range(settings["n_repetitions"]):
                rng = generator(seed, "rates", setting, int(n), repetition)
                S, X = model.sample(rng, int(n))
                start = time.process_time()
                if estimator_name == "partition":
                    estimator, (query, weights), extra = _fit_partition(model, S, int(n), settings)
                else:
                    estimator, (query, weights), extra = _fit_cme(model, S, X, settings)
                squared = embedding_errors(estimator, X, query, model)
                error = float(np.sqrt(max(float(weights @ squared), 0.0)))
                records.append(
                    {
                        "estimator": estimator_name,
                        "setting": setting,
                        "kind": kind,
                        "d": model.d if kind == "continuous" else 1,
                        "n_values": model.n_values if kind == "finite" else None,
                        "n": int(n),
                        "repetition": repetition,
                        "error": error,
                        "n_cells": extra.get("n_cells"),
                        "cells_per_axis": extra.get("cells_per_axis"),
                        "lambda": extra.get("lambda"),
                        "n_query": len(query),
                        "cpu_seconds": time.process_time() - start,
                        "status": "ok",
                    }
                )
    return records


def run(job, log):
    """Job ``rates_run``: errors of the E[φ(X)|S] estimators against n for one setting (all
    sizes, repetitions) → run records.
    """
    records = run_setting(
        seed=job.params.seed,
        setting=job.wildcards.setting,
        settings=job.params.settings,
    )
    log.info("%d records", len(records))
    write_records(job.output[0], records, rule=job.rule, wildcards=dict(job.wildcards))
