r"""Simultaneous bootstrap bands with one tail index (Avanesov, arXiv:2105.11425, eqs. (10)–(11)).

Given bootstrap replicates :math:`\bar{\mathsf f}^\flat_b \in \mathbb R^T`, :math:`b = 1..B`
(:mod:`krepro.distributed.bootstrap`), the band uses one tail index :math:`i` for all components:
:math:`L_t = v_t(i)`, :math:`U_t = v_t(B-1-i)` with :math:`v_t(0) \le \dots \le v_t(B-1)` the
sorted :math:`\bar{\mathsf f}^\flat_{b,t}`, so every component has the same bootstrap tail
probability (eq. (11)); :math:`i` is the largest index whose joint bootstrap coverage
:math:`B^{-1}\#\{b: L < \bar{\mathsf f}^\flat_b < U\}` (strict, all :math:`t`) still exceeds
the level, found as in the authors' code: stop at the first :math:`i` with coverage
:math:`\le` level and return :math:`\max(0, i - 1)`.

:func:`select_bands` finds the tail index without a loop over :math:`i` or :math:`b`: with the
depth :math:`d_{b,t} = \min(\#\{b': v_{b',t} < v_{b,t}\}, \#\{b': v_{b',t} > v_{b,t}\})` of
replicate :math:`b` in component :math:`t` and :math:`m_b = \min_t d_{b,t}`, replicate
:math:`b` lies strictly inside band :math:`i` iff :math:`m_b > i`; the loop's stopping index is
an order statistic of :math:`m`. Only the :math:`\lceil k/2\rceil` most extreme replicates per
component matter (:math:`k` = replicates allowed outside), found by partial sorting; nested
prefixes :math:`T_1 < T_2 < \dots` of the components share the work (prefix minima).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

__all__ = ["NestedBands", "check_level", "select_bands"]

# Replicates per component used for the moments behind the candidate threshold.
_MOMENT_COLUMNS = 1024


def check_level(confidence_level):
    """``confidence_level`` as a float in (0, 1), else a ValueError naming it."""
    if not 0.0 < float(confidence_level) < 1.0:
        raise ValueError(f"confidence_level must lie in (0, 1), got {confidence_level!r}.")
    return float(confidence_level)


def _max_inside(confidence_level, n_resamples):
    """Largest count j of replicates inside a band with j / B <= level (the loop's test)."""
    j = int(np.floor(confidence_level * n_resamples))
    while j + 1 <= n_resamples and (j + 1) / n_resamples <= confidence_level:
        j += 1
    while j >= 0 and j / n_resamples > confidence_level:
        j -= 1
    return j


def _run_starts(sorted_values):
    """Per row of a sorted array: index of the first entry equal to each entry.

    For ascending rows this is the number of strictly smaller entries of the row (within the
    sorted part); for descending rows the number of strictly larger ones.
    """
    n = sorted_values.shape[1]
    starts = np.ones(sorted_values.shape, dtype=bool)
    starts[:, 1:] = sorted_values[:, 1:] != sorted_values[:, :-1]
    positions = np.where(starts, np.arange(n, dtype=np.int32), np.int32(0))
    return np.maximum.accumulate(positions, axis=1)


def _depth_dtype(cap):
    return np.int16 if cap < np.iinfo(np.int16).max else np.int32


def _tail_depths_sorted(values, cap):
    """Exact capped depths and tails (ties included) by a full sort of every row."""
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    below = _run_starts(ordered)
    above = _run_starts(ordered[:, ::-1])[:, ::-1]
    depth_sorted = np.minimum(np.minimum(below, above), cap).astype(_depth_dtype(cap))
    depth = np.empty_like(depth_sorted)
    np.put_along_axis(depth, order, depth_sorted, axis=1)
    return depth, ordered[:, :cap], ordered[:, ::-1][:, :cap]


def _tail_candidates(values, mask, cap, sign):
    """Sorted tail of each row among the candidate entries ``mask`` (see :func:`_tail_depths`).

    ``sign = 1`` for the lower tail, ``-1`` for the upper tail (sorted by ``-value``).

    Returns
    -------
    rows, cols, depth : ndarray
        Candidate positions and their number of strictly smaller (``sign = -1``: larger)
        entries in the row.
    tail : ndarray of shape (R, cap)
        ``sign *`` the ``cap`` smallest of ``sign * values`` per row (rows in ``missed``:
        garbage).
    missed : ndarray of bool, shape (R,)
        Rows with fewer than ``cap`` candidates.
    """
    n_rows, n_cols = values.shape
    # Row-major positions (1-D flatnonzero is several times faster than the 2-D np.nonzero).
    flat = np.flatnonzero(mask)
    rows = flat // n_cols
    cols = flat - rows * n_cols
    counts = np.bincount(rows, minlength=n_rows)
    missed = counts < cap
    if missed.any():
        keep = ~missed[rows]
        flat, rows, cols = flat[keep], rows[keep], cols[keep]
        counts[missed] = 0
    width = max(int(counts.max()), cap)
    position = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    padded = np.full((n_rows, width), np.inf, dtype=values.dtype)
    chosen = np.take(values.reshape(-1), flat)
    padded.reshape(-1)[rows * width + position] = chosen if sign > 0 else -chosen
    order = np.argsort(padded, axis=1, kind="stable")
    ordered = np.take_along_axis(padded, order, axis=1)
    # Sorted position of each candidate: invert `order` (the padding sorts last).
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(width)[None, :], axis=1)
    depth = _run_starts(ordered)[rows, rank[rows, position]]
    tail = ordered[:, :cap] if sign > 0 else -ordered[:, :cap]
    return rows, cols, depth, tail, missed


def _tail_depths(values, cap):
    r"""Column minima of the capped depths and the ``cap`` extreme order statistics per row.

    Candidates for each tail are the entries beyond a threshold from a normal approximation
    of the row (about 2·cap + 20 entries expected beyond it). A row with at least ``cap``
    candidates in a tail is exact: every entry smaller than (or tied with) a candidate is a
    candidate itself, so counts among candidates are counts in the row, and entries that are
    not candidates have at least ``cap`` smaller entries. Rows with fewer candidates (a
    distribution far from normal) are redone by a full sort.

    Returns
    -------
    minimum : integer array of shape (B,)
        :math:`\min_t \min(\#\{b': v_{t,b'} < v_{t,b}\}, \#\{b': v_{t,b'} > v_{t,b}\},
        \text{cap})` over the rows :math:`t`: the depths' column minima (all the band
        selection needs).
    lower_tail : array of shape (R, cap)
        :math:`v_t(0) \le \dots \le v_t(\text{cap} - 1)`.
    upper_tail : array of shape (R, cap)
        :math:`v_t(B-1) \ge \dots \ge v_t(B - \text{cap})`.
    """
    n_resamples = values.shape[1]
    if 2 * cap > n_resamples:
        depth, lower_tail, upper_tail = _tail_depths_sorted(values, cap)
        return depth.min(axis=0), lower_tail, upper_tail
    # Moments from the first columns only: the threshold only decides which entries are
    # candidates (results are exact for any threshold), and replicates are exchangeable.
    # (Overflowing moments give NaN thresholds: no candidates, every row fully sorted.)
    sample = values[:, : min(n_resamples, _MOMENT_COLUMNS)]
    with np.errstate(over="ignore", invalid="ignore"):
        mean = sample.mean(axis=1)
        centred_square = np.einsum("ij,ij->i", sample, sample) / sample.shape[1] - mean**2
        z = ndtri(min(0.5, (2 * cap + 20) / n_resamples))
        spread = z * np.sqrt(np.maximum(centred_square, 0))
        # Thresholds in the values' dtype: a mixed-precision comparison is several times slower.
        below = (mean + spread).astype(values.dtype)[:, None]
        above = (mean - spread).astype(values.dtype)[:, None]
    low = _tail_candidates(values, values < below, cap, 1)
    high = _tail_candidates(values, values > above, cap, -1)
    missed = low[4] | high[4]
    dtype = _depth_dtype(cap)
    minimum = np.full(n_resamples, cap, dtype=dtype)
    # Only candidates can have depth < cap; the two tails are disjoint (spread <= 0).
    for rows, cols, depth, _, _ in (low, high):
        keep = ~missed[rows]
        np.minimum.at(minimum, cols[keep], np.minimum(depth[keep], cap).astype(dtype))
    lower_tail, upper_tail = low[3], high[3]
    missed = np.flatnonzero(missed)
    if len(missed):
        depth, lower_tail[missed], upper_tail[missed] = _tail_depths_sorted(values[missed], cap)
        np.minimum(minimum, depth.min(axis=0), out=minimum)
    return minimum, lower_tail, upper_tail


@dataclass(frozen=True)
class NestedBands:
    """Bands of eqs. (10)–(11) for nested prefixes ``[:T]`` of the components.

    Attributes
    ----------
    sizes : ndarray of shape (k,)
        Prefix sizes :math:`T_1 < \\dots < T_k`.
    tail_index : ndarray of shape (k,)
        Chosen tail index :math:`i` per prefix (band :math:`v_t(i), v_t(B-1-i)`).
    n_inside : ndarray of shape (k,)
        Replicates strictly inside the chosen band in all components of the prefix.
    n_resamples : int
    lower_tail, upper_tail : ndarray of shape (T, c)
        Smallest and largest order statistics of every component (ascending, descending),
        as far as the prefixes need them (NaN beyond; at least up to the tail index of every
        prefix that contains the component, plus one).
    """

    sizes: np.ndarray
    tail_index: np.ndarray
    n_inside: np.ndarray
    n_resamples: int
    lower_tail: np.ndarray
    upper_tail: np.ndarray

    def band(self, k):
        """(lower, upper) deviation band of prefix ``k``: arrays of shape ``(sizes[k],)``."""
        size, index = int(self.sizes[k]), int(self.tail_index[k])
        return self.lower_tail[:size, index], self.upper_tail[:size, index]

    @property
    def bootstrap_coverage(self):
        """Joint bootstrap coverage of each chosen band."""
        return self.n_inside / self.n_resamples


def select_bands(deviations, confidence_level=0.95, sizes=None):
    r"""Tail index of the band of eqs. (10)–(11), for nested prefixes of the components.

    For prefix size :math:`T`: the smallest :math:`i` whose band
    :math:`(v_t(i), v_t(B-1-i))_{t<T}` holds at most ``confidence_level`` of the replicates
    strictly inside in every component, minus one (at least 0) — the narrowest band whose
    joint bootstrap coverage still exceeds the level, as in the authors' code. No loop over
    :math:`i` or the replicates: replicate :math:`b` is inside band :math:`i` iff
    :math:`m_b = \min_{t<T} d_{b,t} > i` (depth :math:`d`, see the module docstring), so the
    stopping index is the :math:`(B - j)`-th smallest :math:`m_b` with :math:`j` the largest
    count allowed inside. Since one component alone already puts :math:`2(i+1)` replicates at
    depth :math:`\le i`, that index is below :math:`\lceil (B-j)/2\rceil`, and only that many
    extreme order statistics per component are needed. Ties are handled exactly.

    Parameters
    ----------
    deviations : array-like of shape (T, B)
        Bootstrap replicates (components in rows), e.g. from :func:`bootstrap_deviations`;
        any per-row shift (such as adding :math:`\bar{\mathsf f}`) gives the same indices.
    confidence_level : float, default=0.95
        Joint bootstrap coverage :math:`1-\alpha` to exceed.
    sizes : sequence of int, default=None
        Increasing prefix sizes (``None``: all ``T`` components).

    Returns
    -------
    bands : NestedBands
    """
    level = check_level(confidence_level)
    deviations = np.asarray(deviations)
    if deviations.ndim == 1:
        deviations = deviations[None, :]
    if deviations.ndim != 2 or deviations.size == 0:
        raise ValueError(f"deviations must have shape (T, B), got {deviations.shape}.")
    # A NaN or infinity makes its row's sum non-finite; only then (or on overflow) look closer.
    with np.errstate(over="ignore", invalid="ignore"):
        total_sum = np.add.reduce(deviations, axis=None)
    if not np.isfinite(total_sum) and not np.all(np.isfinite(deviations)):
        raise ValueError("deviations contain NaN or infinite values.")
    n_rows, n_resamples = deviations.shape
    sizes = np.array([n_rows] if sizes is None else sizes, dtype=np.int64)
    if sizes.ndim != 1 or len(sizes) == 0 or np.any(np.diff(sizes) <= 0):
        raise ValueError(f"sizes must be strictly increasing, got {sizes.tolist()}.")
    if sizes[0] < 1 or sizes[-1] > n_rows:
        raise ValueError(f"sizes must lie in [1, {n_rows}], got {sizes.tolist()}.")
    n_outside = n_resamples - _max_inside(level, n_resamples)  # >= 1 since level < 1
    # The stopping index is below ceil(n_outside / 2) (one component alone has 2(i+1)
    # replicates at depth <= i), so depths can be capped there. A later prefix cannot stop
    # later than an earlier one (its minima are smaller), so its new rows need depths only
    # up to the previous stopping index: cap = previous stop + 1.
    cap = -(-n_outside // 2)
    total = int(sizes[-1])
    lower_tail = np.full((total, cap), np.nan, dtype=deviations.dtype)
    upper_tail = np.full((total, cap), np.nan, dtype=deviations.dtype)
    tail_index, n_inside = [], []
    minimum, done = None, 0
    for size in sizes:
        block, low, high = _tail_depths(deviations[done:size], cap)
        lower_tail[done:size, :cap], upper_tail[done:size, :cap] = low, high
        minimum = block if minimum is None else np.minimum(minimum, block)
        done = size
        stop = int(np.partition(minimum, n_outside - 1)[n_outside - 1])
        index = max(0, stop - 1)
        tail_index.append(index)
        n_inside.append(int(np.count_nonzero(minimum > index)))
        cap = stop + 1
    return NestedBands(
        sizes=sizes,
        tail_index=np.array(tail_index, dtype=np.int64),
        n_inside=np.array(n_inside, dtype=np.int64),
        n_resamples=n_resamples,
        lower_tail=lower_tail,
        upper_tail=upper_tail,
    )
