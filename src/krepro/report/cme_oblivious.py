"""Figure and report section: oblivious features with a dyadic vs a CME estimator of E[φ|S]."""

from __future__ import annotations

import matplotlib.pyplot as plt
import seaborn as sns

from krepro.report.figures import save_figure
from krepro.report.tables import markdown_table

__all__ = ["cme_oblivious_section", "plot_cme_oblivious"]

STYLE = {
    ("dyadic", "ORR"): {"color": "#d95f02", "marker": "s", "ls": "-"},
    ("dyadic", "M-ORR"): {"color": "#d95f02", "marker": "^", "ls": "--"},
    ("cme", "ORR"): {"color": "#1f78b4", "marker": "s", "ls": "-"},
    ("cme", "M-ORR"): {"color": "#1f78b4", "marker": "^", "ls": "--"},
    ("none", "KRR"): {"color": "#1b9e77", "marker": "o", "ls": ":"},
}


def plot_cme_oblivious(table, path):
    """Test MSE and |corr(prediction, mean S²)| against γ, per (d, experiment)."""
    sns.set_theme(style="whitegrid", context="paper")
    settings = (
        table[["sensitive_dim", "experiment"]]
        .drop_duplicates()
        .sort_values(["sensitive_dim", "experiment"])
    )
    fig, axes = plt.subplots(2, len(settings), figsize=(4.2 * len(settings), 6.4), squeeze=False)
    for col, (dim, experiment) in enumerate(settings.itertuples(index=False)):
        part = table[(table["sensitive_dim"] == dim) & (table["experiment"] == experiment)]
        for (estimator, method), style in STYLE.items():
            line = part[(part["estimator"] == estimator) & (part["method"] == method)]
            if line.empty:
                continue
            line = line.sort_values("gamma")
            label = method if estimator == "none" else f"{method} ({estimator})"
            axes[0, col].plot(line["gamma"], line["mse_mean"], label=label, ms=4, **style)
            axes[1, col].plot(line["gamma"], line["abs_corr_s2_mean"], label=label, ms=4, **style)
        axes[0, col].set_yscale("log")
        axes[0, col].set_title(f"d = {dim}, experiment {experiment}")
        axes[0, col].set_ylabel("test MSE (mean)")
        axes[1, col].set_ylabel("|corr(prediction, mean S²)|")
        axes[1, col].set_xlabel("γ")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("Oblivious features with continuous S: dyadic partition vs CME estimator", y=1.0)
    fig.tight_layout()
    save_figure(fig, path)


def cme_oblivious_section(table):
    """Markdown paragraph and summary table (an extension: the paper has no such numbers)."""
    oblivious = table[table["estimator"] != "none"]
    summary = (
        oblivious.groupby(["sensitive_dim", "estimator", "method"], sort=True)
        .agg(
            mse_mean_over_settings=("mse_mean", "mean"),
            abs_corr_s2=("abs_corr_s2_mean", "mean"),
            hsic=("hsic_mean", "mean"),
        )
        .reset_index()
    )
    lines = [
        "## Oblivious features with continuous S: dyadic partition vs CME (extension)",
        "",
        "The paper estimates E[φ(X)|S] on a fixed partition of the range of S; with d"
        " sensitive dimensions a partition with the same number of cells has ℓ^(1/d) cells per"
        " axis and converges at the slow rate of Proposition 6. The CME estimator"
        " Σ α_v(s) φ(x_v) (λ chosen by generalised cross-validation of the regression of"
        " φ(X) on S) needs no partition. Both run on the §7.2 data model (d = 1) and on a"
        " variant with S ∈ [−5, 5]² (d = 2); predictions are compared by test MSE and by their"
        " remaining dependence on S (|corr| with the mean of S², HSIC). Averages over γ and"
        " both experiments; per-setting numbers in `results/tables/cme_oblivious.csv`, figure"
        " `results/figures/cme_oblivious.png`.",
        "",
        markdown_table(summary),
        "",
        "At γ = 0 (X determined by S; KRR's predictions are a function of S):",
        "",
        markdown_table(
            table[table["gamma"] == 0.0][
                [
                    "sensitive_dim",
                    "experiment",
                    "estimator",
                    "method",
                    "mse_mean",
                    "abs_corr_s2_mean",
                    "hsic_mean",
                    "n_reps",
                ]
            ]
        ),
        "",
    ]
    for dim, group in summary.groupby("sensitive_dim"):
        orr = group[group["method"] == "ORR"].set_index("estimator")
        mse_ratio = (
            orr.loc["cme", "mse_mean_over_settings"] / orr.loc["dyadic", "mse_mean_over_settings"]
        )
        corr = orr["abs_corr_s2"]
        lower_dependence = "CME" if corr["cme"] < corr["dyadic"] else "dyadic"
        lines.append(
            f"- d = {dim}: ORR with the CME estimator has {mse_ratio:.2f}× the mean test MSE of"
            f" ORR with the dyadic partition; the remaining dependence on S (|corr| with the"
            f" mean of S²) is {corr['cme']:.3f} (CME) vs {corr['dyadic']:.3f} (dyadic), lower"
            f" for {lower_dependence}."
        )
        at_zero = (
            table[
                (table["gamma"] == 0.0)
                & (table["sensitive_dim"] == dim)
                & (table["method"] == "ORR")
            ]
            .groupby("estimator")[["abs_corr_s2_mean", "mse_mean"]]
            .mean()
        )
        if {"cme", "dyadic"} <= set(at_zero.index):
            corr0, mse0 = at_zero["abs_corr_s2_mean"], at_zero["mse_mean"]
            lines.append(
                f"  At γ = 0 (strongest dependence): |corr| {corr0['cme']:.3f} (CME) vs"
                f" {corr0['dyadic']:.3f} (dyadic), test MSE {mse0['cme']:.1f} vs"
                f" {mse0['dyadic']:.1f}."
            )
    return "\n".join(lines) + "\n"
