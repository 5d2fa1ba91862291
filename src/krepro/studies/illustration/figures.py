"""Figures of the oblivious-data paper, drawn from aggregate CSVs only."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns

from krepro.data.synthetic import ILLUSTRATION_SETTINGS
from krepro.studies.figures import save_figure

__all__ = ["plot_illustration"]


def plot_illustration(frame, path):
    """Paper Fig. 2: h(X) and ⟨h, Z⟩ against S for h1 = x² and h2 = sin (repetition 0)."""
    if "repetition" in frame:
        frame = frame[frame["repetition"] == frame["repetition"].min()]
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
