"""Figure of the rates experiment: the error of the E[φ(X)|S] estimators against n."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from krepro.studies.figures import save_figure
from krepro.studies.rates.tables import ESTIMATOR_LABELS

__all__ = ["plot_rates"]


def plot_rates(errors, slopes, path):
    """Mean error against n (log-log) with the fitted lines and the theory's slopes."""
    sns.set_theme(style="whitegrid", context="paper")
    kinds = [("finite", "Finite S (Prop. 5)"), ("continuous", "Continuous S (Prop. 6, CME)")]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    palette = sns.color_palette("tab10")
    for ax, (kind, title) in zip(axes, kinds, strict=True):
        part = slopes[slopes["kind"] == kind]
        for colour, row in zip(palette, part.to_dict("records"), strict=False):
            line = errors[
                (errors["estimator"] == row["estimator"]) & (errors["setting"] == row["setting"])
            ].sort_values("n")
            n = line["n"].to_numpy(dtype=float)
            label = (
                f"{ESTIMATOR_LABELS.get(row['estimator'], row['estimator'])}, {row['setting']}:"
                f" {row['slope']:+.2f}"
            )
            ax.errorbar(
                n,
                line["error_mean"],
                yerr=line["error_sd"],
                fmt="o",
                ms=3,
                capsize=2,
                color=colour,
                label=label,
            )
            ax.plot(n, _fit_line(line, row), color=colour)
            if pd.notna(row["theory_slope"]):
                anchor = line["error_mean"].iloc[0]
                ax.plot(
                    n,
                    anchor * (n / n[0]) ** row["theory_slope"],
                    ls=":",
                    color=colour,
                    lw=1,
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n (estimation sample size)")
        ax.set_ylabel("RKHS-norm error (mean ± sd)")
        ax.set_title(title + "; dotted: theory slope")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle("Error of the estimators of E[φ(X)|S] against n", y=1.02)
    fig.tight_layout()
    save_figure(fig, path)


def _fit_line(line, row):
    n = line["n"].to_numpy(dtype=float)
    log_n, log_e = np.log(n), np.log(line["error_mean"].to_numpy())
    intercept = log_e.mean() - row["slope"] * log_n.mean()
    return np.exp(intercept + row["slope"] * log_n)
