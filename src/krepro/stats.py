"""Statistics shared by the studies' verdicts: paired differences, pooled and plain standard
errors, the Wilson interval of a proportion, Holm's step-down procedure, and the number of
repetitions an interval of a given width needs; for paired 0/1 outcomes Cochran's Q and
spreads that are never zero (Agresti–Coull), and delta-method intervals of a ratio of RMSEs;
the products whose mean is a within-group correlation.

Every study's report section draws its intervals from here, so that one claim form is judged
the same way wherever it appears.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import chi2, norm
from scipy.stats import t as student_t

__all__ = [
    "agresti_coull_sd",
    "cochran_q",
    "floored_deviation_sd",
    "holm_adjusted",
    "holm_levels",
    "mean_se",
    "paired",
    "paired_differences",
    "pooled_mean_se",
    "repetitions_for_half_width",
    "rmse_ratio",
    "t_quantile",
    "wilson_interval",
    "within_group_products",
]


def paired(runs, by, method_column, first, second, value):
    """Per-group mean, sd, se and n of the paired difference ``value[second] − value[first]``.

    Pairs are the runs with equal ``by`` + ``repetition`` (same data split, same draws).

    Parameters
    ----------
    runs : DataFrame
        Tidy runs with the columns ``by``, ``"repetition"``, ``method_column`` and ``value``.
    by : list of str
        Grouping columns (settings).
    method_column : str
        Column naming the method of each run.
    first, second : str
        The two methods compared.
    value : str
        The measured column.

    Returns
    -------
    DataFrame
        ``by`` + ``mean``, ``sd`` (ddof = 1), ``n``, ``se = sd / √n``, sorted by ``by``.
    """
    wide = runs.pivot_table(index=[*by, "repetition"], columns=method_column, values=value)
    diff = (wide[second] - wide[first]).rename("difference").reset_index()
    out = (
        diff.groupby(by, sort=True)["difference"]
        .agg(mean="mean", sd=lambda v: v.std(ddof=1), n="size")
        .reset_index()
    )
    out["se"] = out["sd"] / np.sqrt(out["n"])
    return out


def paired_differences(runs, variant, experiment, first, second):
    """Per-γ paired difference ``second − first`` of test MSE in the ridge runs (§7.2).

    :func:`paired` over ``gamma`` for one (variant, experiment) of the ridge experiments.
    """
    part = runs[(runs["variant"] == variant) & (runs["experiment"] == experiment)]
    wide = part.pivot_table(
        index=["gamma", "repetition"], columns="method", values="test_mse"
    ).reset_index()
    wide["difference"] = wide[second] - wide[first]
    grouped = wide.groupby("gamma")["difference"]
    out = grouped.agg(mean="mean", sd=lambda v: v.std(ddof=1), n="size").reset_index()
    out["se"] = out["sd"] / np.sqrt(out["n"])
    return out


def pooled_mean_se(diff):
    """Mean over settings of per-setting means and its standard error.

    ``diff`` has one row per (independent) setting with columns ``mean`` and ``se``: the
    pooled mean is their average, its standard error :math:`\\sqrt{\\sum_k se_k^2} / K`.
    """
    k = len(diff)
    return float(diff["mean"].mean()), float(np.sqrt((diff["se"] ** 2).sum()) / k)


def mean_se(values):
    """Mean and standard error (sd with ddof = 1 over √n; NaN for one value) of ``values``."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    se = float(values.std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan
    return float(values.mean()), se


def wilson_interval(successes, n, level):
    """Wilson score interval of a binomial proportion (Apache Commons' formula).

    Parameters
    ----------
    successes, n : array-like of int
    level : float
        Confidence level, e.g. 0.99.

    Returns
    -------
    low, high : ndarray
    """
    successes, n = np.asarray(successes, dtype=float), np.asarray(n, dtype=float)
    z = norm.ppf(1.0 - (1.0 - level) / 2.0)
    p = successes / n
    denominator = 1.0 + z**2 / n
    centre = (p + z**2 / (2.0 * n)) / denominator
    half = z / denominator * np.sqrt(p * (1.0 - p) / n + z**2 / (4.0 * n**2))
    # The interval contains p; rounding could otherwise put p = 0 or 1 a hair outside.
    return np.clip(np.minimum(centre - half, p), 0, 1), np.clip(np.maximum(centre + half, p), 0, 1)


def holm_levels(pvalues, alpha):
    """Per-test significance levels of Holm's step-down procedure (Holm 1979).

    The tests are taken in increasing order of p; the k-th (1-based) of ``m`` is judged at
    level :math:`\\alpha / (m - k + 1)` as long as every earlier one rejected; from the first
    test that does not reject on, every remaining test is judged at that test's level (none of
    them can reject: their p-values are at least as large). A test rejects iff its p-value is
    at most its level, which is the same decision as Holm's adjusted p-values
    (:func:`holm_adjusted`) at ``alpha``; the levels are what an interval needs.

    Parameters
    ----------
    pvalues : array-like of float
        One p-value per test of the family (NaN: the test cannot reject; it is taken last).
    alpha : float
        Family-wise error rate, in (0, 1).

    Returns
    -------
    ndarray
        The level of each test, in the order of ``pvalues``.
    """
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    order = np.argsort(np.where(np.isnan(p), np.inf, p), kind="stable")
    levels = np.empty(m)
    level, stopped = alpha, False
    for k, index in enumerate(order):
        if not stopped:
            level = alpha / (m - k)
            stopped = not p[index] <= level
        levels[index] = level
    return levels


def holm_adjusted(pvalues):
    """Holm's adjusted p-values: :math:`\\max_{j \\le k} \\min(1, (m - j + 1) p_{(j)})`.

    Parameters
    ----------
    pvalues : array-like of float

    Returns
    -------
    ndarray
        Adjusted p-values in the order of ``pvalues`` (NaN stays NaN).
    """
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    order = np.argsort(np.where(np.isnan(p), np.inf, p), kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.fmax.accumulate(scaled)
    adjusted[np.isnan(p)] = np.nan
    return adjusted


def t_quantile(level, df):
    """Upper quantile :math:`t_{level, df}` of Student's t (the normal one for infinite df)."""
    return float(norm.ppf(level)) if not np.isfinite(df) else float(student_t.ppf(level, df))


def repetitions_for_half_width(sd, half_width, tail, *, prediction=False, max_n=10**7):
    """Smallest number of repetitions whose interval has at most the given half-width.

    The interval of a mean of ``n`` repetitions has half-width
    :math:`t_{1 - tail, n - 1}\\, sd / \\sqrt{n}`; the prediction interval of one run
    :math:`t_{1 - tail, n - 1}\\, sd \\sqrt{1 + 1/n}`, which never falls below
    :math:`z_{1 - tail}\\, sd`.

    Parameters
    ----------
    sd : float
        Standard deviation of one repetition (the observed one).
    half_width : float
        The half-width to reach (> 0).
    tail : float
        Probability in each tail of the interval (α for a one-sided bound, α/2 for a
        two-sided interval).
    prediction : bool
        Whether the interval is the prediction interval of one run.
    max_n : int
        Largest number considered.

    Returns
    -------
    int or None
        ``None`` when no number of repetitions up to ``max_n`` reaches ``half_width``.
    """
    if not (np.isfinite(sd) and np.isfinite(half_width)) or half_width <= 0:
        return None
    if sd == 0:
        return 2
    z = norm.ppf(1.0 - tail)
    if prediction:
        if z * sd >= half_width:
            return None
        n = max(2, int(np.ceil(min(1.0 / ((half_width / (z * sd)) ** 2 - 1.0), 2.0 * max_n))))
    else:
        with np.errstate(over="ignore"):  # a vanishing half-width: capped below
            n = max(2, int(np.ceil(min((z * sd / half_width) ** 2, 2.0 * max_n))))
    if n > max_n:  # the normal approximation is a lower bound: no count up to max_n reaches it
        return None

    def width(count):
        factor = np.sqrt(1.0 + 1.0 / count) if prediction else 1.0 / np.sqrt(count)
        return student_t.ppf(1.0 - tail, count - 1) * sd * factor

    # The normal approximation is a lower bound (t quantiles exceed z ones, and the width
    # decreases in n): double up to a count that reaches the half-width, then bisect.
    if width(n) <= half_width:
        return int(n)
    low, high = n, 2 * n
    while width(high) > half_width:
        low, high = high, 2 * high
        if low > max_n:
            return None
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if width(middle) <= half_width else (middle, high)
    n = high
    if n > max_n:
        return None
    return int(n)


def cochran_q(indicators):
    """Cochran's Q test that k paired binary outcomes have equal success probabilities.

    Failing to reject is no evidence of equality: an equivalence claim needs an equivalence
    test. For k = 2 it is McNemar's test (without continuity correction).

    Parameters
    ----------
    indicators : array-like of shape (n_blocks, k)
        Rows are blocks (repetitions), columns the k settings compared, which share the data
        of a block (so that a test for independent samples would be wrong).

    Returns
    -------
    q, p_value : float
        ``p_value = 1`` when every block is all-0 or all-1 (no information).
    """
    x = np.asarray(indicators, dtype=float)
    k = x.shape[1]
    columns, rows = x.sum(axis=0), x.sum(axis=1)
    total = rows.sum()
    denominator = k * total - np.sum(rows**2)
    if denominator <= 0:
        return 0.0, 1.0
    q = (k - 1) * (k * np.sum(columns**2) - total**2) / denominator
    return float(q), float(chi2.sf(q, k - 1))


def agresti_coull_sd(successes, n):
    """Standard deviation of one 0/1 outcome at the Agresti–Coull estimate of its proportion.

    :math:`\\sqrt{\\tilde p(1 - \\tilde p)}` with :math:`\\tilde p = (x + 2)/(n + 4)`: within
    1 % of the sample standard deviation at thousands of repetitions and a proportion near
    0.95 (where the t-interval of the indicators is as good as Wilson's), and never zero, so
    that a t-interval of the mean indicator is never of zero width when every repetition
    succeeded (or failed).

    Parameters
    ----------
    successes : array-like
        Successes per setting.
    n : int
        Repetitions.

    Returns
    -------
    ndarray
    """
    smoothed = (np.asarray(successes) + 2.0) / (n + 4.0)
    return np.sqrt(smoothed * (1.0 - smoothed))


def floored_deviation_sd(deviations):
    """Sample standard deviation of each column of paired deviations of 0/1 outcomes, floored.

    The floor :math:`\\sqrt{0.5/(n + 4)}` is the standard deviation of two half-deviating
    repetitions among n + 4 (the pseudo-counts of :func:`agresti_coull_sd`): repetitions
    that deviate alike in every setting do not give a zero-width interval.

    Parameters
    ----------
    deviations : ndarray of shape (n, k)
        Per repetition, each setting's outcome minus a paired reference (e.g. the mean over
        the settings of the repetition).

    Returns
    -------
    ndarray of shape (k,)
        ddof = 1; NaN with fewer than two repetitions.
    """
    n = deviations.shape[0]
    if n < 2:
        return np.full(deviations.shape[1:], np.nan)
    return np.maximum(deviations.std(axis=0, ddof=1), np.sqrt(0.5 / (n + 4.0)))


def rmse_ratio(squared_errors, reference, members):
    """Ratios of root mean squared errors to a reference column, with delta-method spreads.

    The ratio :math:`R_j = \\sqrt{m_j / m_{ref}}` of RMSEs (``m``: column means of the squared
    errors) is not a mean of repetitions; its paired delta-method pseudo-values
    :math:`R_j + (R_j/2)(e_j/m_j - e_{ref}/m_{ref})` have mean :math:`R_j`, and their standard
    deviation is that of one repetition (a t-interval of the ratio with n repetitions).

    Parameters
    ----------
    squared_errors : ndarray of shape (n, k)
        Per repetition (rows, paired), the squared error of each setting.
    reference : int
        Column of the reference setting.
    members : sequence of int
        Columns whose ratio to the reference is wanted.

    Returns
    -------
    ratio, sd : ndarray
        Per member: the ratio and the pseudo-values' standard deviation (ddof = 1; NaN with
        fewer than two repetitions).
    """
    error = squared_errors
    means = error.mean(axis=0)
    ratios, sds = [], []
    for j in members:
        ratio = np.sqrt(means[j] / means[reference])
        pseudo = ratio / 2.0 * (error[:, j] / means[j] - error[:, reference] / means[reference])
        ratios.append(ratio)
        sds.append(pseudo.std(ddof=1) if error.shape[0] > 1 else np.nan)
    return np.array(ratios, dtype=float), np.array(sds, dtype=float)


def _standardised(values):
    """Z-scores (ddof = 1); 0 for values without spread or fewer than two."""
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return np.zeros_like(values)
    sd = values.std(ddof=1)
    return np.zeros_like(values) if not sd > 0 else (values - values.mean()) / sd


def within_group_products(frame, group, first, second):
    """Per row, the product whose mean over a group is that group's Pearson correlation.

    Pooling these products over the groups gives the within-group correlation of two
    measures with the groups' differences in level and spread removed (e.g. a correlation
    across draws at fixed settings, where both measures also follow the setting); their
    t-interval treats the rows as independent, the within-group centring coupling the
    products of one group only through its estimated mean and sd.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per draw, with the columns ``group``, ``first`` and ``second``.
    group : str
        The column whose values the correlation is taken within.
    first, second : str
        The two measures.

    Returns
    -------
    products : numpy.ndarray
        z(first) · z(second) · n_g / (n_g − 1), z standardised within the group (0 for a
        measure without spread), in the groups' sorted order; groups with fewer than two rows
        are left out.
    per_group : dict of float to float
        Each group's Pearson correlation (the mean of its products).
    """
    products, per_group = [], {}
    for key, rows in frame.groupby(group, sort=True):
        n = len(rows)
        if n < 2:
            continue
        value = _standardised(rows[first]) * _standardised(rows[second]) * n / (n - 1)
        products.append(value)
        per_group[float(key)] = float(value.mean())
    return (np.concatenate(products) if products else np.array([])), per_group
