"""Figure of the ``cme`` study (``figures/cme.png``): data, embeddings, weights and category
scores at the selected λ, and weights and errors against λ, from the frames written by
:func:`krepro.studies.cme.run.run_experiment` (the λ table and the figure data of repetition 0)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns

from krepro.studies.figures import save_figure

__all__ = ["KERNEL_LABELS", "plot_cme", "selected_lambda"]

KERNEL_LABELS = {"gaussian": "Gaussian", "linear": "linear", "delta": "delta"}
CLASS_COLORS = ("#1b9e77", "#d95f02", "#7570b3")


def selected_lambda(table, kernel):
    """λ of least held-out embedding loss for an output kernel ("gaussian", "linear", "delta")."""
    rows = table[table[f"selected_{kernel}"].astype(bool)]
    if len(rows) != 1:
        raise ValueError(
            f"The λ table must flag exactly one selected_{kernel} row, got {len(rows)}."
        )
    return float(rows["lambda"].iloc[0])


def _at(frame, lam):
    return frame[np.isclose(frame["lambda"], lam, rtol=1e-9, atol=0.0)]


def _mark_selected(ax, table):
    """Vertical lines at the λ selected for the Gaussian and delta kernels, with legend."""
    for kernel, style in (("gaussian", ":"), ("delta", "--")):
        ax.axvline(selected_lambda(table, kernel), color="0.5", lw=0.8, ls=style)
        ax.plot([], [], color="0.5", ls=style, label=f"λ selected ({KERNEL_LABELS[kernel]})")


def plot_cme(table, sample, query, curves, weights, path):
    """Six panels: data and linear-kernel mean; predicted vs true Gaussian embeddings; the
    weights α_i(x) at one query point; category scores vs p(x); weight pathologies and
    errors against λ (log axes). Saved atomically with :func:`save_figure`."""
    sns.set_theme(style="whitegrid", context="paper")
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.4))
    lam_gauss = selected_lambda(table, "gaussian")
    lam_linear = selected_lambda(table, "linear")
    lam_delta = selected_lambda(table, "delta")
    lambdas = np.sort(table["lambda"].to_numpy())

    # (a) data, true mean ± sd and the linear-kernel embedding (the conditional mean)
    ax = axes[0, 0]
    ax.scatter(sample["x"], sample["y"], s=4, color="0.6", alpha=0.6, label="sample (x, y)")
    grid = _at(query, lam_linear).sort_values("x")
    ax.plot(grid["x"], np.zeros(len(grid)), color="k", lw=1.5, label="true E[Y | x] = 0")
    ax.plot(grid["x"], grid["sd_true"], color="k", lw=1, ls="--", label="± true sd(Y | x)")
    ax.plot(grid["x"], -grid["sd_true"], color="k", lw=1, ls="--")
    for lam, color in ((lambdas[0], "#e7298a"), (lam_linear, "#d95f02")):
        line = _at(query, lam).sort_values("x")
        ax.plot(
            line["x"], line["mean_linear"], color=color, lw=2, label=f"linear kernel, λ={lam:g}"
        )
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title("(a) linear output kernel: only the mean")
    ax.legend(fontsize=7, loc="upper left")

    # (b) Gaussian output kernel: predicted vs true embedding μ_x(y)
    ax = axes[0, 1]
    palette = sns.color_palette("viridis", n_colors=curves["x"].nunique())
    for color, (x0, line) in zip(palette, _at(curves, lam_gauss).groupby("x"), strict=True):
        ax.plot(line["y"], line["true"], color=color, lw=1.2, ls="--")
        ax.plot(line["y"], line["predicted"], color=color, lw=2, label=f"x = {x0:g}")
    ax.plot([], [], color="0.3", ls="--", label="true μ_x(y)")
    ax.set_xlabel("y")
    ax.set_ylabel("μ_x(y) = E[l(Y, y) | x]")
    ax.set_title(f"(b) Gaussian output kernel, λ = {lam_gauss:g}")
    ax.legend(fontsize=7)

    # (c) the weights α_i(x0) at one query point, for three λ
    ax = axes[0, 2]
    x0 = 0.5 if np.any(np.isclose(weights["x_query"], 0.5)) else weights["x_query"].iloc[0]
    shown = weights[np.isclose(weights["x_query"], x0)]
    for lam, color in zip(
        dict.fromkeys((lambdas[0], lam_delta, lambdas[-1])),
        ("#e7298a", "#1b9e77", "#7570b3"),
        strict=False,
    ):
        line = _at(shown, lam).sort_values("x_train")
        total = line["weight"].sum()
        ax.plot(
            line["x_train"], line["weight"], color=color, lw=1.2, label=f"λ={lam:g}, Σα={total:.2f}"
        )
    ax.axhline(0.0, color="k", lw=0.8)
    ax.set_xlabel("training point x_i")
    ax.set_ylabel(f"α_i(x = {x0:g})")
    ax.set_title("(c) weights are not probabilities")
    ax.legend(fontsize=7)

    # (d) delta kernel: category scores vs the true probabilities
    ax = axes[1, 0]
    grid = _at(query, lam_delta).sort_values("x")
    classes = sorted(int(c.split("_")[1]) for c in grid.columns if c.startswith("score_"))
    for c in classes:
        color = CLASS_COLORS[c % len(CLASS_COLORS)]
        ax.plot(grid["x"], grid[f"score_{c}"], color=color, lw=2, label=f"score, class {c}")
        ax.plot(grid["x"], grid[f"p_{c}"], color=color, lw=1.2, ls="--")
    ax.plot(grid["x"], grid["weight_sum"], color="k", lw=1, ls=":", label="Σ scores = Σα")
    ax.plot([], [], color="0.3", ls="--", label="true p_c(x)")
    ax.axhline(0.0, color="k", lw=0.6)
    ax.set_xlabel("x")
    ax.set_ylabel("category score")
    ax.set_title(f"(d) delta output kernel, λ = {lam_delta:g}")
    ax.legend(fontsize=7, loc="center left")

    # (e) weight pathologies against λ
    ax = axes[1, 1]
    for column, label, color in (
        ("mean_abs_weight_sum_minus_one", "mean |Σα − 1|", "#1b9e77"),
        ("share_negative_weights", "share of negative α_i", "#d95f02"),
        ("negative_weight_mass", "negative mass Σ max(−α_i, 0)", "#7570b3"),
    ):
        ax.plot(table["lambda"], table[column], marker="o", ms=4, color=color, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    _mark_selected(ax, table)
    ax.set_xlabel("λ  (α(x) = (K + nλI)⁻¹ k_x)")
    ax.set_title("(e) weight sums and negative weights vs λ")
    ax.legend(fontsize=7)

    # (f) errors against λ
    ax = axes[1, 2]
    for column, label, color in (
        ("mmd_error", "RMS MMD(μ̂_x, μ_x), Gaussian", "#1b9e77"),
        ("category_abs_error", "mean |score − p(x)|, delta", "#d95f02"),
        ("mean_error_linear", "RMS |mean − 0|, linear", "#7570b3"),
    ):
        ax.errorbar(
            table["lambda"],
            table[column],
            yerr=np.minimum(table[f"{column}_sd"], 0.9 * table[column]),
            marker="o",
            ms=4,
            capsize=2,
            color=color,
            label=label,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    _mark_selected(ax, table)
    ax.set_xlabel("λ")
    ax.set_title("(f) errors vs λ (mean ± sd over repetitions)")
    ax.legend(fontsize=7)

    fig.suptitle(
        "Conditional mean embeddings: Y | x ~ ½N(−2x, s²) + ½N(2x, s²), C | x ~ Binomial(2, x)",
        y=1.01,
    )
    fig.tight_layout()
    save_figure(fig, path)
