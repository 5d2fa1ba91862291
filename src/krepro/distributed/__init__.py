"""Divide-and-conquer kernel ridge regression with bootstrap confidence bands.

:mod:`krepro.distributed.krr` holds :class:`DistributedKernelRidge`,
:mod:`krepro.distributed.bootstrap` the bootstrap of the local predictions,
:mod:`krepro.distributed.bands` the simultaneous bands, :mod:`krepro.distributed.matern_krr`
the O(n) one-dimensional Matérn recursions.
"""

from krepro.distributed.krr import (
    BootstrapBand,
    DistributedKernelRidge,
    NestedBands,
    bootstrap_band,
    bootstrap_counts,
    bootstrap_deviations,
    local_predictions_nested,
    matern_1d,
    partition_bounds,
    select_bands,
)

__all__ = [
    "BootstrapBand",
    "DistributedKernelRidge",
    "NestedBands",
    "bootstrap_band",
    "bootstrap_counts",
    "bootstrap_deviations",
    "local_predictions_nested",
    "matern_1d",
    "partition_bounds",
    "select_bands",
]
