r"""Coverage study of the distributed-regression paper (Avanesov, arXiv:2105.11425, Fig. 1).

One repetition: N covariates :math:`X_i \sim U[0, 1)`,
:math:`y_i = \sin(2\pi X_i) + \varepsilon_i` with :math:`\varepsilon_i \mid X_i \sim
\mathcal N(0, e^{4|X_i - 0.5|})` (eq. (41); standard deviation :math:`e^{2|x-0.5|}`); a fresh
prediction set of :math:`T_{\max}` points :math:`\tilde X_t \sim U[0, 1)`; for every number
of partitions P: distributed KRR with the Matérn-7/2 kernel and penalty :math:`\rho`
(:func:`krepro.distributed.local_predictions_nested`), B bootstrap resamples of the P local
prediction vectors, and for every prediction-set size T the band of eqs. (10)–(11) on the
first T points; recorded: whether the percentile band (the authors' code) and the basic band
(eqs. (7)/(10)) cover :math:`f^*` at all T points, the squared error of :math:`\bar f`, the
tail index and the band's joint bootstrap coverage.

Cost-saving structure: one training sample and one prediction set per
repetition are shared by every (P, T) configuration — the smaller prediction sets are the
first T points of the largest, the finer partitions are sub-blocks of the coarsest — and one
bootstrap per (repetition, P) serves all T. Each single configuration therefore sees exactly
the reference protocol's law in every repetition (coverage estimates and their intervals are
unchanged in distribution); different configurations are positively correlated (paired).

Numerics: the kernel solves are float64 (the local systems have condition numbers ~1e7) and
O(n) per block through the state-space form of the Matérn kernel
(:mod:`krepro.distributed.matern_krr`; ``solver="dense"`` keeps the Cholesky path); the
bootstrap product is float32 through a low-rank factorisation of the centred local
predictions (:func:`krepro.distributed.bootstrap.bootstrap_deviations` with
``rank_tolerance=1e-6``), which keeps every replicate within ~2e-5 of its component's
bootstrap spread of the exact float64 value (measured at paper scale; float32 rounding
dominates).

Random streams: the sample, the prediction set and the bootstrap counts of each P come from
:func:`krepro.seeding.generator` keyed by ``("coverage", repetition, what)`` — not by the
penalty variant (so variants are paired too), nor by the shard, so results do not depend on
how repetitions are split into jobs.
"""

from __future__ import annotations

import io
import time
from dataclasses import asdict, dataclass

import numpy as np

from krepro.distributed import local_predictions_nested
from krepro.distributed.bands import select_bands
from krepro.distributed.bootstrap import bootstrap_deviations
from krepro.records import atomic_write_bytes
from krepro.seeding import generator
from krepro.studies.coverage.readings import BANDS

__all__ = [
    "CoverageSettings",
    "draw_sample",
    "load_shards",
    "noise_sd",
    "penalty",
    "run_repetition",
    "run_shard",
    "save_shard",
    "settings_from_config",
    "shard",
    "true_function",
]

_RESULT_ARRAYS = ("covered", "tail_index", "n_inside", "squared_error", "cpu_seconds")


def true_function(x):
    """:math:`f^*(x) = \\sin(2\\pi x)` (the paper writes 2·3.14·x; the code uses π)."""
    return np.sin(2.0 * np.pi * np.asarray(x, dtype=float))


def noise_sd(x):
    """Noise standard deviation :math:`e^{2|x - 0.5|}`: variance :math:`e^{4|x-0.5|}` (41)."""
    return np.exp(2.0 * np.abs(np.asarray(x, dtype=float) - 0.5))


def penalty(n_samples, rho_scale, rho_smoothness):
    r"""Penalty :math:`\rho = c\,N^{-2s/(2s+1)}` (the authors' code; eq. (34) is not available).

    ``rho_smoothness = 3`` gives the code's :math:`N^{-6/7}`; ``4`` gives :math:`N^{-8/9}`
    (:math:`b = 8` for Matérn 7/2, the ablation).
    """
    s = float(rho_smoothness)
    return float(rho_scale) * float(n_samples) ** (-2.0 * s / (2.0 * s + 1.0))


@dataclass(frozen=True)
class CoverageSettings:
    """Everything one repetition needs besides the seed (one penalty variant)."""

    n_samples: int
    partitions: tuple
    targets: tuple
    n_resamples: int
    confidence_level: float
    rho: float
    nu: float = 3.5
    length_scale: float = 1.0


def settings_from_config(section, variant):
    """:class:`CoverageSettings` of one penalty variant of the ``coverage`` config section."""
    params = section["variants"][variant]
    return CoverageSettings(
        n_samples=int(section["n_samples"]),
        partitions=tuple(int(p) for p in section["partitions"]),
        targets=tuple(int(t) for t in section["targets"]),
        n_resamples=int(section["n_resamples"]),
        confidence_level=float(section["confidence_level"]),
        rho=penalty(section["n_samples"], params["rho_scale"], params["rho_smoothness"]),
        nu=float(section["kernel"]["nu"]),
        length_scale=float(section["kernel"]["length_scale"]),
    )


def draw_sample(seed, repetition, n_samples, n_targets):
    """Training sample and prediction set of one repetition (steps 1–2).

    Returns
    -------
    x, y : ndarray of shape (n_samples,)
    x_targets : ndarray of shape (n_targets,)
        The prediction set; a configuration with T points uses the first T.
    """
    rng = generator(seed, "coverage", repetition, "sample")
    x = rng.random(n_samples)
    y = true_function(x) + noise_sd(x) * rng.standard_normal(n_samples)
    x_targets = generator(seed, "coverage", repetition, "targets").random(n_targets)
    return x, y, x_targets


def run_repetition(
    seed,
    repetition,
    settings,
    bootstrap_dtype=np.float32,
    rank_tolerance=1e-6,
    solver="statespace",
    return_bands=False,
):
    """One repetition of the whole (P, T) grid.

    Parameters
    ----------
    seed : int
    repetition : int
    settings : CoverageSettings
    bootstrap_dtype : numpy dtype, default=numpy.float32
        Precision of the bootstrap product (the kernel solves are always float64).
    rank_tolerance : float or None, default=1e-6
        Low-rank bootstrap product, see :func:`krepro.distributed.bootstrap.bootstrap_deviations`:
        replicates move by ~1e-6 of their spread, below the ~1e-5 of float32 rounding
        (``None`` and float64: the exact product).
    solver : {"statespace", "dense"}, default="statespace"
        Local KRR solver, see :func:`krepro.distributed.local_predictions_nested` (O(n)
        state-space recursions, or dense Cholesky; equal to ~1e-8 of the predictions' scale).
    return_bands : bool, default=False
        Also return ``"bands"``: ``{P: NestedBands}`` (deviation bands, for tests).

    Returns
    -------
    result : dict
        ``covered`` bool (n_P, n_T, 2) — band covers :math:`f^*` at all T points, for
        ``BANDS``; ``tail_index`` (n_P, n_T); ``n_inside`` (n_P, n_T) — replicates inside
        the band (joint bootstrap coverage × B); ``squared_error`` (n_P, n_T) —
        :math:`\\lVert\\bar{\\mathsf f} - \\mathsf f^*\\rVert^2 / T`; ``cpu_seconds``.
    """
    start = time.process_time()
    targets = np.asarray(settings.targets)
    x, y, x_targets = draw_sample(seed, repetition, settings.n_samples, int(targets[-1]))
    truth = true_function(x_targets)
    local = local_predictions_nested(
        x,
        y,
        x_targets,
        settings.partitions,
        settings.rho,
        nu=settings.nu,
        length_scale=settings.length_scale,
        solver=solver,
    )
    all_bands = {}
    shape = (len(settings.partitions), len(targets))
    covered = np.zeros((*shape, len(BANDS)), dtype=bool)
    tail_index = np.zeros(shape, dtype=np.int32)
    n_inside = np.zeros(shape, dtype=np.int32)
    squared_error = np.zeros(shape)
    for j, p in enumerate(settings.partitions):
        estimate = local[p].mean(axis=0)
        error = estimate - truth
        squared_error[j] = np.cumsum(error**2)[targets - 1] / targets
        deviations = bootstrap_deviations(
            local[p],
            settings.n_resamples,
            generator(seed, "coverage", repetition, "bootstrap", p),
            dtype=bootstrap_dtype,
            rank_tolerance=rank_tolerance,
        )
        bands = select_bands(deviations, settings.confidence_level, sizes=targets)
        all_bands[p] = bands
        tail_index[j] = bands.tail_index
        n_inside[j] = bands.n_inside
        for k in range(len(targets)):
            low, high = (band.astype(float) for band in bands.band(k))
            t = int(targets[k])
            # Percentile: f̄ + low < f* < f̄ + high. Basic (eq. (7)/(10)): l < f̄ − f* < u.
            covered[j, k, 0] = np.all((low < -error[:t]) & (-error[:t] < high))
            covered[j, k, 1] = np.all((low < error[:t]) & (error[:t] < high))
    result = {
        "covered": covered,
        "tail_index": tail_index,
        "n_inside": n_inside,
        "squared_error": squared_error,
        "cpu_seconds": time.process_time() - start,
    }
    if return_bands:
        result["bands"] = all_bands
    return result


def run_shard(seed, first, stop, settings, log=None, **options):
    """Repetitions ``first, ..., stop - 1``, stacked along a leading axis.

    ``options`` go to :func:`run_repetition` (``bootstrap_dtype``, ``rank_tolerance``,
    ``solver``).
    """
    results = []
    for repetition in range(first, stop):
        results.append(run_repetition(seed, repetition, settings, **options))
        if log is not None:
            log.info("repetition %d: %.2f CPU-s", repetition, results[-1]["cpu_seconds"])
    shard = {key: np.array([r[key] for r in results]) for key in _RESULT_ARRAYS}
    shard["repetition"] = np.arange(first, stop)
    return shard


def save_shard(path, shard, settings, variant, seed):
    """Write a shard and its settings as ``.npz`` (atomically)."""
    meta = {f"setting_{key}": np.asarray(value) for key, value in asdict(settings).items()}
    buffer = io.BytesIO()
    np.savez(
        buffer,
        **shard,
        **meta,
        variant=np.asarray(variant),
        seed=np.asarray(seed),
        bands=np.asarray(BANDS),
    )
    atomic_write_bytes(path, buffer.getvalue())


def load_shards(paths):
    """Read shards; returns a list of dicts of arrays (settings under ``setting_*``)."""
    shards = []
    for path in paths:
        with np.load(path) as data:
            shards.append({key: data[key] for key in data.files})
    return shards


def shard(job, log):
    """Job ``coverage_shard``: repetitions first..last of one penalty variant → ``.npz``."""
    wildcards, params = job.wildcards, job.params
    settings = settings_from_config(params.section, wildcards.variant)
    first, last = int(wildcards.first), int(wildcards.last)
    log.info("variant %s, repetitions %d..%d, %s", wildcards.variant, first, last, settings)
    result = run_shard(params.seed, first, last + 1, settings, log=log)
    save_shard(job.output[0], result, settings, wildcards.variant, params.seed)
