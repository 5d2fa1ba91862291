r"""Figure and report section of the ``cme`` experiment (conditional mean embeddings note).

Both read only the frames written by :func:`krepro.experiments.cme.run` (the λ table, the
claims table and the figure data of repetition 0). Verdicts are
:class:`~krepro.studies.verdicts.Verdict` records computed from the measured quantities and the
thresholds of the ``cme`` block of ``config/paper_reference.yaml``, one per claim (the
experiment has a single reading). :data:`CHECKS` lists, per claim, its check and whether it is
judged over repetitions (then the evidence rule ``min_repetitions`` applies) or is an exact
property of the estimator on any sample (``n_repetitions = None``).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from krepro.studies.figures import save_figure
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    Section,
    claim_verdict,
)

__all__ = ["CHECKS", "cme_section", "cme_verdicts", "plot_cme", "selected_lambda"]

CLASS_COLORS = ("#1b9e77", "#d95f02", "#7570b3")
KERNEL_LABELS = {"gaussian": "Gaussian", "linear": "linear", "delta": "delta"}


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


# -------------------------------------------------------------------------------------------
# verdicts


def _values(claims, claim):
    part = claims[claims["claim"] == claim]
    if part.empty:
        raise KeyError(f"The claims table has no rows for {claim!r}.")
    return dict(zip(part["quantity"], part["value"], strict=True)), dict(
        zip(part["quantity"], part["sd"], strict=True)
    )


def _at_most(value, sd, threshold, n_reps, z):
    """'pass' (≤ threshold), 'noise' (above it by less than z standard errors), 'fail'."""
    if value <= threshold:
        return "pass"
    se = sd / np.sqrt(n_reps) if np.isfinite(sd) else 0.0
    return "noise" if value - z * se <= threshold else "fail"


def _combine(outcomes):
    """Verdict from sub-checks: all pass → reproduced; a failure → partly / not reproduced;
    otherwise (some within noise) → inconclusive."""
    if all(o == "pass" for o in outcomes):
        return REPRODUCED
    if all(o == "fail" for o in outcomes):
        return NOT_REPRODUCED
    if "fail" in outcomes:
        return PARTLY
    return INCONCLUSIVE


def _setup(claims):
    """The run's settings stored in the claims table (rows with claim == "setup")."""
    values, _ = _values(claims, "setup")
    return {k: (int(v) if float(v).is_integer() else v) for k, v in values.items()}


def _check_operator(claims, claim):
    v, _ = _values(claims, "operator_form")
    tol = claim["max_abs_difference"]
    identity = v["operator_max_abs_difference"] <= tol and (
        v["kernel_ridge_n_lambda_max_abs_difference"] <= tol
    )
    factor = v["kernel_ridge_lambda_max_abs_difference"] > claim["min_unscaled_difference"]
    detail = (
        f"Explicit degree-2 feature maps, λ = {v['lambda']:g}, n = {_setup(claims)['n_train']}:"
        f" max |Ĉ_YX(Ĉ_XX + λI)⁻¹φ(x) − Σα_i(x)ψ(y_i)| = {v['operator_max_abs_difference']:.1e};"
        f" KernelRidge(alpha = nλ) differs by {v['kernel_ridge_n_lambda_max_abs_difference']:.1e},"
        f" KernelRidge(alpha = λ) by {v['kernel_ridge_lambda_max_abs_difference']:.3g} (predictions"
        f" up to {v['prediction_scale']:.3g}): losing the factor n changes the estimator."
    )
    measured = (
        f"max difference {v['operator_max_abs_difference']:.1e}; without n:"
        f" {v['kernel_ridge_lambda_max_abs_difference']:.3g}"
    )
    tolerance = f"≤ {tol:g}; without n > {claim['min_unscaled_difference']:g}"
    if identity and factor:
        return REPRODUCED, detail, measured, tolerance
    return (PARTLY if identity else NOT_REPRODUCED), detail, measured, tolerance


def _check_decomposition(claims, claim):
    v, _ = _values(claims, "squared_loss_target")
    z = claim["z"]
    per_kernel = {k: v[f"max_abs_decomposition_z_{k}"] for k in KERNEL_LABELS}
    failed = [KERNEL_LABELS[k] for k, value in per_kernel.items() if value > z]
    detail = (
        "Held-out embedding loss − irreducible loss − ‖μ̂_x − μ_x‖² (the cross term of the proof)"
        " has mean zero at every λ: largest |z| "
        + ", ".join(f"{KERNEL_LABELS[k]} {value:.2f}" for k, value in per_kernel.items())
        + f" (criterion |z| ≤ {z:g}). The λ of least held-out Gaussian embedding loss is"
        f" {v['lambda_selected_gaussian']:g}; the λ of least true MMD error is"
        f" {v['lambda_min_mmd_error']:g}."
    )
    measured = f"largest |z| {max(per_kernel.values()):.2f}"
    tolerance = f"|z| ≤ {z:g}"
    if not failed:
        return REPRODUCED, detail, measured, tolerance
    verdict = NOT_REPRODUCED if len(failed) == len(per_kernel) else PARTLY
    return verdict, detail + f" Fails for: {', '.join(failed)}.", measured, tolerance


def _check_linear(claims, claim, n_reps):
    v, sd = _values(claims, "linear_mean_only")
    x1, x2 = _setup(claims)["contrast_x1"], _setup(claims)["contrast_x2"]
    z, tol = claim.get("z", 2.0), claim["max_relative_error"]
    scale = v["marginal_sd_y"]
    outcomes = [
        _at_most(v["rms_mean_error"] / scale, sd["rms_mean_error"] / scale, tol, n_reps, z),
        _at_most(v["linear_contrast"] / scale, sd["linear_contrast"] / scale, tol, n_reps, z),
        "pass"
        if v["conditional_sd_high"] / v["conditional_sd_low"] >= claim["min_sd_ratio"]
        else "fail",
    ]
    detail = (
        f"At the λ of least held-out squared error ({v['lambda']:g}): RMS of the predicted mean"
        f" (true mean 0) {v['rms_mean_error']:.3f}, and |m̂({x1:g}) − m̂({x2:g})| = "
        f"{v['linear_contrast']:.3f} — both against the marginal sd of Y {scale:.2f}"
        f" (criterion ≤ {tol:g}·sd) — while the true conditional sd grows from"
        f" {v['conditional_sd_low']:.2f} to {v['conditional_sd_high']:.2f} and the law turns"
        " bimodal: the linear-kernel embeddings of the two laws coincide."
    )
    measured = (
        f"RMS mean error {v['rms_mean_error'] / scale:.3f} sd, contrast"
        f" {v['linear_contrast'] / scale:.3f} sd"
    )
    return _combine(outcomes), detail, measured, f"≤ {tol:g} sd"


def _check_gaussian(claims, claim, n_reps):
    v, sd = _values(claims, "gaussian_separates")
    x1, x2 = _setup(claims)["contrast_x1"], _setup(claims)["contrast_x2"]
    z = claim.get("z", 2.0)
    relative = abs(v["contrast_predicted"] - v["contrast_true"]) / v["contrast_true"]
    relative_sd = sd["contrast_predicted"] / v["contrast_true"]
    outcomes = [
        _at_most(v["mmd_error_ratio"], sd["mmd_error_ratio"], claim["max_error_ratio"], n_reps, z),
        _at_most(relative, relative_sd, claim["contrast_tolerance_rel"], n_reps, z),
    ]
    detail = (
        f"At λ = {v['lambda']:g}: RMS MMD between predicted and true embeddings"
        f" {v['rms_mmd_error']:.3f} ± {sd['rms_mmd_error']:.3f} (sd), {v['mmd_error_ratio']:.2f} of"
        f" the RMS MMD between true laws at different x (criterion ≤ {claim['max_error_ratio']:g});"
        f" MMD between the predicted embeddings at x = {x1:g} and {x2:g}"
        f" {v['contrast_predicted']:.3f} vs"
        f" true {v['contrast_true']:.3f} ({relative:+.1%}; criterion"
        f" ≤ {claim['contrast_tolerance_rel']:.0%}), for laws with the same mean."
    )
    measured = f"error ratio {v['mmd_error_ratio']:.2f}; contrast {relative:+.1%}"
    tolerance = (
        f"ratio ≤ {claim['max_error_ratio']:g}; contrast ±{claim['contrast_tolerance_rel']:.0%}"
    )
    return _combine(outcomes), detail, measured, tolerance


def _check_delta(claims, claim, n_reps):
    v, sd = _values(claims, "delta_frequencies")
    outcome = _at_most(
        v["mean_abs_error"],
        sd["mean_abs_error"],
        claim["max_mean_abs_error"],
        n_reps,
        claim.get("z", 2.0),
    )
    detail = (
        f"At λ = {v['lambda']:g} (least held-out Brier score): mean |score_c(x) − p_c(x)| ="
        f" {v['mean_abs_error']:.3f} ± {sd['mean_abs_error']:.3f} (sd) over x ∈ [0, 1] and the"
        f" three classes (criterion ≤ {claim['max_mean_abs_error']:g}); the smallest score is"
        f" {v['min_category_score']:+.3f}, so the scores estimate the frequencies without being"
        " probabilities."
    )
    measured = f"mean abs error {v['mean_abs_error']:.3f}"
    return _combine([outcome]), detail, measured, f"≤ {claim['max_mean_abs_error']:g}"


def _check_weights(claims, claim):
    v, _ = _values(claims, "weights_not_probabilities")
    shrinks = v["deviation_largest"] >= claim["min_deviation"]
    limit = v["deviation_smallest"] <= claim["max_deviation_small_lambda"]
    negative = v["max_share_negative_weights"] >= claim["min_share_negative"]
    negative_score = v["min_category_score_selected"] < 0.0
    detail = (
        f"mean |Σα(x) − 1| over x ∈ [0, 1] is {v['deviation_smallest']:.1e} at λ ="
        f" {v['lambda_smallest']:g} (criterion ≤ {claim['max_deviation_small_lambda']:g}),"
        f" {v['deviation_selected']:.3f} at the λ selected for the delta kernel and"
        f" {v['deviation_largest']:.3f} at"
        f" λ = {v['lambda_largest']:g} (criterion ≥ {claim['min_deviation']:g}); up to"
        f" {v['max_share_negative_weights']:.0%} of the weights are negative (criterion ≥"
        f" {claim['min_share_negative']:.0%}: {v['share_negative_weights_selected']:.0%} at the"
        f" λ selected for the delta kernel), and the smallest category score there is"
        f" {v['min_category_score_selected']:+.3f}."
    )
    outcomes = ["pass" if ok else "fail" for ok in (shrinks, limit, negative, negative_score)]
    measured = (
        f"|Σα − 1| {v['deviation_smallest']:.1e} … {v['deviation_largest']:.3f}; up to"
        f" {v['max_share_negative_weights']:.0%} negative"
    )
    tolerance = (
        f"≤ {claim['max_deviation_small_lambda']:g} … ≥ {claim['min_deviation']:g};"
        f" ≥ {claim['min_share_negative']:.0%} negative"
    )
    return _combine(outcomes), detail, measured, tolerance


# claim id -> (check, judged over repetitions). The weights' sum and sign and the operator
# identity are properties of the estimator on any sample (exact checks); the other claims
# compare estimates with the truth within their noise over repetitions.
CHECKS = {
    "operator_form": (lambda claims, claim, n_reps: _check_operator(claims, claim), False),
    "squared_loss_target": (
        lambda claims, claim, n_reps: _check_decomposition(claims, claim),
        True,
    ),
    "linear_mean_only": (_check_linear, True),
    "gaussian_separates": (_check_gaussian, True),
    "delta_frequencies": (_check_delta, True),
    "weights_not_probabilities": (
        lambda claims, claim, n_reps: _check_weights(claims, claim),
        False,
    ),
}


def cme_verdicts(claims, reference, scale):
    """Verdict records of the CME note's claims, one per claim of :data:`CHECKS`.

    Parameters
    ----------
    claims : pandas.DataFrame
        The claims table of :func:`krepro.experiments.cme.run` (claim, quantity, value, sd).
    reference : dict
        The ``cme`` block of ``config/paper_reference.yaml``.
    scale : str
        The config's scale name.

    Returns
    -------
    list of Verdict
    """
    n_reps = int(_setup(claims)["n_repetitions"])
    records = []
    for claim_id, (check, statistical) in CHECKS.items():
        verdict, detail, measured, tolerance = check(claims, reference["claims"][claim_id], n_reps)
        records.append(
            claim_verdict(
                reference,
                claim_id,
                verdict,
                detail,
                experiment="cme",
                paper="cme",
                scale=scale,
                n_repetitions=n_reps if statistical else None,
                measured=measured,
                tolerance=tolerance,
            )
        )
    return records


def cme_section(table, claims, reference, *, scale):
    """The CME experiment's report section: one verdict per claim of the note.

    Parameters
    ----------
    table : pandas.DataFrame
        The λ table (``tables/cme.csv``).
    claims : pandas.DataFrame
        The claims table of :func:`krepro.experiments.cme.run` (claim, quantity, value, sd).
    reference : dict
        The ``cme`` block of ``config/paper_reference.yaml``: ``claims.<key>`` with ``text``,
        ``source`` and the thresholds used by the checks; ``min_repetitions``.
    scale : str
        The config's scale name.

    Returns
    -------
    Section
    """
    setup = _setup(claims)
    n_reps = int(setup["n_repetitions"])
    intro = (
        f"X ~ U[0, 1]; Y | x ~ ½N(−2x, s²) + ½N(2x, s²) with s = {setup['noise_sd']:g} (mean 0"
        " for every x, spread and shape change); C | x ~ Binomial(2, x). Estimator"
        " α(x) = (K + nλI)⁻¹k_x with an RBF input kernel (γ ="
        f" {setup['input_gamma']:g}), n = {setup['n_train']} training points,"
        f" {n_reps} repetitions; output kernels Gaussian (γ_l = {setup['output_gamma']:g}),"
        " linear and delta. Errors against the closed-form truth on a grid of"
        f" {setup['n_query']} points of [0, 1]; λ chosen per output kernel by the held-out"
        f" embedding loss on {setup['n_heldout']} points. Figure: `figures/cme.png`;"
        " table: `tables/cme.csv`."
    )
    columns = {
        "lambda": "λ",
        "mean_weight_sum": "mean Σα",
        "mean_abs_weight_sum_minus_one": "mean abs(Σα − 1)",
        "share_negative_weights": "share α < 0",
        "negative_weight_mass": "negative mass",
        "mmd_error": "MMD error",
        "category_abs_error": "category error",
        "min_category_score": "min score",
        "mean_error_linear": "linear mean error",
    }
    shown = table[list(columns)].rename(columns=columns)
    selected = [
        ", ".join(KERNEL_LABELS[k] for k in KERNEL_LABELS if bool(row[f"selected_{k}"]))
        for _, row in table.iterrows()
    ]
    shown = shown.assign(**{"selected for": [s or "" for s in selected]})
    body = "\n".join(
        [
            f"### Weights and errors against λ (means over {n_reps} repetitions)",
            "",
            markdown_table(pd.DataFrame(shown)),
        ]
    )
    return Section(
        experiment="cme",
        title="Conditional mean embeddings (note: conditional distribution regression)",
        intro=intro,
        verdicts=cme_verdicts(claims, reference, scale),
        body=body,
    )
