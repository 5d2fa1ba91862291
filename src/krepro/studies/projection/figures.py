"""Figure of the projection experiment: d_n, and the dependence on S of X, Z and W, against γ."""

from __future__ import annotations

import matplotlib.pyplot as plt
import seaborn as sns

from krepro.studies.figures import save_figure

__all__ = ["plot_projection"]


def plot_projection(table, path):
    """d_n and d against γ; dependence of X, Z and W on S; e_β of the three SVMs."""
    sns.set_theme(style="whitegrid", context="paper")
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    gamma = table["gamma"]
    ax = axes[0]
    ax.errorbar(gamma, table["d_n_mean"], yerr=table["d_n_sd"], marker="o", capsize=2, label="d_n")
    ax.plot(gamma, table["d_reference_mean"], ls="--", color="0.3", label="d (reference sample)")
    ax.set_title("Distance of Z to M")
    ax.set_ylabel("mean ‖Z − φ(W)‖")
    styles = {"X": ("#1b9e77", "o"), "Z": ("#d95f02", "s"), "W": ("#7570b3", "^")}
    for ax, measure, title in (
        (axes[1], "dcor", "Distance correlation with S"),
        (axes[2], "beta", "e_β of SVM predictions and S"),
    ):
        for feature, (colour, marker) in styles.items():
            ax.errorbar(
                gamma,
                table[f"{measure}_{feature}_mean"],
                yerr=table[f"{measure}_{feature}_sd"],
                marker=marker,
                color=colour,
                capsize=2,
                label=feature,
            )
        ax.set_title(title)
    for ax in axes:
        ax.set_xlabel("γ (γ = 0: X = S; γ = 1: X independent of S)")
        ax.legend(fontsize=7, loc="best")
    fig.suptitle("Projection W of the oblivious features Z onto M = φ[X] (§7.2 data)", y=1.03)
    fig.tight_layout()
    save_figure(fig, path)
