r"""Bootstrap of the local predictions of distributed regression (arXiv:2105.11425, eqs. (7)–(11)).

The :math:`P` local prediction vectors :math:`\hat{\mathsf f}_p \in \mathbb R^T` (e.g.
:meth:`krepro.distributed.DistributedKernelRidge.predict_local`) are resampled with
replacement :math:`P` times and averaged, :math:`\bar{\mathsf f}^\flat_b`, for
:math:`b = 1..B` (eqs. (8)–(9)). :func:`bootstrap_deviations` draws the multinomial
resampling counts :math:`W` (uniform index draws, counted) and computes all replicates as one
matrix product :math:`W (F - \bar F) / P`; the band of eqs. (10)–(11) is then chosen by
:func:`krepro.distributed.bands.select_bands`.

Two bands come out of the same bootstrap (:func:`bootstrap_band`): the *percentile* band
:math:`(L, U)` (what the authors' code checks) and the *basic* band of eqs. (7)/(10),
:math:`l^\flat < \bar{\mathsf f} - \mathsf f^* < u^\flat` with
:math:`l^\flat = L - \bar{\mathsf f}`, :math:`u^\flat = U - \bar{\mathsf f}`, i.e.
:math:`(2\bar{\mathsf f} - U, 2\bar{\mathsf f} - L)`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit
from scipy import linalg, sparse

from krepro.distributed.bands import check_level, select_bands
from krepro.seeding import as_generator

__all__ = [
    "BootstrapBand",
    "bootstrap_band",
    "bootstrap_counts",
    "bootstrap_deviations",
]

# Resamples whose partition indices are drawn at once (1000 × 4096 int32 = 16 MB). Fixed, so
# the random stream is consumed the same way always.
_COUNT_CHUNK = 1000
# Counts per block counted and multiplied at once (1 MiB of float32: stays in the cache).
_COUNT_BLOCK_ENTRIES = 1 << 18
# Largest rank tried by the low-rank bootstrap product, and the size of the first try.
_LOW_RANK_MAX = 96
_LOW_RANK_FIRST = 64
# Smallest squared tolerance checked by Pythagoras instead of an explicit residual: 100 times
# the ~1e-15 relative error of |c|^2 - |Q^T c|^2 (the coverage study's 1e-6 qualifies).
_PYTHAGORAS_MIN = 1e-13
# Seed of the fixed test matrix of the randomised range finder (results must not depend on
# the caller's random stream).
_TEST_MATRIX_SEED = 0


def _raw_bits(n_partitions):
    """Whether draws are low bits of raw 16-bit pieces (a power of two ``P <= 2**16``)."""
    return n_partitions & (n_partitions - 1) == 0 and n_partitions <= 1 << 16


def _draw_partitions(rng, n_resamples, n_partitions):
    """The drawn partition indices of ``n_resamples`` resamples, row-major, as int32.

    For a power of two ``P <= 2**16`` the draws are the low bits of 16-bit pieces of the
    generator's raw 64-bit output (exactly uniform, twice as fast as ``rng.integers``);
    otherwise ``rng.integers``.
    """
    size = n_resamples * n_partitions
    draws = np.empty(size, dtype=np.int32 if n_partitions < 2**31 else np.int64)
    if _raw_bits(n_partitions):
        words = rng.bit_generator.random_raw(-(-size // 4)).view(np.uint16)[:size]
        # Mask in place in uint16, then widen: several times faster than a casting mask.
        np.bitwise_and(words, np.uint16(n_partitions - 1), out=words)
        draws[:] = words
    else:
        draws[:] = rng.integers(0, n_partitions, size=size)
    return draws


def _count(draws, n_partitions, dtype, ones=None, row_starts=None):
    """Counts of flat draws, one row per ``n_partitions`` of them (CSR to dense).

    SciPy's CSR-to-dense conversion sums duplicate column indices of a row: several times
    faster than ``np.bincount`` on flat offsets, and directly in ``dtype``. ``ones`` and
    ``row_starts`` may pass reusable buffers of at least the needed length.
    """
    n_rows = len(draws) // n_partitions
    if ones is None:
        ones = np.ones(len(draws), dtype=dtype)
    if row_starts is None:
        row_starts = np.arange(0, len(draws) + 1, n_partitions, dtype=draws.dtype)
    matrix = sparse.csr_array(
        (ones[: len(draws)], draws, row_starts[: n_rows + 1]), shape=(n_rows, n_partitions)
    )
    return matrix.toarray()


@njit(cache=True)
def _count_pieces(pieces, mask, counts):
    """Add 1 to ``counts[b, pieces[b * P + j] & mask]`` for every b and j (P = columns).

    The draws of :func:`_draw_partitions`'s raw-bit path, counted straight from the
    generator's 16-bit pieces: no widened index array and no sparse matrix.
    """
    n_rows, n_partitions = counts.shape
    k = 0
    for row in range(n_rows):
        for _ in range(n_partitions):
            counts[row, pieces[k] & mask] += 1
            k += 1


def _raw_counts(rng, n_resamples, n_partitions, dtype):
    """Counts of ``n_resamples`` resamples of a power-of-two ``P`` that 4 divides.

    The same draws as ``_count(_draw_partitions(...))`` (low bits of the 16-bit pieces of
    ``P / 4`` raw words per resample), hence the same counts, in about half the time.
    """
    pieces = rng.bit_generator.random_raw(n_resamples * n_partitions // 4).view(np.uint16)
    counts = np.zeros((n_resamples, n_partitions), dtype=dtype)
    _count_pieces(pieces, np.uint16(n_partitions - 1), counts)
    return counts


def _fused(n_partitions):
    """Whether counts come from :func:`_raw_counts` (raw-bit draws, whole words per row)."""
    return n_partitions % 4 == 0 and _raw_bits(n_partitions)


def bootstrap_counts(rng, n_resamples, n_partitions, dtype=np.int64):
    """Resampling counts of eq. (8): row b counts how often each partition is drawn.

    Each row is ``n_partitions`` uniform draws with replacement from
    ``range(n_partitions)``, counted, i.e. Multinomial(P, 1/P, ..., 1/P) (draws as in
    :func:`_draw_partitions`, counted by :func:`_count`).

    Parameters
    ----------
    rng : numpy.random.Generator
    n_resamples, n_partitions : int
    dtype : numpy dtype, default=numpy.int64
        Of the returned counts (exact in float32 too: they are at most ``P <= 2**24``).

    Returns
    -------
    counts : ndarray of shape (n_resamples, n_partitions)
        Rows sum to ``n_partitions``.
    """
    if _fused(n_partitions):
        return _raw_counts(rng, n_resamples, n_partitions, dtype)
    return _count(_draw_partitions(rng, n_resamples, n_partitions), n_partitions, dtype)


def _check_local_predictions(local_predictions):
    local = np.asarray(local_predictions, dtype=float)
    if local.ndim == 1:
        local = local[:, None]
    if local.ndim != 2 or local.shape[0] < 1 or local.shape[1] < 1:
        raise ValueError(
            "local_predictions must have shape (n_partitions, n_points), got"
            f" {np.shape(local_predictions)}."
        )
    if not np.all(np.isfinite(local)):
        raise ValueError("local_predictions contain NaN or infinite values.")
    return local


def _low_rank(centred, tolerance):
    """Factors ``(Q, R)`` with ``centred ≈ Q @ R``, or None when that would not pay.

    Randomised range finder with a fixed test matrix (so results are deterministic): Q is an
    orthonormal basis of ``centred @ Omega`` and R = Qᵀ·centred; the rank is the smallest
    prefix of Q whose residual is at most ``tolerance`` times the norm of every column
    (verified, including the part outside the range of Q). Smooth local prediction curves
    make the (P, T) matrix numerically low-rank: about 60 of 512 at 1e-8 in the coverage study.
    The first ``_LOW_RANK_FIRST`` columns of Omega are tried first, ranks chosen there by the
    whole residual energy (Pythagoras), which bounds the tail energy the full test matrix
    sees from above: the rank is then never below the full test matrix's, and equal to it
    unless the energy outside both ranges tips the balance; and since the leading columns of
    a Householder QR depend only on the leading columns of its input, equal ranks give the
    same factors to rounding. The full Omega runs only when the first try finds no rank.
    """
    n_rows, n_cols = centred.shape
    # A rank-k product costs k (P + T) per resample against P T for the full one.
    k_max = min(_LOW_RANK_MAX, n_cols, int(0.5 * n_rows * n_cols / (n_rows + n_cols)))
    if k_max < 8:
        return None
    omega = _test_matrix(n_cols, k_max)
    column_norms = np.einsum("ij,ij->j", centred, centred)
    if k_max > _LOW_RANK_FIRST and tolerance**2 >= _PYTHAGORAS_MIN:
        factors = _range_factors(centred, omega[:, :_LOW_RANK_FIRST], column_norms, tolerance, True)
        if factors is not None:
            return factors
    return _range_factors(centred, omega, column_norms, tolerance)


def _range_factors(centred, omega, column_norms, tolerance, whole_residual=False):
    """:func:`_low_rank` for one test matrix: ``(Q, R)`` of the chosen rank, or None."""
    # SciPy's economic QR: the same LAPACK result as np.linalg.qr, less overhead.
    basis, _ = linalg.qr(centred @ omega, mode="economic", overwrite_a=True, check_finite=False)
    coefficients = basis.T @ centred
    squares = coefficients**2
    if whole_residual:
        # Energy outside the first r columns of Q, by Pythagoras (accurate to ~1e-15 |c|^2).
        tail = np.empty_like(squares)
        tail[0] = column_norms
        np.subtract(column_norms, np.cumsum(squares[:-1], axis=0), out=tail[1:])
    else:
        # Energy left beyond each prefix rank within the range of Q, per column (tail sums:
        # no cancellation); the chosen rank is then checked directly.
        tail = np.cumsum(squares[::-1], axis=0)[::-1]  # tail[r] = sum over rows >= r
    leftover = tail / np.maximum(column_norms, 1e-300)
    good = np.flatnonzero(np.all(leftover <= (0.5 * tolerance) ** 2, axis=1))
    if len(good) == 0 or good[0] == 0:
        return None
    rank = int(good[0])  # rows 0..rank-1 are kept; the energy of rows >= rank is small
    left, right = basis[:, :rank], coefficients[:rank]
    if tolerance**2 >= _PYTHAGORAS_MIN:
        # Residual norms by Pythagoras (Q has orthonormal columns to ~1e-15): |c - Q Q^T c|^2
        # = |c|^2 - |Q^T c|^2, accurate to ~1e-15 |c|^2, far below tolerance^2 |c|^2.
        kept = np.einsum("ij,ij->j", right, right)
        squared = np.maximum(column_norms - kept, 0.0)
    else:
        residual = centred - left @ right
        squared = np.einsum("ij,ij->j", residual, residual)
    error = np.sqrt(squared / np.maximum(column_norms, 1e-300))
    if np.any(error > tolerance):
        return None
    return left, right


@lru_cache(maxsize=4)
def _test_matrix(n_cols, k):
    """Fixed Gaussian test matrix of the range finder (cached, read-only)."""
    omega = as_generator(_TEST_MATRIX_SEED).standard_normal((n_cols, k))
    omega.flags.writeable = False
    return omega


def bootstrap_deviations(
    local_predictions, n_resamples=5000, random_state=None, dtype=None, rank_tolerance=None
):
    r"""Bootstrap replicates :math:`\bar{\mathsf f}^\flat_b - \bar{\mathsf f}` (eqs. (8)–(9)).

    Computed as one matrix product per chunk of resamples,
    :math:`(W (F - \bar F) / P)^\top` with :math:`W` the counts of :func:`bootstrap_counts`
    (the counts sum to :math:`P`, so centring :math:`F` first changes nothing but rounding).

    Parameters
    ----------
    local_predictions : array-like of shape (n_partitions, n_points)
        The local prediction vectors :math:`\hat{\mathsf f}_p` as rows.
    n_resamples : int, default=5000
        :math:`B`.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
    dtype : {None, numpy.float64, numpy.float32}, default=None
        Precision of the product (``None``: float64). float32 halves the cost; the counts
        are exact in it and the centred predictions lose ~1e-7 relative, far below the
        spread of the replicates.
    rank_tolerance : float, default=None
        If given, multiply through a low-rank factorisation :math:`F - \bar F \approx QR`
        whose residual is at most ``rank_tolerance`` times the norm of each column of
        :math:`F - \bar F` (checked; the full product is used when no such factorisation of
        rank below :math:`PT/(2(P+T))` is found). Each replicate then moves by about that
        fraction of the bootstrap spread of its component. ``None``: exact product.

    Returns
    -------
    deviations : ndarray of shape (n_points, n_resamples)
        Components in rows (the layout :func:`select_bands` works on).
    """
    local = _check_local_predictions(local_predictions)
    if not isinstance(n_resamples, numbers.Integral) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}.")
    dtype = np.dtype(np.float64 if dtype is None else dtype)
    rng = as_generator(random_state)
    n_partitions, n_points = local.shape
    centred = local - local.mean(axis=0)
    factors = None if rank_tolerance is None else _low_rank(centred, float(rank_tolerance))
    # Scaling by 1 / P is exact for a power of two P, so it can go into the first factor
    # (same bits as scaling the result); otherwise the result is scaled at the end.
    exact_scale = _raw_bits(n_partitions)
    if factors is None:
        left_t, right_t = np.ascontiguousarray(centred.T, dtype=dtype), None
    else:
        left_t = np.ascontiguousarray(factors[0].T, dtype=dtype)
        right_t = np.ascontiguousarray(factors[1].T, dtype=dtype)
    if exact_scale:
        left_t *= dtype.type(1.0 / n_partitions)
    deviations = np.empty((n_points, n_resamples), dtype=dtype)
    # Draw per chunk (the stream's consumption never changes); count and multiply per
    # cache-sized block of rows.
    block = max(1, min(_COUNT_CHUNK, _COUNT_BLOCK_ENTRIES // n_partitions))
    # Raw-bit draws consume exactly P / 4 words per resample when 4 divides P, so drawing
    # per block then gives the same stream as per chunk (and stays in the cache); their
    # counts come straight from the raw words (_raw_counts).
    per_block = _fused(n_partitions)
    if not per_block:
        ones = np.ones(block * n_partitions, dtype=dtype)
        row_starts = np.arange(0, (block + 1) * n_partitions, n_partitions, dtype=np.int64)
    for start in range(0, n_resamples, _COUNT_CHUNK):
        stop = min(start + _COUNT_CHUNK, n_resamples)
        draws = None if per_block else _draw_partitions(rng, stop - start, n_partitions)
        product = np.empty((left_t.shape[0], stop - start), dtype=dtype)
        for first in range(start, stop, block):
            last = min(first + block, stop)
            if per_block:
                counts = _raw_counts(rng, last - first, n_partitions, dtype)
            else:
                part = draws[(first - start) * n_partitions : (last - start) * n_partitions]
                row_starts = row_starts.astype(part.dtype, copy=False)
                counts = _count(part, n_partitions, dtype, ones, row_starts)
            np.matmul(left_t, counts.T, out=product[:, first - start : last - start])
        if right_t is None:
            deviations[:, start:stop] = product
        else:
            np.matmul(right_t, product, out=deviations[:, start:stop])
    if not exact_scale:
        deviations *= dtype.type(1.0 / n_partitions)
    return deviations


@dataclass(frozen=True)
class BootstrapBand:
    r"""A simultaneous bootstrap confidence band for :math:`\mathsf f^*` (eqs. (7)–(11)).

    Attributes
    ----------
    estimate : ndarray of shape (T,)
        :math:`\bar{\mathsf f}`, the averaged prediction (eq. (6)).
    lower, upper : ndarray of shape (T,)
        Percentile band :math:`(L, U)`: the order statistics :math:`v_t(i)` and
        :math:`v_t(B-1-i)` of :math:`\bar{\mathsf f}^\flat_{\cdot,t}` (the authors' code).
    basic_lower, basic_upper : ndarray of shape (T,)
        Basic ("reflected") band of eqs. (7)/(10): :math:`2\bar{\mathsf f} - U`,
        :math:`2\bar{\mathsf f} - L`.
    tail_index : int
        :math:`i`.
    tail_probability : float
        Per component and side, the bootstrap share of replicates not strictly inside,
        :math:`(i + 1)/B` without ties — the :math:`\mathrm c` of eq. (11).
    bootstrap_coverage : float
        Joint bootstrap coverage of the band (share of replicates strictly inside in every
        component); exceeds ``confidence_level`` unless even :math:`i = 0` does not.
    n_resamples : int
    confidence_level : float
    """

    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    basic_lower: np.ndarray
    basic_upper: np.ndarray
    tail_index: int
    tail_probability: float
    bootstrap_coverage: float
    n_resamples: int
    confidence_level: float

    def covers(self, values, kind="percentile"):
        """Whether ``lower < values < upper`` in every component (strict, as in the paper).

        ``kind`` is ``"percentile"`` or ``"basic"``.
        """
        values = np.asarray(values, dtype=float)
        if kind == "percentile":
            lower, upper = self.lower, self.upper
        elif kind == "basic":
            lower, upper = self.basic_lower, self.basic_upper
        else:
            raise ValueError(f"kind must be 'percentile' or 'basic', got {kind!r}.")
        return bool(np.all((lower < values) & (values < upper)))


def bootstrap_band(
    local_predictions, confidence_level=0.95, n_resamples=5000, random_state=None, dtype=None
):
    r"""Bootstrap confidence band from the local predictions (eqs. (8)–(11)).

    Parameters
    ----------
    local_predictions : array-like of shape (n_partitions, T)
        Row :math:`p` is :math:`\hat{\mathsf f}_p`, e.g.
        :meth:`krepro.distributed.DistributedKernelRidge.predict_local`; a 1-D array is one
        component. At least 2 partitions.
    confidence_level : float, default=0.95
        Joint bootstrap coverage :math:`1-\alpha` (eq. (10)).
    n_resamples : int, default=5000
        :math:`B`, at least 2.
    random_state : None, int, SeedSequence, Generator or RandomState, default=None
    dtype : {None, numpy.float64, numpy.float32}, default=None
        Precision of the bootstrap product, see :func:`bootstrap_deviations`.

    Returns
    -------
    band : BootstrapBand

    Examples
    --------
    >>> import numpy as np
    >>> from krepro.distributed.bootstrap import bootstrap_band
    >>> local = np.random.default_rng(0).normal(size=(256, 4))
    >>> band = bootstrap_band(local, n_resamples=2000, random_state=1)
    >>> band.bootstrap_coverage > 0.95, band.lower.shape
    (True, (4,))
    """
    local = _check_local_predictions(local_predictions)
    check_level(confidence_level)
    if local.shape[0] < 2:
        raise ValueError(
            "bootstrap_band needs at least 2 partitions (rows of local_predictions),"
            f" got n_partitions = {local.shape[0]}: every resample of one partition is the"
            " same and the band would have zero width."
        )
    if not isinstance(n_resamples, numbers.Integral) or n_resamples < 2:
        raise ValueError(
            f"bootstrap_band needs n_resamples >= 2 (an integer), got n_resamples ="
            f" {n_resamples!r}: one resample gives a zero-width band."
        )
    deviations = bootstrap_deviations(local, n_resamples, random_state, dtype)
    bands = select_bands(deviations, confidence_level)
    lower_dev, upper_dev = bands.band(0)
    estimate = local.mean(axis=0)
    index = int(bands.tail_index[0])
    lower_dev, upper_dev = lower_dev.astype(float), upper_dev.astype(float)
    return BootstrapBand(
        estimate=estimate,
        lower=estimate + lower_dev,
        upper=estimate + upper_dev,
        basic_lower=estimate - upper_dev,
        basic_upper=estimate - lower_dev,
        tail_index=index,
        tail_probability=(index + 1) / n_resamples,
        bootstrap_coverage=float(bands.bootstrap_coverage[0]),
        n_resamples=int(n_resamples),
        confidence_level=float(confidence_level),
    )
