"""Figures of the oblivious-data paper, drawn from aggregate CSVs only."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns

from krepro.stats import paired_differences
from krepro.studies.figures import save_figure

__all__ = ["plot_ridge"]

METHOD_STYLE = {
    "KRR": {"color": "#1b9e77", "marker": "o"},
    "ORR": {"color": "#d95f02", "marker": "s"},
    "M-ORR": {"color": "#7570b3", "marker": "^"},
}


def plot_ridge(table, best_constants, runs, path):
    """Paper Fig. 4: test MSE (mean ± sd) against γ, one row per protocol variant, and a last
    row with the paired difference M-ORR − ORR (mean ± se over repetitions) per variant.

    The best S-independent MSE at γ = 0 (computed from the data model) is drawn as a dashed
    reference line. On the log scale of the MSE rows the M-ORR − ORR gap of the paper's
    claim is invisible; the difference row shows it on a linear scale, with zero marked.
    Legends sit to the right of each row, off the data.

    Parameters
    ----------
    table : DataFrame
        Aggregate ``tables/ridge.csv``.
    best_constants : DataFrame
        ``tables/ridge_best_constant.csv``.
    runs : DataFrame
        Per-repetition ``results/ridge/ridge.csv`` (the paired differences need it).
    path : path-like
    """
    sns.set_theme(style="whitegrid", context="paper")
    variants = list(dict.fromkeys(table["variant"]))
    experiments = sorted(table["experiment"].unique())
    fig, axes = plt.subplots(
        len(variants) + 1,
        len(experiments),
        figsize=(5.2 * len(experiments) + 2.2, 3.4 * (len(variants) + 1)),
        squeeze=False,
    )
    for row, variant in enumerate(variants):
        for col, experiment in enumerate(experiments):
            ax = axes[row, col]
            part = table[(table["variant"] == variant) & (table["experiment"] == experiment)]
            for method, style in METHOD_STYLE.items():
                line = part[part["method"] == method].sort_values("gamma")
                if line.empty:
                    continue
                # On the log scale a lower bar of mean − sd ≤ 0 is undrawable: clip it at 90%.
                lower = np.minimum(line["mse_sd"], 0.9 * line["mse_mean"])
                ax.errorbar(
                    line["gamma"],
                    line["mse_mean"],
                    yerr=[lower, line["mse_sd"]],
                    capsize=2,
                    lw=1.4,
                    ms=4,
                    label=method,
                    **style,
                )
            constant = best_constants[
                (best_constants["variant"] == variant)
                & (best_constants["experiment"] == experiment)
            ]["best_constant_mse"].iloc[0]
            ax.axhline(constant, ls="--", color="0.3", lw=1, label="best S-independent MSE")
            ax.set_yscale("log")
            ax.set_xlabel("γ (γ = 0: X = S; γ = 1: X independent of S)")
            ax.set_ylabel("test MSE (mean ± sd)")
            ax.set_title(f"Experiment {experiment}, variant {variant}")
        axes[row, -1].legend(
            fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False
        )
    diff_row = axes[len(variants)]
    palette = sns.color_palette("dark", len(variants))
    for col, experiment in enumerate(experiments):
        ax = diff_row[col]
        ax.axhline(0.0, color="0.3", lw=1)
        for k, variant in enumerate(variants):
            diff = paired_differences(runs, variant, experiment, "ORR", "M-ORR")
            offset = (k - (len(variants) - 1) / 2) * 0.012  # side by side, not on top
            ax.errorbar(
                diff["gamma"] + offset,
                diff["mean"],
                yerr=diff["se"],
                capsize=2,
                lw=1.2,
                ms=4,
                marker="o",
                color=palette[k],
                label=f"{variant} (± se, n = {int(diff['n'].min())})",
            )
        ax.set_xlabel("γ")
        ax.set_ylabel("M-ORR − ORR test MSE (paired)")
        ax.set_title(f"Experiment {experiment}: M-ORR − ORR, mean ± se")
    diff_row[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    fig.suptitle("Ridge regression on oblivious features (cf. paper Fig. 4a/4b)", y=1.0)
    fig.tight_layout()
    save_figure(fig, path)
