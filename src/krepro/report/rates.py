"""Verdicts, tables and figures of the rate and projection experiments (paper Props. 2, 3, 5, 6).

The paper proves rates for its estimator of E[φ(X)|S] and a concentration bound for the
distance of the oblivious features to the manifold M = φ[X], without measuring them; these
sections put the measurements beside the theory. Thresholds come from
``config/paper_reference.yaml`` (``oblivious.rates``, ``oblivious.projection``).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from scipy import stats

from krepro.fairness.projection import hoeffding_radius
from krepro.studies.figures import save_figure
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import (
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    Section,
    claim_verdict,
)

__all__ = ["plot_projection", "plot_rates", "projection_section", "rates_section"]

PAPER = "oblivious"
ESTIMATOR_LABELS = {"partition": "plug-in (partition)", "cme": "CME"}


def _slope_text(row):
    return (
        f"{row['setting']}: slope {row['slope']:+.3f}"
        f" [{row['slope_ci_low']:+.3f}, {row['slope_ci_high']:+.3f}]"
        f" vs {row['theory_slope']:+.3f} (n = {int(row['n_min'])}…{int(row['n_max'])})"
    )


def _check_finite(rows, confidence):
    inside = [r for r in rows if r["slope_ci_low"] <= r["theory_slope"] <= r["slope_ci_high"]]
    outside = [r for r in rows if r not in inside]
    detail = "; ".join(_slope_text(r) for r in rows) + "."
    detail += (
        f" Each value is the least-squares slope of log(mean error) on log n with a"
        f" {confidence:.0%} bootstrap interval over the repetitions."
    )
    if outside:
        faster = [r["setting"] for r in outside if r["slope_ci_high"] < r["theory_slope"]]
        slower = [r["setting"] for r in outside if r["slope_ci_low"] > r["theory_slope"]]
        if faster:
            detail += (
                f" Faster than n^(−1/2) for {', '.join(faster)}: at the smallest n some values"
                " of S have few or no estimation points (an empty cell's estimate is 0), an"
                " extra error that vanishes exponentially in n and steepens the fit."
            )
        if slower:
            detail += (
                f" Slower than n^(−1/2) for {', '.join(slower)}: the error has not reached its"
                " asymptotic regime over this range of n."
            )
    outcome = REPRODUCED if not outside else PARTLY if inside else NOT_REPRODUCED
    return outcome, detail


def _check_continuous(rows, confidence):
    slower = [r for r in rows if r["slope_ci_low"] > r["theory_slope"]]
    faster = [r for r in rows if r["slope_ci_high"] < r["theory_slope"]]
    detail = "; ".join(_slope_text(r) for r in rows) + "."
    detail += (
        f" Proposition 6 is an upper bound (O_P): an empirical slope at or below the theory's"
        f" ({confidence:.0%} interval not entirely above it) is consistent with it."
    )
    if faster:
        detail += (
            f" Faster than the bound for {', '.join(r['setting'] for r in faster)}: with"
            " ℓ = n^(1/(2(d+1))) cells per axis the variance term ℓ^(d/2) n^(−1/2) ="
            " n^(−(d+2)/(4(d+1))) still weighs at these n beside the bias term 1/ℓ ="
            " n^(−1/(2(d+1))), and it falls faster; the bound's exponent is the slower of the"
            " two."
        )
    if slower:
        detail += (
            f" Slower than the bound for {', '.join(r['setting'] for r in slower)}, which"
            " contradicts the proposition at these n."
        )
    outcome = REPRODUCED if not slower else PARTLY if len(slower) < len(rows) else NOT_REPRODUCED
    return outcome, detail


def rates_section(slopes, errors, reference, settings, *, scale):
    """Verdicts of Propositions 5 and 6 from the slope table.

    Parameters
    ----------
    slopes : pandas.DataFrame
        ``tables/oblivious_rates.csv``
        (:func:`krepro.experiments.rates.slope_table`).
    errors : pandas.DataFrame
        ``results/rates/errors.csv`` (:func:`krepro.experiments.rates.error_table`).
    reference : mapping
        ``oblivious.rates`` of ``config/paper_reference.yaml``.
    settings : mapping
        The ``rates`` config section.
    scale : str

    Returns
    -------
    Section
    """
    confidence = settings["confidence"]
    verdicts = []
    partition = slopes[slopes["estimator"] == "partition"]
    for claim_id, kind, check in (
        ("finite_rate", "finite", _check_finite),
        ("continuous_rate", "continuous", _check_continuous),
    ):
        rows = partition[partition["kind"] == kind].to_dict("records")
        if not rows:
            continue
        outcome, detail = check(rows, confidence)
        verdicts.append(
            claim_verdict(
                reference,
                claim_id,
                outcome,
                detail,
                experiment="rates",
                paper=PAPER,
                scale=scale,
                n_repetitions=int(min(r["n_reps"] for r in rows)),
                paper_value="; ".join(f"{r['theory_slope']:+.3f}" for r in rows),
                measured="; ".join(f"{r['slope']:+.3f}" for r in rows),
                tolerance=f"{confidence:.0%} bootstrap interval",
            )
        )
    table = slopes.copy()
    table["estimator"] = table["estimator"].map(ESTIMATOR_LABELS).fillna(table["estimator"])
    columns = [
        "estimator",
        "setting",
        "slope",
        "slope_ci_low",
        "slope_ci_high",
        "theory_slope",
        "r2",
        "n_min",
        "n_max",
        "n_reps",
    ]
    wide = errors.pivot_table(index="n", columns=["estimator", "setting"], values="error_mean")
    wide.columns = [f"{ESTIMATOR_LABELS.get(e, e)} {s}" for e, s in wide.columns]
    wide = wide.reset_index()
    cme = slopes[slopes["estimator"] == "cme"]
    cme_text = (
        " The CME (λ by generalised cross-validation) has no rate in the paper; its slopes are"
        " shown for comparison: "
        + "; ".join(
            f"{r['setting']}: {r['slope']:+.3f} [{r['slope_ci_low']:+.3f},"
            f" {r['slope_ci_high']:+.3f}]"
            for r in cme.to_dict("records")
        )
        + "."
        if not cme.empty
        else ""
    )
    intro = (
        "Error ‖E^S_n φ(X) − E^S φ(X)‖_{2,n} (RKHS norm, averaged over the law of S, against"
        f" the closed-form truth of a Gaussian kernel with γ = {settings['kernel_gamma']:g} and"
        f" X | S = s ~ N(μ(s), {settings['sd']:g}²), μ ranging over"
        f" [0, {settings['mean_scale']:g}])"
        f" against n; {settings['n_repetitions']} repetitions per n. Finite S: uniform on k"
        " values, one cell per value. Continuous S: uniform on [0, 1]^d, dyadic partition with"
        f" ℓ = ⌈{settings['continuous']['cells_scale']:g}·n^(1/(2(d+1)))⌉ cells per axis"
        " (Prop. 6's schedule), error integrated by the midpoint rule on a grid aligned with"
        " the cells. Table: `tables/oblivious_rates.csv`; figure:"
        " `figures/oblivious_rates.png`."
    )
    body = [
        "### Log-log slopes beside the theory",
        "",
        markdown_table(table[columns]),
        "",
        "theory_slope: −1/2 (Prop. 5, finite S), −1/(2(d+1)) (Prop. 6, continuous S);"
        " empty for the CME." + cme_text,
        "",
        "### Mean error against n",
        "",
        markdown_table(wide, digits=4),
    ]
    return Section(
        experiment="rates",
        title="Convergence rates of the estimators of E[φ(X)|S] (paper Props. 5 and 6)",
        verdicts=verdicts,
        intro=intro,
        body="\n".join(body),
    )


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


def projection_section(table, runs, reference, settings, *, scale):
    """Verdicts of Propositions 3 and 2 from the projection experiment.

    Parameters
    ----------
    table : pandas.DataFrame
        ``tables/projection.csv`` (:func:`krepro.experiments.projection.aggregate`).
    runs : pandas.DataFrame
        ``results/projection/projection.csv``, one row per (γ, repetition).
    reference : mapping
        ``oblivious.projection`` of ``config/paper_reference.yaml``.
    settings : mapping
        The ``projection`` config section.
    scale : str

    Returns
    -------
    Section
    """
    claims = reference["claims"]
    claim = claims["distance_concentration"]
    ok = runs[runs["status"] == "ok"]
    radius = np.array(
        [
            hoeffding_radius(int(n), float(rho), claim["delta"], range_factor=claim["range_factor"])
            for n, rho in zip(ok["n_points"], ok["rho"], strict=True)
        ]
    )
    deviation = ok["abs_deviation"].to_numpy()
    exceed = float(np.mean(deviation >= radius))
    outcome = REPRODUCED if exceed <= claim["delta"] else NOT_REPRODUCED
    verdicts = [
        claim_verdict(
            reference,
            "distance_concentration",
            outcome,
            f"Over {len(ok)} independent (γ, repetition) instances, |d_n − d| ≤"
            f" {deviation.max():.4f} (median {np.median(deviation):.4f}), against the Hoeffding"
            f" radius ε = {radius.max():.3f} at δ = {claim['delta']:g} (n ="
            f" {int(ok['n_points'].iloc[0])}, ρ = {ok['rho'].iloc[0]:g}, distances in"
            f" [0, {claim['range_factor']:g}ρ]); share of instances beyond ε: {exceed:.3f}."
            f" d is the mean distance over {settings['n_reference']} independent reference"
            " points with the same estimated conditional means. The bound holds with a wide"
            f" margin: the observed deviations are {deviation.max() / radius.max():.1%} of ε"
            " at most.",
            experiment="projection",
            paper=PAPER,
            scale=scale,
            n_repetitions=len(ok),
            paper_value=f"P(|d_n − d| ≥ ε) ≤ {claim['delta']:g}",
            measured=f"{exceed:.3f}",
            tolerance=f"ε = {radius.max():.3f}",
        )
    ]
    claim = claims["dependence_follows_distance"]
    rank = stats.spearmanr(table["d_n_mean"], table["dcor_W_mean"]).statistic
    closest = table.loc[table["d_n_mean"].idxmin()]
    farthest = table.loc[table["d_n_mean"].idxmax()]
    outcome = REPRODUCED if rank >= claim["min_rank_correlation"] else NOT_REPRODUCED
    verdicts.append(
        claim_verdict(
            reference,
            "dependence_follows_distance",
            outcome,
            f"Across γ, Spearman correlation between d_n(Z, M) and the distance correlation of"
            f" W with S: {rank:+.2f}. Closest to M at γ = {closest['gamma']:g} (d_n ="
            f" {closest['d_n_mean']:.3f}): dCor(W, S) = {closest['dcor_W_mean']:.3f}"
            f" (X: {closest['dcor_X_mean']:.3f}, Z: {closest['dcor_Z_mean']:.3f}); farthest at"
            f" γ = {farthest['gamma']:g} (d_n = {farthest['d_n_mean']:.3f}): dCor(W, S) ="
            f" {farthest['dcor_W_mean']:.3f} (X: {farthest['dcor_X_mean']:.3f}, Z:"
            f" {farthest['dcor_Z_mean']:.3f}). Z is H-independent of S but, far from M, its"
            " projection W still tracks S: the bound of Proposition 2 is only informative"
            " when d(Z + h, M) is small.",
            experiment="projection",
            paper=PAPER,
            scale=scale,
            n_repetitions=int(table["n_reps"].min()),
            measured=f"{rank:+.2f}",
            tolerance=f"Spearman ≥ {claim['min_rank_correlation']:g}",
        )
    )
    columns = {
        "gamma": "γ",
        "d_n_mean": "d_n",
        "d_reference_mean": "d (reference)",
        "max_abs_deviation": "max abs(d_n − d)",
        "mean_shift_mean": "mean abs(W − X)",
        "dcor_X_mean": "dCor(X, S)",
        "dcor_Z_mean": "dCor(Z, S)",
        "dcor_W_mean": "dCor(W, S)",
        "beta_X_mean": "e_β SVM(X)",
        "beta_Z_mean": "e_β SVM(Z)",
        "beta_W_mean": "e_β SVM(W)",
        "error_X_mean": "error SVM(X)",
        "error_Z_mean": "error SVM(Z)",
        "error_W_mean": "error SVM(W)",
        "n_reps": "reps",
    }
    partition = settings["partition"]
    intro = (
        "§7.2 data model (experiment 1, Var ε ="
        f" {settings['noise_variance']:g}), RBF kernel γ = {settings['kernel_gamma']:g},"
        f" {partition['cells_per_axis']} dyadic cells on [{partition['low']:g},"
        f" {partition['high']:g}]; {settings['n_estimation']} estimation points,"
        f" {settings['n_points']} learner points (d_n, W, dependence, SVM training),"
        f" {settings['n_test']} test points (e_β), h = 0. W by grid search on"
        f" [{partition['low']:g}, {partition['high']:g}] ({settings['n_grid']} points) and"
        f" {settings['n_refine']} pattern-search refinements (App. E.3: f(x) = k(x, x) −"
        " 2⟨Z, φ(x)⟩ is Hölder continuous). Dependence: distance correlation (RKHS distances for"
        f" Z); e_β (eq. (14), no ½) of SVM predictions of 1{{Y > median}} against S in"
        f" {settings['beta_bins']} equal bins. Table: `tables/projection.csv`; figure:"
        " `figures/oblivious_projection.png`."
    )
    independent = table.loc[table["dcor_X_mean"].idxmin()]
    note = (
        f"\n\nAt γ = {independent['gamma']:g} (the least dependent X: dCor(X, S) ="
        f" {independent['dcor_X_mean']:.3f}) Z is still at distance"
        f" {independent['d_n_mean']:.3f} from M and depends on S (dCor(Z, S) ="
        f" {independent['dcor_Z_mean']:.3f}): Z − φ(X) = E_n φ(X) − E^S_n φ(X) is, for X"
        " independent of S, the estimation error of the cell means, a different random element"
        " for each cell. Its projection W"
        f" stays close to X (mean abs(W − X) = {independent['mean_shift_mean']:.3f}) and drops"
        f" that dependence (dCor(W, S) = {independent['dcor_W_mean']:.3f})."
    )
    return Section(
        experiment="projection",
        title="Projection of the oblivious features onto the manifold (paper App. E.3, Props. 2–3)",
        verdicts=verdicts,
        intro=intro,
        body="### Means over repetitions\n\n"
        + markdown_table(table[list(columns)].rename(columns=columns))
        + note,
    )


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
