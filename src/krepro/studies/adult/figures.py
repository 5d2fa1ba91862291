"""Figure of Table 1 (§7.1): test error against DEO of every method, per reading, with the
spread over the random splits."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns

from krepro.stats import t_quantile
from krepro.studies.adult.run import METHOD_LABELS, METHODS
from krepro.studies.figures import save_figure

__all__ = ["plot_adult_table1"]


def _centre_and_half(values, level=0.95):
    """Mean and half-width of the (level) prediction interval of one split (0 for one split)."""
    values = np.asarray(values, dtype=float)
    n = values.size
    if n < 2:
        return float(values.mean()), 0.0
    half = t_quantile(0.5 + level / 2, n - 1) * values.std(ddof=1) * np.sqrt(1 + 1 / n)
    return float(values.mean()), float(half)


def plot_adult_table1(runs, path, paper=None):
    """One panel per (protocol, grid): mean test error against mean DEO over the splits.

    Bars: the 95 % prediction interval of one split's value (the interval the row claims
    read; Table 1 is one split). ``paper``: optional ``{method: (error, DEO)}`` drawn as
    crosses.
    """
    sns.set_theme(style="whitegrid", context="paper")
    colours = dict(zip(METHODS, sns.color_palette("tab20", len(METHODS)), strict=True))
    readings = list(dict.fromkeys(zip(runs["protocol"], runs["grid"], strict=True)))
    fig, axes = plt.subplots(
        1, len(readings), figsize=(4.6 * len(readings) + 2.4, 4.0), squeeze=False
    )
    for ax, (protocol, grid) in zip(axes[0], readings, strict=True):
        part = runs[(runs["protocol"] == protocol) & (runs["grid"] == grid)]
        for method, group in part.groupby("method", sort=False):
            deo, deo_half = _centre_and_half(group["deo"])
            error, error_half = _centre_and_half(group["test_error"])
            ax.errorbar(
                deo,
                error,
                xerr=deo_half,
                yerr=error_half,
                fmt="o" if METHODS[method][1] == "rbf" else "s",
                color=colours[method],
                capsize=2,
                label=METHOD_LABELS[method],
            )
            if paper and method in paper:
                ax.scatter(*paper[method][::-1], marker="x", color=colours[method], s=40)
        n = int(part.groupby("method").size().max())
        ax.set_title(f"{protocol}/{grid}: {n} splits")
        ax.set_xlabel("DEO (test)")
        ax.set_ylabel("test error")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    axes[0, -1].legend(
        handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False
    )
    fig.suptitle("Bars: 95 % prediction interval of one split; ×: the paper (one split)")
    fig.tight_layout()
    save_figure(fig, path)
