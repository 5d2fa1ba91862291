"""Figures of the oblivious-data paper, drawn from aggregate CSVs only."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns

from krepro.data.synthetic import ILLUSTRATION_SETTINGS
from krepro.records import publish
from krepro.report.tables import paired_differences

__all__ = ["plot_illustration", "plot_ridge", "save_figure"]

METHOD_STYLE = {
    "KRR": {"color": "#1b9e77", "marker": "o"},
    "ORR": {"color": "#d95f02", "marker": "s"},
    "M-ORR": {"color": "#7570b3", "marker": "^"},
}


def save_figure(fig, path):
    """Save atomically: render to a temporary file next to ``path``, then rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=path.suffix)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=150, bbox_inches="tight")
        publish(tmp, path)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.unlink(tmp)


def plot_illustration(frame, path):
    """Paper Fig. 2: h(X) and ⟨h, Z⟩ against S for h1 = x² and h2 = sin."""
    sns.set_theme(style="whitegrid", context="paper")
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.4))
    for k, (name, spec) in enumerate(ILLUSTRATION_SETTINGS.items()):
        group = frame[frame["setting"] == name].sort_values("s")
        s = group["s"].to_numpy()
        raw_ax, obl_ax = axes[2 * k], axes[2 * k + 1]
        raw_ax.scatter(s, group["h_raw"], s=4, color="#3b6fb6", alpha=0.5, label="h(X)")
        raw_ax.plot(s, group["h_conditional_mean"], color="red", lw=2, label="E[h(X) | S]")
        obl_ax.scatter(s, group["h_oblivious"], s=4, color="0.45", alpha=0.5, label="⟨h, Z⟩")
        # Best regression of ⟨h, Z⟩ on S: a moving average over S-sorted points.
        window = max(len(s) // 10, 5)
        smooth = np.convolve(group["h_oblivious"], np.ones(window) / window, mode="valid")
        centre = s[window // 2 : window // 2 + len(smooth)]
        obl_ax.plot(centre, smooth, color="red", lw=2, label="moving average")
        raw_ax.set_title(f"{spec.h_label}: h(X) vs S")
        obl_ax.set_title(f"{spec.h_label}: ⟨h, Z⟩ vs S")
        for ax in (raw_ax, obl_ax):
            ax.set_xlabel("S")
            ax.legend(loc="best", fontsize=7)
        values = np.concatenate([group["h_raw"], group["h_oblivious"]])
        pad = 0.05 * np.ptp(values)
        for ax in (raw_ax, obl_ax):  # same scale, so the loss of dependence is visible
            ax.set_ylim(values.min() - pad, values.max() + pad)
    fig.suptitle("X = S + U: raw features vs oblivious features (cf. paper Fig. 2)", y=1.02)
    fig.tight_layout()
    save_figure(fig, path)


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
