"""Figure of the ``fair_regression`` study (``figures/fair_regression.png``): error against
HSIC(prediction, S) per method, one panel per data set, with standard-error bars over the
splits; the legend below the panels."""

from __future__ import annotations

import matplotlib.pyplot as plt
import seaborn as sns

from krepro.studies.fair_regression.run import CLASSIFICATION, DATASETS
from krepro.studies.figures import save_figure

__all__ = ["STYLE", "plot_fair_regression"]

STYLE = {
    "krr": {"color": "#1b9e77", "marker": "o", "ls": ":", "label": "KRR (λ)"},
    "oblivious_partition": {
        "color": "#d95f02", "marker": "s", "ls": "-", "label": "oblivious, partition (t)",
    },
    "oblivious_cme": {"color": "#1f78b4", "marker": "s", "ls": "-", "label": "oblivious, CME (t)"},
    "correlation_remover": {
        "color": "#7570b3", "marker": "^", "ls": "--", "label": "CorrelationRemover + KRR (α)",
    },
    "bounded_group_loss": {
        "color": "#e7298a", "marker": "v", "ls": "--", "label": "ExpGrad BoundedGroupLoss (c)",
    },
    "hsic_ridge": {"color": "#666666", "marker": "D", "ls": "-.", "label": "HSIC ridge (μ)"},
}  # fmt: skip


def plot_fair_regression(table, path):
    """One panel per data set: mean error (x) against mean HSIC (y) for every setting of
    every method, joined in the order of the method's parameter, with ± 1 s.e. bars; the
    first point of each sweep is marked by a larger symbol."""
    sns.set_theme(style="whitegrid", context="paper")
    datasets = [d for d in DATASETS if d in set(table["dataset"])]
    ncols = min(2, len(datasets))
    nrows = -(-len(datasets) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.8 * nrows), squeeze=False)
    for ax in axes.flat[len(datasets) :]:
        ax.set_visible(False)
    for ax, dataset in zip(axes.flat, datasets, strict=False):
        part = table[table["dataset"] == dataset]
        for method, style in STYLE.items():
            line = part[part["method"] == method].sort_values("parameter")
            if line.empty:
                continue
            style = dict(style)
            label = style.pop("label")
            ax.errorbar(
                line["error"],
                line["hsic"],
                xerr=line["error_se"],
                yerr=line["hsic_se"],
                label=label,
                ms=4,
                capsize=2,
                lw=1,
                **style,
            )
            ax.plot(line["error"].iloc[:1], line["hsic"].iloc[:1], marker=style["marker"],
                    color=style["color"], ms=8, ls="none", alpha=0.5)  # fmt: skip
        ax.set_yscale("log")
        ax.set_title(dataset)
        ax.set_xlabel("misclassification rate" if dataset in CLASSIFICATION else "test RMSE")
        ax.set_ylabel("HSIC(prediction, S)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)  # below the panels
    fig.suptitle(
        "Fair regression with S = age: error vs HSIC per setting\n(± 1 s.e. over the splits;"
        " large symbol: the first setting of a sweep)"
    )
    fig.tight_layout(rect=(0, 0.12 / nrows, 1, 1))
    save_figure(fig, path)
