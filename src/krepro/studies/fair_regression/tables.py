"""Tables of ``fair_regression``: the per-split run table, the aggregate table (mean and
standard error over the splits) and the least dependence each method reaches at a peer's
error (with its Markdown)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.studies.fair_regression.fronts import STRONGER, dependence_at_error
from krepro.studies.fair_regression.run import DATASETS, METHODS
from krepro.studies.tables import markdown_table

__all__ = [
    "MEASURES",
    "TABLE_COLUMNS",
    "aggregate",
    "datasets_in",
    "front_summary",
    "front_summary_markdown",
    "tidy",
]

#: Per-split measures summarised by mean and standard error over the splits.
MEASURES = ("error", "hsic", "dcor", "group_spread")
#: The columns of ``tables/fair_regression.csv``.
TABLE_COLUMNS = [
    "dataset",
    "method",
    "parameter",
    "error",
    "error_se",
    "hsic",
    "hsic_se",
    "dcor",
    "dcor_se",
    "group_spread",
    "group_spread_se",
    "hsic_rejected",
    "n_splits",
    "cpu_seconds",
]


def datasets_in(runs):
    """The data sets of :data:`~krepro.studies.fair_regression.run.DATASETS` that ``runs``
    holds, in that order."""
    present = set(runs["dataset"])
    return [d for d in DATASETS if d in present]


def tidy(records):
    """One row per (dataset, split, method, parameter)."""
    frame = pd.DataFrame.from_records(records)
    return frame.sort_values(
        ["dataset", "method", "parameter", "split"], kind="stable"
    ).reset_index(drop=True)


def _se(values):
    values = np.asarray(values, dtype=float)
    return float(values.std(ddof=1) / np.sqrt(values.size)) if values.size > 1 else np.nan


def aggregate(runs, *, dependence_alpha=0.05):
    """One row per (dataset, method, parameter): mean and standard error over the splits.

    Parameters
    ----------
    runs : pandas.DataFrame
        The per-split records (:func:`tidy`).
    dependence_alpha : float, default=0.05
        Level of the HSIC permutation test: ``hsic_rejected`` is the share of splits whose
        test rejects independence of the predictions and S.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, method, parameter``, then ``<measure>`` and ``<measure>_se`` for
        each of :data:`MEASURES`, ``hsic_rejected``, ``n_splits`` and ``cpu_seconds`` (mean
        per fit).
    """
    grouped = runs.groupby(["dataset", "method", "parameter"], sort=True)
    columns = {}
    for measure in MEASURES:
        columns[measure] = (measure, "mean")
        columns[f"{measure}_se"] = (measure, _se)
    columns["hsic_rejected"] = ("hsic_p_value", lambda p: float(np.mean(p < dependence_alpha)))
    columns["n_splits"] = ("split", "nunique")
    columns["cpu_seconds"] = ("cpu_seconds", "mean")
    return grouped.agg(**columns).reset_index()


def front_summary(table, *, reference_method="correlation_remover", measure="hsic"):
    """Per data set, the least mean ``measure`` each method reaches at no larger mean error
    than ``reference_method`` at its strongest setting (:data:`.fronts.STRONGER`).

    Returns
    -------
    pandas.DataFrame
        ``dataset``, ``reference_error`` and one column per method (NaN: no setting of the
        method is as accurate).
    """
    rows = []
    for dataset in datasets_in(table):
        part = table[table["dataset"] == dataset]
        peer = part[part["method"] == reference_method]
        if peer.empty:
            continue
        strongest = STRONGER[reference_method](peer["parameter"])
        level = float(peer[peer["parameter"] == strongest]["error"].iloc[0])
        row = {"dataset": dataset, "reference_error": level}
        for method in METHODS:
            own = part[part["method"] == method]
            row[method] = dependence_at_error(own["error"], own[measure], level)
        rows.append(row)
    return pd.DataFrame(rows)


def _scientific(frame):
    """HSIC columns as text in scientific notation (their values are ~1e-3)."""
    frame = frame.copy()
    for column in METHODS:
        if column in frame:
            frame[column] = [f"{v:.2e}" if np.isfinite(v) else "–" for v in frame[column]]
    return frame


def front_summary_markdown(table):
    """:func:`front_summary` of the HSIC as Markdown, in scientific notation ("" when no data
    set has the peer)."""
    summary = front_summary(table)
    return markdown_table(_scientific(summary)) if not summary.empty else ""
