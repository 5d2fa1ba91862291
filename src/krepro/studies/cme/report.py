r"""Verdicts and report section of the ``cme`` study (conditional mean embeddings note); the
summary job.

Both read only the frames written by :func:`krepro.studies.cme.run.run` (the λ table and the
claims table). Verdicts are :class:`~krepro.studies.verdicts.Verdict` records computed from the
measured quantities and the thresholds of the ``cme`` block of ``config/paper_reference.yaml``,
one per claim (the experiment has a single reading). :data:`CHECKS` lists, per claim, its check
and whether it is judged over repetitions (then the evidence rule ``min_repetitions`` applies)
or is an exact property of the estimator on any sample (``n_repetitions = None``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.studies.cme.figures import KERNEL_LABELS, plot_cme
from krepro.studies.render import write_section
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    Section,
    claim_verdict,
    paper_reference,
)

__all__ = ["CHECKS", "cme_section", "cme_verdicts", "summary"]


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
        The claims table of :func:`krepro.studies.cme.run.run` (claim, quantity, value, sd).
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
        The claims table of :func:`krepro.studies.cme.run.run` (claim, quantity, value, sd).
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


def summary(job, log):
    """Job ``cme_summary``: the figure (``figures/cme.png``) and the verdicts of the CME
    note's claims (``report/cme.json``, ``.md``)."""
    inp = job.input
    frames = [pd.read_csv(path) for path in (inp.table, inp.sample, inp.query, inp.curves)]
    plot_cme(*frames, pd.read_csv(inp.weights), job.output.figure)

    reference = paper_reference(inp.reference, "cme")
    section = cme_section(
        pd.read_csv(inp.table), pd.read_csv(inp.claims), reference, scale=job.params.scale
    )
    write_section(section, job.output.json, job.output.md)
