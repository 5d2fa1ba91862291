r"""CPU time of the oblivious Gram matrix against n (paper §1 and §6: "the complexity is O(n²)").

For each repetition and each n of the grid, one draw of 2n points of a §7.2-like model
(:math:`S \sim U[\mathrm{low}, \mathrm{high}]`, :math:`X = (S + U)/2` with an independent
:math:`U` of the same law) is split into an estimation half and a learner half as in the
paper's Algorithm 1; the CPU time (``time.process_time``) of
``ObliviousKernel(...).fit(X_est, S_est).gram(X, S)`` is recorded. BLAS runs with the job's
threads (the workflow's runtime limits the thread pools to them). Timing depends on the
machine, its BLAS and its load: the slope of log time on log n, not the times, is compared
with the paper.
"""

from __future__ import annotations

import time

from krepro.fairness import ObliviousKernel
from krepro.records import write_records
from krepro.seeding import generator

__all__ = ["measure", "run"]


def _draw(rng, n, low, high):
    S = rng.uniform(low, high, size=(2 * n, 1))
    X = (S + rng.uniform(low, high, size=(2 * n, 1))) / 2.0
    return X, S


def _time_once(X, S, n, settings):
    kernel = ObliviousKernel(
        kernel="rbf",
        gamma=settings["kernel_gamma"],
        partition="dyadic",
        partition_bounds=(settings["low"], settings["high"]),
        cells_per_axis=settings["cells_per_axis"],
    )
    start = time.process_time()
    gram = kernel.fit(X[n:], sensitive_features=S[n:]).gram(X[:n], S[:n])
    elapsed = time.process_time() - start
    if gram.shape != (n, n):
        raise RuntimeError(f"oblivious Gram of shape {gram.shape}, expected {(n, n)}.")
    return elapsed


def measure(*, seed, settings):
    """CPU seconds of the oblivious Gram matrix per (repetition, n).

    Parameters
    ----------
    seed : int
        Root seed; repetition ``r`` at size ``n`` draws from
        ``generator(seed, "rates-gram-cost", n, r)``.
    settings : mapping
        ``rates.gram_cost`` of the config: ``sizes``, ``n_repetitions``, ``cells_per_axis``,
        ``low``, ``high``, ``kernel_gamma``.

    Returns
    -------
    list of dict
        One record per (repetition, n): ``n``, ``repetition``, ``cpu_seconds``.
    """
    sizes = sorted(int(n) for n in settings["sizes"])
    low, high = settings["low"], settings["high"]
    # One untimed call first: imports, first-touch allocations and caches warm up outside
    # the measurement.
    X, S = _draw(generator(seed, "rates-gram-cost", "warm-up"), sizes[0], low, high)
    _time_once(X, S, sizes[0], settings)
    records = []
    for repetition in range(settings["n_repetitions"]):
        for n in sizes:
            X, S = _draw(generator(seed, "rates-gram-cost", n, repetition), n, low, high)
            records.append(
                {
                    "n": n,
                    "repetition": repetition,
                    "cpu_seconds": _time_once(X, S, n, settings),
                }
            )
    return records


def run(job, log):
    """Job ``rates_gram_cost``: CPU time of the oblivious Gram matrix over the n grid."""
    records = measure(seed=job.params.seed, settings=job.params.settings)
    records = [{**record, "threads": int(job.threads)} for record in records]
    log.info("%d timings", len(records))
    write_records(job.output[0], records, rule=job.rule, wildcards=dict(job.wildcards))
