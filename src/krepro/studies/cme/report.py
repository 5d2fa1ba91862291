r"""Verdicts and report section of the ``cme`` study (conditional mean embeddings note); the summary
job.

Both read only the frames written by :func:`krepro.studies.cme.run.run_experiment` (the λ table
and the claims table). Verdicts (:func:`cme_verdicts`) are :class:`~krepro.studies.verdicts.Verdict`
records computed from the measured quantities and the thresholds of the ``cme`` block of
``config/paper_reference.yaml``, one per claim (the experiment has a single reading). Four
claims are identities (they hold by construction or by a theorem; their checks are exact or
closed-form, with a tolerance, and read no repetitions); ``gaussian_separates`` and
``delta_frequencies`` are tested by their logical form on the per-repetition values of the run
table (``results/cme/runs.csv``) at the λ the held-out loss selects.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from krepro.studies.claims import judge_claim
from krepro.studies.cme.figures import KERNEL_LABELS, plot_cme
from krepro.studies.judging import ClaimSet, Outcome, judge_readings
from krepro.studies.render import read_tables, write_section
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import NOT_REPRODUCED, REPRODUCED, Section, judgement_detail

__all__ = ["CHECKS", "cme_section", "cme_verdicts", "summary"]


@dataclasses.dataclass(frozen=True)
class _Results:
    """What the checks read: the claims table and the per-repetition table of the run."""

    claims: pd.DataFrame
    runs: pd.DataFrame


def _values(claims, claim):
    part = claims[claims["claim"] == claim]
    if part.empty:
        raise KeyError(f"The claims table has no rows for {claim!r}.")
    return dict(zip(part["quantity"], part["value"], strict=True)), dict(
        zip(part["quantity"], part["sd"], strict=True)
    )


def _exact(ok, detail, measured, tolerance):
    """The outcome of an identity's exact or closed-form check."""
    verdict = REPRODUCED if ok else NOT_REPRODUCED
    return Outcome(detail, verdict=verdict, measured=measured, tolerance=tolerance)


def _tested(claim, values, seed):
    """The judgement of a claim tested on its per-repetition ``values``, its stability, and the
    outcome's fields that follow from the claim and the values."""
    result, stability = judge_claim(claim, values, seed=seed)
    fields = {"tolerance": f"{claim['test']} ±{claim['margin']:g}", "n_repetitions": values.size}
    return result, stability, fields


def _setup(claims):
    """The run's settings stored in the claims table (rows with claim == "setup")."""
    values, _ = _values(claims, "setup")
    return {k: (int(v) if float(v).is_integer() else v) for k, v in values.items()}


def _check_operator(context, claim, seed):
    claims = context.claims
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
        " Identity: the push-through identity (ΦᵀΦ/n + λI)⁻¹Φᵀ = Φᵀ(ΦΦᵀ/n + λI)⁻¹ makes both"
        " sides equal on any sample; the check guards the implementation (tolerance"
        f" {tol:g})."
    )
    measured = (
        f"max difference {v['operator_max_abs_difference']:.1e}; without n:"
        f" {v['kernel_ridge_lambda_max_abs_difference']:.3g}"
    )
    tolerance = f"≤ {tol:g}; without n > {claim['min_unscaled_difference']:g}"
    return _exact(identity and factor, detail, measured, tolerance)


def _check_decomposition(context, claim, seed):
    v, _ = _values(context.claims, "squared_loss_target")
    z = claim["z"]
    per_kernel = {k: v[f"max_abs_decomposition_z_{k}"] for k in KERNEL_LABELS}
    failed = [KERNEL_LABELS[k] for k, value in per_kernel.items() if value > z]
    detail = (
        "Held-out embedding loss − irreducible loss − ‖μ̂_x − μ_x‖² (the cross term of the proof)"
        " has mean zero at every λ: largest |z| "
        + ", ".join(f"{KERNEL_LABELS[k]} {value:.2f}" for k, value in per_kernel.items())
        + f" (criterion |z| ≤ {z:g}). The λ of least held-out Gaussian embedding loss is"
        f" {v['lambda_selected_gaussian']:g}; the λ of least true MMD error is"
        f" {v['lambda_min_mmd_error']:g}. Identity: the decomposition is a theorem (the cross"
        " term has conditional mean 0 by the tower property); the Monte Carlo check guards"
        " the closed-form truths and the losses of the implementation."
    )
    if failed:
        detail += f" Fails for: {', '.join(failed)}."
    return _exact(not failed, detail, f"largest |z| {max(per_kernel.values()):.2f}", f"|z| ≤ {z:g}")


def _check_linear(context, claim, seed):
    claims = context.claims
    v, _ = _values(claims, "linear_mean_only")
    x1, x2 = _setup(claims)["contrast_x1"], _setup(claims)["contrast_x2"]
    scale = v["marginal_sd_y"]
    ratio = v["conditional_sd_high"] / v["conditional_sd_low"]
    detail = (
        "Identity: with l(y, y') = yy' the feature is ψ(y) = y, so the embedding is E[Y | x] by"
        " definition, and the law has mean 0 at every x by construction (a symmetric"
        " mixture); the closed-form check is that the two laws compared really differ: the"
        f" true conditional sd grows from {v['conditional_sd_low']:.2f} at x = {x1:g} to"
        f" {v['conditional_sd_high']:.2f} at x = {x2:g} (ratio {ratio:.2f}, criterion ≥"
        f" {claim['min_sd_ratio']:g}) and the law turns bimodal. The estimate agrees: at the λ"
        f" of least held-out squared error ({v['lambda']:g}) the RMS predicted mean is"
        f" {v['rms_mean_error'] / scale:.3f} and |m̂({x1:g}) − m̂({x2:g})| ="
        f" {v['linear_contrast'] / scale:.3f} marginal sd of Y."
    )
    tolerance = f"≥ {claim['min_sd_ratio']:g}"
    return _exact(ratio >= claim["min_sd_ratio"], detail, f"sd ratio {ratio:.2f}", tolerance)


def _at_selected(runs, lam, column):
    """Per-repetition values of ``column`` at the λ row ``lam`` of the run table."""
    rows = runs[np.isclose(runs["lambda"], lam)].sort_values("repetition")
    if rows.empty:
        raise KeyError(f"The run table has no rows at λ = {lam:g}.")
    return rows[column].to_numpy(dtype=float)


def _check_gaussian(context, claim, seed):
    claims = context.claims
    v, sd = _values(claims, "gaussian_separates")
    x1, x2 = _setup(claims)["contrast_x1"], _setup(claims)["contrast_x2"]
    predicted = _at_selected(context.runs, v["lambda"], "contrast_mmd_predicted")
    relative = predicted / v["contrast_true"] - 1
    result, stability, fields = _tested(claim, relative, seed)
    detail = (
        f"At the λ of least held-out Gaussian embedding loss ({v['lambda']:g}): MMD between the"
        f" predicted embeddings at x = {x1:g} and {x2:g}, laws with the same mean,"
        f" {v['contrast_predicted']:.3f} vs the true {v['contrast_true']:.3f}; effect ="
        " predicted / true − 1 per repetition (equivalence: the predicted embeddings separate"
        " the two laws by their true distance, within the margin). RMS MMD between predicted"
        f" and true embeddings {v['rms_mmd_error']:.3f} ± {sd['rms_mmd_error']:.3f} (sd),"
        f" {v['mmd_error_ratio']:.2f} of the RMS MMD between true laws at different x."
        f" {judgement_detail(result.judgement)}"
    )
    return Outcome(
        detail, result, stability, measured=f"contrast {np.mean(relative):+.1%}", **fields
    )


def _check_delta(context, claim, seed):
    v, sd = _values(context.claims, "delta_frequencies")
    errors = _at_selected(context.runs, v["lambda"], "category_abs_error")
    result, stability, fields = _tested(claim, -errors, seed)
    detail = (
        f"At λ = {v['lambda']:g} (least held-out Brier score): mean |score_c(x) − p_c(x)| ="
        f" {v['mean_abs_error']:.3f} ± {sd['mean_abs_error']:.3f} (sd) over x ∈ [0, 1] and the"
        " three classes; effect = −error per repetition (non-inferiority: the estimated"
        " scores are no worse than the true frequencies by more than the margin). The smallest"
        f" score is {v['min_category_score']:+.3f}: the scores estimate the frequencies without"
        f" being probabilities. {judgement_detail(result.judgement)}"
    )
    measured = f"mean abs error {np.mean(errors):.3f}"
    return Outcome(detail, result, stability, measured=measured, **fields)


def _check_weights(context, claim, seed):
    v, _ = _values(context.claims, "weights_not_probabilities")
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
        f" {v['min_category_score_selected']:+.3f}. Identity: α(x) = (K + nλI)⁻¹k_x on this"
        " sample; Σα → 0 as λ → ∞ (shrinkage), Σα → the interpolant of 1 as λ → 0, and"
        " negative entries of the inverse give negative weights: the checks exhibit this"
        " exactly on the computed weights."
    )
    ok = shrinks and limit and negative and negative_score
    measured = (
        f"|Σα − 1| {v['deviation_smallest']:.1e} … {v['deviation_largest']:.3f}; up to"
        f" {v['max_share_negative_weights']:.0%} negative"
    )
    tolerance = (
        f"≤ {claim['max_deviation_small_lambda']:g} … ≥ {claim['min_deviation']:g};"
        f" ≥ {claim['min_share_negative']:.0%} negative"
    )
    return _exact(ok, detail, measured, tolerance)


# Claim id -> check, in the records' order. Identities return a stated verdict from an exact or
# closed-form check; tested claims their judgement on per-repetition values.
CHECKS = {
    "operator_form": _check_operator,
    "squared_loss_target": _check_decomposition,
    "linear_mean_only": _check_linear,
    "gaussian_separates": _check_gaussian,
    "delta_frequencies": _check_delta,
    "weights_not_probabilities": _check_weights,
}


def cme_verdicts(claims, runs, reference, readings, scale):
    """Verdict records of the CME note's claims, one per claim of :data:`CHECKS`.

    Parameters
    ----------
    claims : pandas.DataFrame
        The claims table of :func:`krepro.studies.cme.run.run_experiment` (claim, quantity,
        value, sd).
    runs : pandas.DataFrame
        The per-repetition table (``results/cme/runs.csv``: one row per λ and repetition).
    reference : dict
        The ``cme`` block of ``config/paper_reference.yaml``: ``claims.<key>`` with ``text``,
        ``source``, ``kind`` and the tolerances of the identities' checks or the test of a
        tested claim.
    readings : list of Reading
        The study's readings (one, ``primary``: ``STUDY.readings_of``).
    scale : str
        The config's scale name.

    Returns
    -------
    list of Verdict
    """
    claim_set = ClaimSet("cme", "cme", reference, scale)
    return judge_readings(claim_set, CHECKS, readings, lambda reading: _Results(claims, runs))


def cme_section(table, claims, runs, reference, readings, *, scale):
    """The CME experiment's report section: one verdict per claim of the note
    (:func:`cme_verdicts`, same parameters) and ``table``, the λ table (``tables/cme.csv``)."""
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
        verdicts=cme_verdicts(claims, runs, reference, readings, scale),
        body=body,
    )


def summary(job, log):
    """Job ``cme_summary``: the figure (``figures/cme.png``) and the verdicts of the CME
    note's claims (``report/cme.json``, ``.md``)."""
    out, params = job.output, job.params
    names = ("table", "sample", "query", "curves", "weights", "claims", "runs")
    table, *figure_data, claims, runs = read_tables(job.input, *names)
    plot_cme(table, *figure_data, out.figure)
    section = cme_section(
        table, claims, runs, params.reference, params.readings, scale=params.scale
    )
    write_section(section, out.json, out.md)
