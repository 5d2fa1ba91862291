"""Tables of the synthetic DCM study: the tidy run table, Table 3 (CSV and the paper's
layout) and the paired differences of accuracy."""

from __future__ import annotations

import pandas as pd

from krepro.stats import paired
from krepro.studies.dcm_synthetic.readings import AXES
from krepro.studies.dcm_synthetic.run import METHODS
from krepro.studies.tables import markdown_table

__all__ = ["aggregate", "comparison_rows", "table3_markdown", "tidy"]

READING_COLUMNS = list(AXES)


def tidy(records):
    """One row per run: reading columns, eta, gamma, repetition, method, accuracy, ..."""
    columns = [
        *READING_COLUMNS,
        "eta",
        "gamma",
        "repetition",
        "method",
        "n_components",
        "accuracy",
        "n_train",
        "n_test",
        "test_balance",
        "dr_cpu_seconds",
        "seed",
    ]
    frame = pd.DataFrame.from_records(records)[columns]
    return _sort(frame, [*READING_COLUMNS, "eta", "gamma", "method", "repetition"])


def _sort(frame, keys):
    """Readings in axis order (primary-independent), methods in :data:`METHODS` order."""
    ranks = {axis: {v: k for k, v in enumerate(values)} for axis, values in AXES.items()}
    ranks["method"] = {m: k for k, m in enumerate(METHODS)}
    return frame.sort_values(
        keys, key=lambda c: c.map(ranks[c.name]) if c.name in ranks else c, kind="stable"
    ).reset_index(drop=True)


def aggregate(runs):
    """Table 3, one row per (reading, η, γ, method): centring, classifier, b_scale, eta,
    gamma, method, accuracy_mean, accuracy_sd, n_reps (ddof = 1)."""
    ok = runs
    keys = [*READING_COLUMNS, "eta", "gamma", "method"]
    table = (
        ok.groupby(keys, sort=False)["accuracy"]
        .agg(accuracy_mean="mean", accuracy_sd=lambda v: v.std(ddof=1), n_reps="size")
        .reset_index()
    )
    return _sort(table, keys)


def table3_markdown(table):
    """Table 3 laid out like the paper: methods as rows, (η, γ) as columns, mean ± sd.

    ``table`` holds one reading (filter it first).
    """
    cells = table.assign(
        cell=[
            f"{m:.3f} ± {s:.3f}"
            for m, s in zip(table["accuracy_mean"], table["accuracy_sd"], strict=True)
        ],
        column=[f"η={e:g}, γ={g:g}" for e, g in zip(table["eta"], table["gamma"], strict=True)],
    )
    wide = cells.pivot(index="method", columns="column", values="cell")
    columns = list(dict.fromkeys(cells["column"]))
    methods = [m for m in METHODS if m in wide.index]
    wide = wide.loc[methods, columns]
    wide.index = [METHODS[m] for m in methods]
    return markdown_table(wide.reset_index().rename(columns={"index": "method"}))


def comparison_rows(part_runs):
    """DCM (and eq. (12) as printed) − every other method, per (η, γ): mean ± se."""
    methods = set(part_runs["method"])
    rows = []
    for dcm in [m for m in ("dcm", "dcm_eq12") if m in methods]:
        for other in [m for m in ("coir", "dica", "svm") if m in methods]:
            diff = paired(part_runs, ["eta", "gamma"], "method", other, dcm, "accuracy")
            rows += [
                {
                    "η": r.eta,
                    "γ": r.gamma,
                    "comparison": f"{METHODS[dcm]} − {METHODS[other]}",
                    "difference": f"{r.mean:+.3f} ± {r.se:.3f}",
                }
                for r in diff.itertuples(index=False)
            ]
    return pd.DataFrame(rows)
