"""Tables of the Parkinson's DCM study: the tidy run table, Table 4 (CSV and per reading),
the landmark sweep and the paired comparisons of the report's body."""

from __future__ import annotations

import pandas as pd

from krepro.stats import paired
from krepro.studies.dcm_parkinsons.readings import AXES
from krepro.studies.dcm_parkinsons.run import METHODS
from krepro.studies.tables import markdown_table

__all__ = [
    "aggregate",
    "main_runs",
    "method_label",
    "ranking_rows",
    "sweep_cells",
    "sweep_table",
    "table4_markdown",
    "tidy",
    "versus_mean_rows",
]

READING_COLUMNS = list(AXES)

COLUMNS = [
    *READING_COLUMNS,
    "target",
    "method",
    "version",
    "n_landmarks",
    "repetition",
    "rmse",
    "fit_cpu_seconds",
    "fit_wall_seconds",
    "n_train",
    "n_test",
    "seed",
]


def tidy(records):
    """One row per run (columns :data:`COLUMNS`)."""
    frame = pd.DataFrame.from_records(records)[COLUMNS]
    return _sort(
        frame, [*READING_COLUMNS, "target", "version", "method", "n_landmarks", "repetition"]
    )


def _sort(frame, keys):
    ranks = {axis: {v: k for k, v in enumerate(values)} for axis, values in AXES.items()}
    return frame.sort_values(
        keys, key=lambda c: c.map(ranks[c.name]) if c.name in ranks else c, kind="stable"
    ).reset_index(drop=True)


def _summarise(runs, keys, sort):
    """RMSE mean and sd (ddof = 1), mean fit CPU / wall seconds and run count per ``keys``."""
    return (
        runs.groupby(keys, sort=sort)
        .agg(
            rmse_mean=("rmse", "mean"),
            rmse_sd=("rmse", lambda v: v.std(ddof=1)),
            fit_cpu_seconds=("fit_cpu_seconds", "mean"),
            fit_wall_seconds=("fit_wall_seconds", "mean"),
            n_reps=("rmse", "size"),
        )
        .reset_index()
    )


def aggregate(runs):
    """Table 4, one row per (reading, target, method, version): centring, svr_kernel,
    target, method, version, rmse_mean, rmse_sd, fit CPU / wall seconds, n_reps.

    Sweep rows are left out (see :func:`sweep_table`).
    """
    ok = runs[runs["version"] != "sweep"]
    table = _summarise(ok, [*READING_COLUMNS, "target", "method", "version"], sort=False)
    order = {key: k for k, key in enumerate(METHODS)}
    table["order"] = [
        order.get((m, v), 99) for m, v in zip(table["method"], table["version"], strict=True)
    ]
    table = _sort(table, [*READING_COLUMNS, "target", "order"]).drop(columns="order")
    return table.reset_index(drop=True)


def sweep_table(runs):
    """Landmark sweep (primary reading): centring, svr_kernel, target, method, n_landmarks,
    rmse mean/sd, fit CPU seconds, n_reps."""
    ok = runs[runs["version"] == "sweep"]
    return _summarise(ok, [*READING_COLUMNS, "target", "method", "n_landmarks"], sort=True)


def table4_markdown(table):
    """Table 4: one row per (method, version), RMSE mean ± sd per target and fit times.

    ``table`` holds one reading (filter it first).
    """
    rows = []
    for (method, version), label in METHODS.items():
        part = table[(table["method"] == method) & (table["version"] == version)]
        if part.empty:
            continue
        row = {"method": label, "version": version}
        for target in ("motor", "total"):
            t = part[part["target"] == target]
            if not t.empty:
                row[f"{target} RMSE"] = f"{t['rmse_mean'].iloc[0]:.2f} ± {t['rmse_sd'].iloc[0]:.2f}"
        row["fit CPU s"] = float(part["fit_cpu_seconds"].mean())
        row["fit wall s"] = float(part["fit_wall_seconds"].mean())
        rows.append(row)
    return markdown_table(pd.DataFrame(rows), digits=4)


def main_runs(runs):
    """The runs of Table 4 (no sweep rows), with ``key`` = ``method/version``."""
    main = runs[runs["version"] != "sweep"].copy()
    main["key"] = main["method"] + "/" + main["version"]
    return main


def method_label(key):
    """The label of a ``method/version`` key (:data:`~.run.METHODS`)."""
    method, version = key.split("/")
    return METHODS.get((method, version), key)


def versus_mean_rows(main):
    """Every method − the training-mean predictor, per target, paired per split (mean, se;
    positive = the method's RMSE is lower); empty without the mean predictor."""
    if "mean/baseline" not in set(main["key"]):
        return pd.DataFrame()
    rows = []
    for key in sorted(set(main["key"]) - {"mean/baseline"}):
        diff = paired(main, ["target"], "key", key, "mean/baseline", "rmse")
        rows += [
            {
                "target": r.target,
                "method": method_label(key),
                "RMSE mean − method": r.mean,
                "se": r.se,
            }
            for r in diff.itertuples(index=False)
        ]
    return pd.DataFrame(rows)


def ranking_rows(main):
    """RMSE of COIR and DICA − DCM, per version and target, paired per split (mean ± se)."""
    rows = []
    keys = set(main["key"])
    for version in ("standard", "fast"):
        for other in ("coir", "dica"):
            a, b = f"{other}/{version}", f"dcm/{version}"
            if a in keys and b in keys:
                diff = paired(main, ["target"], "key", b, a, "rmse")
                rows += [
                    {
                        "target": r.target,
                        "comparison": f"RMSE {method_label(a)} − {method_label(b)}",
                        "difference": f"{r.mean:+.3f} ± {r.se:.3f}",
                    }
                    for r in diff.itertuples(index=False)
                ]
    return pd.DataFrame(rows)


def sweep_cells(sweep):
    """The landmark sweep as the report shows it: RMSE mean ± sd and fit CPU milliseconds."""
    return sweep.assign(
        rmse=[
            f"{m:.2f} ± {s:.2f}" for m, s in zip(sweep["rmse_mean"], sweep["rmse_sd"], strict=True)
        ],
        cpu_ms=1000 * sweep["fit_cpu_seconds"],
    )[["target", "method", "n_landmarks", "rmse", "cpu_ms"]]
