"""Figure of the ``cme_oblivious`` study (``figures/cme_oblivious.png``): test MSE and the
dependence of the predictions on S against γ, per estimator and method."""

from __future__ import annotations

import matplotlib.pyplot as plt
import seaborn as sns

from krepro.studies.figures import save_figure

__all__ = ["plot_cme_oblivious"]

STYLE = {
    ("dyadic", "ORR"): {"color": "#d95f02", "marker": "s", "ls": "-"},
    ("dyadic", "M-ORR"): {"color": "#d95f02", "marker": "^", "ls": "--"},
    ("cme", "ORR"): {"color": "#1f78b4", "marker": "s", "ls": "-"},
    ("cme", "M-ORR"): {"color": "#1f78b4", "marker": "^", "ls": "--"},
    ("none", "KRR"): {"color": "#1b9e77", "marker": "o", "ls": ":"},
}


def plot_cme_oblivious(table, path):
    """Test MSE, HSIC(prediction, S) and |corr(prediction, mean S²)| against γ, per (d,
    experiment); the legend below the panels."""
    sns.set_theme(style="whitegrid", context="paper")
    settings = (
        table[["sensitive_dim", "experiment"]]
        .drop_duplicates()
        .sort_values(["sensitive_dim", "experiment"])
    )
    fig, axes = plt.subplots(3, len(settings), figsize=(4.2 * len(settings), 9.0), squeeze=False)
    for col, (dim, experiment) in enumerate(settings.itertuples(index=False)):
        part = table[(table["sensitive_dim"] == dim) & (table["experiment"] == experiment)]
        for (estimator, method), style in STYLE.items():
            line = part[(part["estimator"] == estimator) & (part["method"] == method)]
            if line.empty:
                continue
            line = line.sort_values("gamma")
            label = method if estimator == "none" else f"{method} ({estimator})"
            axes[0, col].plot(line["gamma"], line["mse_mean"], label=label, ms=4, **style)
            axes[1, col].plot(line["gamma"], line["hsic_mean"], label=label, ms=4, **style)
            axes[2, col].plot(line["gamma"], line["abs_corr_s2_mean"], label=label, ms=4, **style)
        axes[0, col].set_yscale("log")
        axes[1, col].set_yscale("log")
        axes[0, col].set_title(f"d = {dim}, experiment {experiment}")
        axes[0, col].set_ylabel("test MSE (mean)")
        axes[1, col].set_ylabel("HSIC(prediction, S) (mean)")
        axes[2, col].set_ylabel("|corr(prediction, mean S²)|")
        axes[2, col].set_xlabel("γ")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=7)
    fig.suptitle("Oblivious features with continuous S: dyadic partition vs CME estimator")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    save_figure(fig, path)
