"""Figure of ``adult_full``: test error against DEO of every method on all of Adult (with
test-set bootstrap intervals), and the landmark sweep's agreement with the exact methods."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from scipy.stats import norm

from krepro.studies.adult_full.run import METHOD_LABELS, METHODS
from krepro.studies.figures import save_figure

__all__ = ["plot_adult_full"]


def plot_adult_full(table, sweep, path, level=0.95):
    """Left: test error vs DEO of every method on all of Adult. Right: sweep agreement.

    The error bars are the ``level`` normal test-set bootstrap intervals (± z · se, se from
    the table's ``error_se`` and ``deo_se``): the sampling of the test rows only, not the
    training randomness. They are each method's own intervals; the claims compare paired
    differences (the same resampled rows for every method), whose intervals are narrower.
    Without se columns (or with NaN) no bars are drawn.
    """
    sns.set_theme(style="whitegrid", context="paper")
    colours = dict(zip(METHODS, sns.color_palette("colorblind", len(METHODS)), strict=True))
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(12, 4.2), gridspec_kw={"width_ratios": [1.25, 1]}
    )
    z = float(norm.ppf(0.5 + level / 2))
    for _, row in table.iterrows():
        xerr = z * float(row.get("deo_se", np.nan))
        yerr = z * float(row.get("error_se", np.nan))
        left.errorbar(
            row["deo"],
            row["error"],
            xerr=xerr if np.isfinite(xerr) else None,
            yerr=yerr if np.isfinite(yerr) else None,
            color=colours[row["method"]],
            marker="o" if row["family"] == "kernel" else "s",
            markersize=7,
            elinewidth=1,
            capsize=2,
            linestyle="none",
            label=row["algorithm"],
        )
    left.set_xlabel("DEO (|TPR female − TPR male|, test)")
    left.set_ylabel("test error")
    n_train, n_test = int(table["n_train"].max()), int(table["n_test"].iloc[0])
    left.set_title(
        f"All of Adult: {n_train:,} training rows, {n_test:,} test rows\n"
        f"bars: {level:.0%} test-set bootstrap intervals",
        fontsize=9,
    )
    left.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    features = sweep[sweep["kind"] == "features"]
    for method, group in features.groupby("method", sort=False):
        group = group.sort_values("n_components")
        right.plot(
            group["n_components"].astype(float),
            group["agreement"],
            marker="o",
            color=colours[method],
            label=METHOD_LABELS[method],
        )
    counts = sorted({int(c) for c in features["n_components"]})
    right.set_xscale("log")
    right.set_xticks(counts, [str(c) for c in counts])
    right.minorticks_off()
    right.set_xlabel("Nyström landmarks")
    right.set_ylabel("test predictions equal to the exact method's")
    right.set_title(f"Landmark sweep on {int(sweep['n_train'].iloc[0]):,} training rows")
    right.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    save_figure(fig, path)
