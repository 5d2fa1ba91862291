"""DCM on Parkinson's: the Nyström landmark sweep figure, drawn from the aggregate CSVs."""

from __future__ import annotations

import matplotlib.pyplot as plt
import seaborn as sns

from krepro.studies.dcm_parkinsons.readings import AXES
from krepro.studies.figures import save_figure
from krepro.studies.readings import Reading, axes_name

__all__ = ["plot_nystrom"]


def plot_nystrom(sweep, table, path):
    """RMSE and fit CPU time of FastDCM against the number of landmarks M, with standard DCM
    (dashed) and the training-mean predictor (dotted) as references, for the reading of the
    sweep (the primary one)."""
    sns.set_theme(style="whitegrid", context="paper")
    axes = {a: sweep[a].iloc[0] for a in AXES if a in sweep and len(sweep)}
    reading = Reading(axes_name(axes), axes)
    table = reading.select(table)
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
    fig.suptitle(
        f"FastDCM on Parkinson's Telemonitoring against the number of landmarks ({reading.name})"
    )
    fig.tight_layout()
    save_figure(fig, path)
