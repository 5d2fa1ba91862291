"""DCM Fig. 2 (informative projection coordinates) and the Nyström landmark sweep figure."""

from __future__ import annotations

import matplotlib.pyplot as plt
import seaborn as sns

from krepro.experiments import dcm_parkinsons
from krepro.report.dcm import (
    _select,
)
from krepro.studies.figures import save_figure

__all__ = ["plot_fig2", "plot_nystrom"]


def plot_fig2(projections, path):
    """Fig. 2 analogue: the informative projection coordinates of COIR, DICA and DCM on the
    training and the unseen domains.

    A method with two informative components is a z1–z2 scatter; one with a single
    informative component (binary labels, centred kernels: rank(T_y) = 1) is a density of z1
    per class — no axis is drawn for a direction the problem does not determine.
    """
    sns.set_theme(style="whitegrid", context="paper")
    methods = list(dict.fromkeys(projections["method"]))
    fig, axes = plt.subplots(2, len(methods), figsize=(4 * len(methods), 7), squeeze=False)
    classes = ((-1, "o", "#1f78b4"), (1, "^", "#d95f02"))
    for col, method in enumerate(methods):
        two = projections.loc[projections["method"] == method, "z2"].notna().all()
        for row, split in enumerate(("train", "test")):
            ax = axes[row, col]
            part = projections[(projections["method"] == method) & (projections["split"] == split)]
            for label, marker, color in classes:
                values = part[part["y"] == label]
                if two:
                    ax.scatter(
                        values["z1"], values["z2"], s=3, alpha=0.35, marker=marker, color=color
                    )
                else:
                    sns.kdeplot(
                        x=values["z1"],
                        ax=ax,
                        color=color,
                        fill=True,
                        alpha=0.3,
                        warn_singular=False,
                    )
            where = "training domains" if split == "train" else "unseen domains"
            count = "2 informative components" if two else "1 informative component"
            ax.set_title(f"{method.upper()}, {where} ({count})")
            ax.set_xlabel("z1")
            ax.set_ylabel("z2" if two else "density of z1 per class")
    handles = [
        plt.Line2D([], [], ls="", marker=marker, color=color, label=f"y = {label:+d}")
        for label, marker, color in classes
    ]
    fig.legend(handles=handles, loc="lower center", ncol=2, frameon=False)
    fig.suptitle(
        "Projections of synthetic domains onto the informative DCM, DICA and COIR components"
    )
    fig.tight_layout(rect=(0, 0.04, 1, 0.97))
    save_figure(fig, path)


def plot_nystrom(sweep, table, path):
    """RMSE and fit CPU time of FastDCM against the number of landmarks M, with standard DCM
    (dashed) and the training-mean predictor (dotted) as references, for the reading of the
    sweep (the primary one)."""
    sns.set_theme(style="whitegrid", context="paper")
    reading = {a: sweep[a].iloc[0] for a in dcm_parkinsons.AXES if a in sweep and len(sweep)}
    table = _select(table, reading)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    for target, color in (("motor", "#1b9e77"), ("total", "#7570b3")):
        part = sweep[sweep["target"] == target].sort_values("n_landmarks")
        axes[0].errorbar(
            part["n_landmarks"],
            part["rmse_mean"],
            yerr=part["rmse_sd"],
            marker="o",
            color=color,
            label=f"FastDCM, {target} UPDRS",
            capsize=2,
        )
        axes[1].plot(
            part["n_landmarks"],
            part["fit_cpu_seconds"],
            marker="o",
            color=color,
            label=f"FastDCM, {target} UPDRS",
        )
        std = table[
            (table["method"] == "dcm")
            & (table["version"] == "standard")
            & (table["target"] == target)
        ]
        mean = table[(table["method"] == "mean") & (table["target"] == target)]
        if not std.empty:
            for ax, column in ((axes[0], "rmse_mean"), (axes[1], "fit_cpu_seconds")):
                ax.axhline(
                    std[column].iloc[0],
                    color=color,
                    ls="--",
                    lw=1,
                    label=f"standard DCM, {target} UPDRS",
                )
        if not mean.empty:
            axes[0].axhline(
                mean["rmse_mean"].iloc[0],
                color=color,
                ls=":",
                lw=1,
                label=f"training-mean predictor, {target} UPDRS",
            )
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("Nyström landmarks M")
    axes[0].set_title("Test RMSE (mean ± sd over subject splits)")
    axes[0].set_ylabel("RMSE")
    axes[1].set_title("Dimension-reduction fit time")
    axes[1].set_yscale("log")
    axes[1].set_ylabel("fit CPU seconds")
    for ax in axes:
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(0, -0.16), ncol=2, frameon=False)
    name = dcm_parkinsons.reading_name(reading)
    fig.suptitle(f"FastDCM on Parkinson's Telemonitoring against the number of landmarks ({name})")
    fig.tight_layout()
    save_figure(fig, path)
