"""Fig. 3 of the oblivious-data paper (synthetic students), drawn from the run and aggregate
tables only."""

from __future__ import annotations

import matplotlib.pyplot as plt
import seaborn as sns

from krepro.studies.figures import save_figure
from krepro.studies.students.run import METHOD_LABELS as STUDENT_LABELS
from krepro.studies.students.run import METHODS as STUDENT_METHODS

__all__ = ["STUDENT_STYLE", "plot_students"]

STUDENT_STYLE = {
    "linear_svm": {"color": "#1b9e77", "marker": "o"},
    "linear_ferm": {"color": "#d95f02", "marker": "s"},
    "oblivious_svm": {"color": "#7570b3", "marker": "^"},
}


def plot_students(runs, table, path, readings):
    """Fig. 3: error vs e_β (observed labels; true labels), one row per reading
    (:class:`~krepro.studies.readings.Reading`, in the order given).

    Legend labels carry each method's mean positive rate (a classifier that predicts one
    class sits at e_β = 0); legends are drawn beside the panels, off the data.
    """
    sns.set_theme(style="whitegrid", context="paper")
    fig, axes = plt.subplots(len(readings), 2, figsize=(11, 3.6 * len(readings)), squeeze=False)
    for r, reading in enumerate(readings):
        part_runs, part_table = reading.select(runs), reading.select(table)
        for c, (metric, title) in enumerate(
            (("error_observed", "observed labels"), ("error_true", "true labels"))
        ):
            ax = axes[r, c]
            for method in STUDENT_METHODS:
                style = STUDENT_STYLE[method]
                points = part_runs[part_runs["method"] == method]
                ax.scatter(points["beta"], points[metric], s=14, alpha=0.35, **style)
                mean = part_table[part_table["method"] == method]
                if mean.empty:
                    continue
                ax.errorbar(
                    mean["beta_mean"],
                    mean[f"{metric}_mean"],
                    xerr=mean["beta_sd"],
                    yerr=mean[f"{metric}_sd"],
                    ms=9,
                    mec="black",
                    capsize=3,
                    label=(
                        f"{STUDENT_LABELS[method]} (positive rate"
                        f" {mean['positive_rate_mean'].iloc[0]:.2f})"
                    ),
                    **style,
                )
            ax.set_xlabel("e_β dependence between prediction and S")
            ax.set_ylabel(f"error w.r.t. {title}")
            ax.set_title(f"({'ab'[c]}) {title}, reading {reading.name}")
            ax.set_xlim(-0.05, 1.05)
        axes[r, 1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=7, frameon=False)
    fig.suptitle("Synthetic students: error vs dependence on S (cf. paper Fig. 3)", y=1.0)
    fig.tight_layout()
    save_figure(fig, path)
