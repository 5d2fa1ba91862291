r"""Measures of Table 1 and Fig. 3 of the oblivious-data paper (§7.1).

* :func:`misclassification_rate` — the paper's "mean prediction error".
* :func:`equal_opportunity_difference` — DEO of Donini et al. (2018):
  :math:`|\mathrm{TPR}_{S=0} - \mathrm{TPR}_{S=1}|`, the true-positive rates among the
  examples with :math:`y = +1` (with more than two groups, the largest minus the smallest rate,
  as fairlearn's ``equal_opportunity_difference``).
* :func:`beta_dependence` — the :math:`e_\beta` dependence of the paper's eq. (14) with
  empirical frequencies,

  .. math::

      \hat e_\beta(\hat Y, S) = c \sum_{s}\sum_{y}
      \bigl|\hat P(\hat Y = y, S = s) - \hat P(\hat Y = y)\,\hat P(S = s)\bigr| .

  The extracted text shows a leading factor that is probably ½ (Bradley's β-coefficient); the
  authors' code (``SVM_Example.estimate_beta_dependence``) uses :math:`c = 1`, and Table 1's
  numbers follow that convention (SVM linear 0.063 → "0.06"). **The default
  here is c = 1 (the Table 1 convention)**; ``halve=True`` gives Bradley's ½. The maximum with
  c = 1 is 1 (the prediction equals a balanced binary S).
* :func:`relative_beta_dependence` — :math:`e_\beta` relative to a baseline (Table 1: the SVM
  with the same kernel), as a fraction (1.0 = 100 %).
* :func:`hsic` and :func:`hsic_test` — the Hilbert–Schmidt independence criterion of two
  continuous variables (Gretton et al., 2008) and its permutation test: a dependence measure
  that, with characteristic (Gaussian) kernels, is zero in the population only under
  independence, so it sees dependence that a correlation misses.
* :func:`distance_correlation` and :func:`distance_correlation_test` — Székely, Rizzo and
  Bakirov's (2007) distance correlation between two samples, zero in the population iff they
  are independent, with a permutation p-value: the check of "independent of S" claims, which
  correlation alone cannot make (a spread that changes with S is uncorrelated with S);
  :func:`distance_correlation_permutations` also returns the permuted values (the level the
  statistic shows under independence).
* :func:`dependence_report` — the dependence of predictions on a continuous sensitive
  feature in one call: HSIC with its permutation p-value, the distance correlation, and the
  spread of the mean prediction over bins of S computed by fairlearn's ``MetricFrame`` (the
  binned measure practitioners use), as a :class:`DependenceReport`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from numbers import Integral

import numpy as np
import pandas as pd

from krepro.seeding import as_generator

__all__ = [
    "BINNINGS",
    "DependenceReport",
    "beta_dependence",
    "dependence_report",
    "distance_correlation",
    "distance_correlation_permutations",
    "distance_correlation_test",
    "equal_opportunity_difference",
    "hsic",
    "hsic_test",
    "misclassification_rate",
    "relative_beta_dependence",
    "true_positive_rates",
]


def _1d(values, name):
    values = np.asarray(values)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != 1:
        raise ValueError(f"{name} must be 1-d, got shape {values.shape}.")
    return values


def _same_length(**arrays):
    lengths = {name: len(a) for name, a in arrays.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"Inputs have different lengths: {lengths}.")


def misclassification_rate(y_true, y_pred):
    """Share of wrong predictions (the paper's "mean prediction error")."""
    y_true, y_pred = _1d(y_true, "y_true"), _1d(y_pred, "y_pred")
    _same_length(y_true=y_true, y_pred=y_pred)
    if len(y_true) == 0:
        raise ValueError("misclassification_rate of an empty sample.")
    return float(np.mean(y_true != y_pred))


def true_positive_rates(y_true, y_pred, sensitive_features, pos_label=1):
    """True-positive rate of every group: ``{group: #(ŷ = y = pos) / #(y = pos)}``.

    A group without positive examples has rate NaN.
    """
    y_true, y_pred = _1d(y_true, "y_true"), _1d(y_pred, "y_pred")
    s = _1d(sensitive_features, "sensitive_features")
    _same_length(y_true=y_true, y_pred=y_pred, sensitive_features=s)
    rates = {}
    for group in np.unique(s):
        positives = (s == group) & (y_true == pos_label)
        n = int(positives.sum())
        rates[group.item() if hasattr(group, "item") else group] = (
            float(np.mean(y_pred[positives] == pos_label)) if n else float("nan")
        )
    return rates


def equal_opportunity_difference(y_true, y_pred, *, sensitive_features, pos_label=1):
    """DEO: largest minus smallest true-positive rate over the groups (two groups: their gap).

    Returns NaN when a group has no positive example (the rate is undefined; the FERM
    reference returns ``None`` there).
    """
    rates = true_positive_rates(y_true, y_pred, sensitive_features, pos_label)
    rates = np.array(list(rates.values()))
    if len(rates) < 2:
        return 0.0
    return float(rates.max() - rates.min())


def beta_dependence(y_pred, sensitive_features, *, labels=None, halve=False):
    r"""Empirical :math:`e_\beta` dependence between predictions and S (paper eq. (14)).

    Parameters
    ----------
    y_pred : array-like of shape (n,)
        Predicted labels.
    sensitive_features : array-like of shape (n,)
        Discrete sensitive feature (each distinct value is one event {S = s}).
    labels : array-like, default=None
        Label values summed over; default: the distinct values of ``y_pred``. Labels that
        never occur in ``y_pred`` contribute 0, so for binary problems any superset gives the
        same value. (The authors' code sums over the labels of the *true* test labels.)
    halve : bool, default=False
        Multiply by ½ (Bradley's β-coefficient). False is the convention of the authors' code
        and of the paper's Table 1.

    Returns
    -------
    float
        0 iff the empirical joint law factorises; at most 1 (``halve=False``) for binary
        predictions and binary S, reached by ŷ = S with P̂(S = 1) = ½.
    """
    y_pred = _1d(y_pred, "y_pred")
    s = _1d(sensitive_features, "sensitive_features")
    _same_length(y_pred=y_pred, sensitive_features=s)
    if len(s) == 0:
        raise ValueError("beta_dependence of an empty sample.")
    labels = np.unique(y_pred) if labels is None else np.unique(np.asarray(labels))
    groups = np.unique(s)
    joint = np.array([[np.mean((y_pred == y) & (s == g)) for g in groups] for y in labels])
    p_y = np.array([np.mean(y_pred == y) for y in labels])
    p_s = np.array([np.mean(s == g) for g in groups])
    value = float(np.abs(joint - np.outer(p_y, p_s)).sum())
    return 0.5 * value if halve else value


def relative_beta_dependence(value, baseline):
    """``value / baseline`` (Table 1's "relative e_β", 1.0 = 100 %); NaN if baseline is 0."""
    return float(value / baseline) if baseline else float("nan")


def _unit_scale(values):
    """``values`` scaled by a power of two to a largest magnitude near 1 when it is extreme.

    HSIC with the median heuristic and the distance correlation do not change when an
    input is scaled, and scaling by a power of two is exact; it keeps their squared
    distances from overflowing (NaN from inf / inf) or underflowing (a zero median) for
    inputs of magnitude beyond 2^±200. Ordinary inputs are returned unchanged.
    """
    values = np.asarray(values, dtype=float)
    magnitude = float(np.abs(values).max(initial=0.0))
    if magnitude == 0.0 or 2.0**-200 <= magnitude <= 2.0**200:
        return values
    return np.ldexp(values, -math.frexp(magnitude)[1])


def _median_gaussian_gram(values):
    r"""Gaussian Gram matrix :math:`\exp(-\lVert u - v\rVert^2 / m)`, m the median squared
    distance between distinct points (the median heuristic; all ones when m = 0)."""
    values = _unit_scale(values)
    values = values.reshape(len(values), -1)
    squared = np.sum((values[:, None, :] - values[None, :, :]) ** 2, axis=2)
    median = np.median(squared[np.triu_indices(len(values), 1)])
    return np.exp(-squared / median) if median > 0 else np.ones_like(squared)


def _hsic_grams(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if len(a) != len(b):
        raise ValueError(f"a and b must have the same length, got {len(a)} and {len(b)}.")
    if len(a) < 2:
        raise ValueError(f"HSIC needs at least 2 points, got {len(a)}.")
    K, L = _median_gaussian_gram(a), _median_gaussian_gram(b)
    K_centred = K - K.mean(axis=0) - K.mean(axis=1, keepdims=True) + K.mean()
    return K_centred, L


def hsic(a, b):
    r"""Biased HSIC estimate :math:`n^{-2}\operatorname{tr}(K H L H)` with Gaussian kernels.

    Gretton et al. (2008), eq. (4); kernel bandwidths by the median heuristic. With
    characteristic kernels the population value is zero iff ``a`` and ``b`` are independent.

    Parameters
    ----------
    a, b : array-like of shape (n,) or (n, d)

    Returns
    -------
    float
    """
    K_centred, L = _hsic_grams(a, b)
    return float(np.sum(K_centred * L) / len(L) ** 2)


def hsic_test(a, b, *, n_permutations, random_state=None):
    r"""HSIC and its permutation p-value (null hypothesis: ``a`` and ``b`` are independent).

    The statistic of :func:`hsic` is recomputed with ``b`` permuted (``n_permutations``
    permutations, drawn as rows of ``rng.permuted`` of a tiled range); the p-value is
    :math:`(1 + \#\{\pi: \mathrm{HSIC}_\pi \ge \mathrm{HSIC}\}) / (1 + \text{permutations})`,
    valid at every sample size (Gretton et al., 2008, §3; Phipson & Smyth, 2010).

    Parameters
    ----------
    a, b : array-like of shape (n,) or (n, d)
    n_permutations : int
        At least 1.
    random_state : None, int, SeedSequence or Generator, default=None

    Returns
    -------
    statistic, p_value : float
    """
    if not isinstance(n_permutations, (int, np.integer)) or n_permutations < 1:
        raise ValueError(f"n_permutations must be a positive integer, got {n_permutations!r}.")
    K_centred, L = _hsic_grams(a, b)
    n = len(L)
    statistic = float(np.sum(K_centred * L) / n**2)
    rng = as_generator(random_state)
    permutations = rng.permuted(np.tile(np.arange(n), (n_permutations, 1)), axis=1)
    # L[π(i), π(j)] as a row gather then a column gather (two contiguous `take`s are ~4×
    # faster than one broadcast fancy index), one n × n matrix per permutation.
    weights = K_centred.ravel()
    values = np.array(
        [L.take(perm, axis=0).take(perm, axis=1).ravel() @ weights for perm in permutations]
    )
    exceed = int(np.count_nonzero(values / n**2 >= statistic * (1 - 1e-12)))
    return statistic, (1 + exceed) / (1 + n_permutations)


def _double_centred_distances(values):
    """Double-centred Euclidean distance matrix A_ij = a_ij − ā_i· − ā_·j + ā_·· of rows
    (of the rows scaled by :func:`_unit_scale`: the distance correlation does not change)."""
    values = _unit_scale(values)
    if values.ndim == 1:
        values = values[:, None]
    squared = np.einsum("ij,ij->i", values, values)
    gram = values @ values.T
    distances = np.sqrt(np.maximum(squared[:, None] + squared[None, :] - 2.0 * gram, 0.0))
    row_means = distances.mean(axis=1)
    return distances - row_means[:, None] - row_means[None, :] + row_means.mean()


def _dcor_from_centred(A, B):
    dcov2 = float(np.mean(A * B))
    norm = np.sqrt(float(np.mean(A * A)) * float(np.mean(B * B)))
    return 0.0 if norm == 0.0 else float(np.sqrt(max(dcov2, 0.0) / norm))


def distance_correlation(a, b):
    r"""Sample distance correlation of Székely, Rizzo and Bakirov (2007).

    .. math::

        \mathrm{dCor}_n(a, b) = \sqrt{\mathcal V_n^2(a, b)
        / \sqrt{\mathcal V_n^2(a, a)\,\mathcal V_n^2(b, b)}},\qquad
        \mathcal V_n^2(a, b) = \frac1{n^2}\sum_{ij} A_{ij} B_{ij},

    with A, B the double-centred Euclidean distance matrices (the V-statistic). In the
    population it is 0 iff a and b are independent, and 1 for b an affine map of a.

    Parameters
    ----------
    a, b : array-like of shape (n,) or (n, d)
        Paired samples.

    Returns
    -------
    float
        In [0, 1].
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) != len(b):
        raise ValueError(f"a and b must have the same length, got {len(a)} and {len(b)}.")
    return _dcor_from_centred(_double_centred_distances(a), _double_centred_distances(b))


def distance_correlation_permutations(a, b, *, n_permutations=200, random_state=None):
    """Distance correlation and its values under random permutations of ``b``'s rows.

    The permuted values sample the distance correlation of the same marginals under
    independence: their mean is the level the statistic shows by chance at this n (the
    V-statistic is positive even for independent samples), their upper tail gives the
    permutation p-value (:func:`distance_correlation_test`).

    Parameters
    ----------
    a, b : array-like of shape (n,) or (n, d)
        Paired samples.
    n_permutations : int, default=200
        Number of random permutations.
    random_state : int, Generator or None
        Source of the permutations.

    Returns
    -------
    statistic : float
        :func:`distance_correlation` of the data.
    permuted : numpy.ndarray of shape (n_permutations,)
        The distance correlation after each permutation.
    """
    if n_permutations < 1:
        raise ValueError(f"n_permutations must be at least 1, got {n_permutations}.")
    rng = np.random.default_rng(random_state)
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) != len(b):
        raise ValueError(f"a and b must have the same length, got {len(a)} and {len(b)}.")
    A, B = _double_centred_distances(a), _double_centred_distances(b)
    observed = _dcor_from_centred(A, B)
    # V²(a, a) and V²(b, b) do not change under a permutation of b's rows: only the
    # cross term is recomputed, B[π(i), π(j)] as a row then a column gather (two contiguous
    # `take`s, ~4× faster than one broadcast fancy index), dotted with A as one BLAS call.
    n = len(b)
    weights = A.ravel()
    norm = np.sqrt(float(weights @ weights) / n**2 * float(np.mean(B * B)))
    permuted = np.empty(n_permutations)
    for k in range(n_permutations):
        order = rng.permutation(n)
        dcov2 = float(B.take(order, axis=0).take(order, axis=1).ravel() @ weights) / n**2
        permuted[k] = 0.0 if norm == 0.0 else np.sqrt(max(dcov2, 0.0) / norm)
    return observed, permuted


def distance_correlation_test(a, b, *, n_permutations=200, random_state=None):
    """Distance correlation and its permutation p-value for H0: a and b are independent.

    The p-value is (1 + #{permuted dCor ≥ observed}) / (1 + n_permutations), permuting the
    rows of ``b`` (Székely et al. 2007, §4): valid at any n, resolution 1 / (n_permutations + 1).

    Parameters
    ----------
    a, b : array-like of shape (n,) or (n, d)
        Paired samples.
    n_permutations : int, default=200
        Number of random permutations.
    random_state : int, Generator or None
        Source of the permutations.

    Returns
    -------
    statistic : float
        :func:`distance_correlation` of the data.
    p_value : float
    """
    observed, permuted = distance_correlation_permutations(
        a, b, n_permutations=n_permutations, random_state=random_state
    )
    exceed = int(np.sum(permuted >= observed - 1e-12))
    return observed, (1 + exceed) / (1 + n_permutations)


BINNINGS = ("quantile", "uniform")


@dataclass(frozen=True)
class DependenceReport:
    """Dependence of predictions on a sensitive feature (:func:`dependence_report`).

    Attributes
    ----------
    hsic : float
        Biased HSIC, Gaussian kernels with median-heuristic bandwidths (:func:`hsic`).
    hsic_p_value : float
        Its permutation p-value (:func:`hsic_test`).
    distance_correlation : float
        :func:`distance_correlation` (V-statistic), in [0, 1].
    group_spread : float
        Largest minus smallest mean prediction over the bins of S (fairlearn's
        ``MetricFrame(metrics=mean_prediction, ...).difference()``).
    group_means : pandas.Series
        Mean prediction per bin (``MetricFrame.by_group``).
    n_samples : int
        Rows of the group means; ``n_kernel_samples`` rows entered HSIC and dCor.
    n_kernel_samples : int
    n_permutations : int
    """

    hsic: float
    hsic_p_value: float
    distance_correlation: float
    group_spread: float
    group_means: pd.Series = field(repr=False, compare=False)
    n_samples: int
    n_kernel_samples: int
    n_permutations: int

    def as_dict(self):
        """The scalar fields as a dict (``group_means`` left out), e.g. for a table row."""
        values = asdict(self)
        values.pop("group_means")
        return values


def _positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    return int(value)


def _bins(S, n_bins, binning):
    """One column of bin labels per column of S: its values when it has at most ``n_bins``
    distinct ones, else equal-count (``"quantile"``) or equal-width (``"uniform"``) bins."""
    columns = {}
    for k in range(S.shape[1]):
        column = pd.Series(S[:, k])
        if column.nunique() <= n_bins:
            labels = column
        elif binning == "quantile":
            labels = pd.qcut(column, n_bins, duplicates="drop")
        else:
            labels = pd.cut(column, n_bins, include_lowest=True)
        columns[f"S{k}" if S.shape[1] > 1 else "S"] = labels
    return pd.DataFrame(columns)


def dependence_report(
    predictions,
    sensitive_features,
    *,
    n_bins=5,
    binning="quantile",
    n_permutations=200,
    max_samples=None,
    seed=None,
):
    r"""HSIC (with a permutation p-value), distance correlation and binned spread of
    predictions against a continuous sensitive feature.

    * **HSIC**: :math:`n^{-2}\operatorname{tr}(KHLH)` with Gaussian kernels whose widths are
      the median squared distances (:func:`hsic`; Gretton et al., 2008), and the permutation
      p-value :math:`(1 + \#\{\mathrm{HSIC}_\pi \ge \mathrm{HSIC}\}) / (1 + B)` over
      ``n_permutations`` = B permutations of S (:func:`hsic_test`).
    * **Distance correlation** (Székely, Rizzo and Bakirov, 2007; :func:`distance_correlation`).
    * **Group spread**: S is cut into ``n_bins`` bins (per column; equal-count ``"quantile"``
      bins, repeated edges merged, or equal-width ``"uniform"`` bins; a column with at most
      ``n_bins`` distinct values is grouped by its values) and fairlearn's
      :class:`~fairlearn.metrics.MetricFrame` with
      :func:`~fairlearn.metrics.mean_prediction` gives the mean prediction per bin and
      their range, ``MetricFrame.difference()``: the demographic-parity difference of a
      regression over binned groups.

    Parameters
    ----------
    predictions : array-like of shape (n,)
        Finite real predictions (scores, probabilities or labels).
    sensitive_features : array-like of shape (n,) or (n, d)
        Finite numbers (a continuous S, or coded groups).
    n_bins : int >= 1, default=5
        Bins per column of S for the group spread.
    binning : {"quantile", "uniform"}, default="quantile"
    n_permutations : int >= 1, default=200
    max_samples : int >= 2, default=None
        HSIC and dCor hold n × n matrices: when given and smaller than n, they are computed
        on a random subsample of this many rows (the group spread always uses all rows).
    seed : None, int or numpy.random.SeedSequence, default=None
        Root of the random draws: ``SeedSequence(seed).spawn(2)`` seeds the subsample and
        the permutations.

    Returns
    -------
    DependenceReport

    Raises
    ------
    ValueError
        Naming the argument: lengths differ, non-finite or non-numeric values, fewer than
        two rows, bad ``n_bins``, ``binning``, ``n_permutations`` or ``max_samples``.
    ImportError
        When fairlearn (the ``workflow`` extra) is not installed.
    """
    try:
        from fairlearn.metrics import MetricFrame, mean_prediction
    except ImportError as error:  # pragma: no cover - fairlearn is in the workflow extra
        raise ImportError(
            "dependence_report needs fairlearn for the binned group spread: "
            "pip install 'krepro[workflow]' (or fairlearn)."
        ) from error
    try:
        values = np.asarray(predictions, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"predictions must be numbers: {error}") from error
    values = _1d(values, "predictions")
    try:
        S = np.asarray(sensitive_features, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(f"sensitive_features must be numbers: {error}") from error
    if S.ndim == 1:
        S = S[:, None]
    if S.ndim != 2:
        raise ValueError(f"sensitive_features must be 1-d or 2-d, got shape {S.shape}.")
    if len(S) != len(values):
        raise ValueError(
            f"predictions and sensitive_features must have the same length, got "
            f"{len(values)} and {len(S)}."
        )
    if len(values) < 2:
        raise ValueError(f"predictions: at least 2 rows are needed, got {len(values)}.")
    for name, array in (("predictions", values), ("sensitive_features", S)):
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name} must be finite (no NaN or infinity).")
    n_bins = _positive_int(n_bins, "n_bins")
    n_permutations = _positive_int(n_permutations, "n_permutations")
    if binning not in BINNINGS:
        raise ValueError(f"binning must be one of {BINNINGS}, got {binning!r}.")
    n = len(values)
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    subsample_seed, permutation_seed = root.spawn(2)
    rows = np.arange(n)
    if max_samples is not None:
        max_samples = _positive_int(max_samples, "max_samples")
        if max_samples < 2:
            raise ValueError(f"max_samples must be at least 2, got {max_samples}.")
        if max_samples < n:
            rows = np.sort(np.random.default_rng(subsample_seed).permutation(n)[:max_samples])
    statistic, p_value = hsic_test(
        values[rows], S[rows], n_permutations=n_permutations, random_state=permutation_seed
    )
    frame = MetricFrame(
        metrics=mean_prediction,
        y_true=values,
        y_pred=values,
        sensitive_features=_bins(S, n_bins, binning),
    )
    return DependenceReport(
        hsic=float(statistic),
        hsic_p_value=float(p_value),
        distance_correlation=distance_correlation(values[rows], S[rows]),
        group_spread=float(frame.difference()),
        group_means=frame.by_group,
        n_samples=n,
        n_kernel_samples=len(rows),
        n_permutations=n_permutations,
    )
