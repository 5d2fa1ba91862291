"""Figures of the coverage study (Avanesov, Fig. 1 and the RMSE against P), from Table 1.

* :func:`plot_coverage_heatmap` — the main figure: a (T, P) heat map of the coverage per
  reading (penalty variant × band), coloured by the distance from the nominal level, with the
  cells whose 99% Wilson interval excludes the nominal level marked (▼ below, ▲ above).
* :func:`plot_coverage` — the secondary figure: coverage against log₂ P, one line per T, with
  99% Wilson bars (the paper's Fig. 1 layout).
* :func:`plot_rmse` — the accuracy of the averaged estimator against log₂ P.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.colors import Normalize

from krepro.studies.coverage.readings import BANDS
from krepro.studies.coverage.tables import full_repetitions, variant_order
from krepro.studies.figures import save_figure

__all__ = ["plot_coverage", "plot_coverage_heatmap", "plot_rmse"]


def _colours(targets):
    palette = sns.color_palette("viridis", len(targets))
    return dict(zip(targets, palette, strict=True))


def plot_coverage_heatmap(table, path, primary_variant, nominal=0.95):
    """Coverage per (T, P) cell as a heat map; cells excluding ``nominal`` marked.

    One panel per (penalty variant, band), the primary variant's percentile band first.
    Colours diverge at the nominal level (blue below, red above, symmetric range); each cell
    shows its coverage, with ▼ (▲) where the 99% Wilson interval lies entirely below (above)
    the nominal level, i.e. the cells the paper's Table 1 prints in bold.
    """
    sns.set_theme(style="white", context="paper")
    variants = variant_order(table, primary_variant)
    # One slope on both sides of the nominal level (white), so equal departures get equal
    # colours; the colour bar is cut at coverage 1.
    reach = max(nominal - float(table["coverage"].min()), 1.0 - nominal, 0.01)
    norm = Normalize(vmin=nominal - reach, vmax=nominal + reach)
    fig, axes = plt.subplots(
        len(variants),
        len(BANDS),
        figsize=(4.8 * len(BANDS) + 1.2, 3.9 * len(variants)),
        squeeze=False,
        constrained_layout=True,
    )
    image = None
    for row, variant in enumerate(variants):
        full = full_repetitions(table, variant)
        for col, band in enumerate(BANDS):
            ax = axes[row, col]
            part = full[full["band"] == band]
            grid = part.pivot(index="T", columns="P", values="coverage")
            low = part.pivot(index="T", columns="P", values="wilson99_low")
            high = part.pivot(index="T", columns="P", values="wilson99_high")
            image = ax.imshow(grid.to_numpy(), cmap="RdBu_r", norm=norm, aspect="auto",
                              origin="lower")  # fmt: skip
            for i, t in enumerate(grid.index):
                for j, p in enumerate(grid.columns):
                    value = grid.loc[t, p]
                    mark = (
                        "▼" if high.loc[t, p] < nominal else "▲" if low.loc[t, p] > nominal else ""
                    )
                    dark = abs(float(norm(value)) - 0.5) > 0.35  # white text on dark cells
                    ax.text(j, i, f"{value:.3f}".lstrip("0") + (f"\n{mark}" if mark else ""),
                            ha="center", va="center", fontsize=6,
                            color="white" if dark else "black",
                            fontweight="bold" if mark else "normal")  # fmt: skip
            ax.set_xticks(range(len(grid.columns)), [str(p) for p in grid.columns])
            ax.set_yticks(range(len(grid.index)), [str(t) for t in grid.index])
            ax.set_xlabel("number of partitions P")
            ax.set_ylabel("prediction-set size T")
            n_reps = int(part["n_reps"].max())
            ax.set_title(f"{variant}: {band} band ({n_reps} repetitions)", fontsize=9)
    bar = fig.colorbar(image, ax=axes, shrink=0.6, label=f"coverage (nominal {nominal:g} = white)")
    bar.ax.set_ylim(nominal - reach, min(1.0, nominal + reach))
    fig.suptitle(
        "Coverage of the bootstrap bands per (T, P); ▼/▲: 99% Wilson interval below/above"
        f" {nominal:g} (cf. paper Fig. 1, Table 1)"
    )
    save_figure(fig, path)


def plot_coverage(table, path, primary_variant, nominal=0.95):
    """Coverage vs log2 P, one line per T, 99% Wilson bars, nominal line (paper Fig. 1 layout).

    One panel per (penalty variant, band); the primary variant's percentile band first. The
    legend sits below the panels, off the data.
    """
    sns.set_theme(style="whitegrid", context="paper")
    variants = variant_order(table, primary_variant)
    targets = sorted(table["T"].unique())
    colours = _colours(targets)
    fig, axes = plt.subplots(
        len(variants),
        len(BANDS),
        figsize=(5.4 * len(BANDS), 3.8 * len(variants) + 0.8),
        squeeze=False,
        sharey=True,
    )
    for row, variant in enumerate(variants):
        full = full_repetitions(table, variant)
        for col, band in enumerate(BANDS):
            ax = axes[row, col]
            part = full[full["band"] == band]
            for k, t in enumerate(targets):
                line = part[part["T"] == t].sort_values("P")
                # Small horizontal offsets keep the bars of different T apart.
                x = np.log2(line["P"]) + 0.035 * (k - (len(targets) - 1) / 2)
                ax.errorbar(
                    x,
                    line["coverage"],
                    yerr=[
                        line["coverage"] - line["wilson99_low"],
                        line["wilson99_high"] - line["coverage"],
                    ],
                    color=colours[t],
                    marker="o",
                    ms=3,
                    lw=1,
                    capsize=1.5,
                    label=f"T = {t}",
                )
            ax.axhline(nominal, color="0.2", ls="--", lw=1, label=f"nominal {nominal:g}")
            ax.set_xlabel("log₂ P")
            ax.set_ylabel("coverage (99% Wilson interval)")
            n_reps = int(part["n_reps"].max())
            ax.set_title(f"{variant}: {band} band ({n_reps} repetitions)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 10), fontsize=7)
    fig.suptitle("Coverage of the bootstrap bands against log₂ P (cf. paper Fig. 1)")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    save_figure(fig, path)


def plot_rmse(table, path, primary_variant):
    """RMSE of the averaged estimator f̄ against log2 P, one line per T, per variant."""
    sns.set_theme(style="whitegrid", context="paper")
    variants = variant_order(table, primary_variant)
    targets = sorted(table["T"].unique())
    colours = _colours(targets)
    fig, axes = plt.subplots(
        1, len(variants), figsize=(5.2 * len(variants), 4.4), squeeze=False, sharey=True
    )
    for col, variant in enumerate(variants):
        ax = axes[0, col]
        part = full_repetitions(table, variant)
        part = part[part["band"] == BANDS[0]]  # the RMSE does not depend on the band
        for t in targets:
            line = part[part["T"] == t].sort_values("P")
            ax.plot(np.log2(line["P"]), line["rmse"], marker="o", ms=3, color=colours[t],
                    label=f"T = {t}")  # fmt: skip
        ax.set_xlabel("log₂ P")
        ax.set_ylabel("RMSE of f̄ at the prediction points")
        ax.set_title(f"{variant} ({int(part['n_reps'].max())} repetitions)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 9), fontsize=7)
    fig.suptitle("Accuracy of the averaged estimator against the number of partitions")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    save_figure(fig, path)
