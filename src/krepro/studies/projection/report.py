"""Paper vs reproduced for the projection onto M = φ[X] (App. E.3, Props. 2, 3): the report
section and the summary job.

The paper proves a concentration bound for the distance of the oblivious features to the
manifold M = φ[X] without measuring it; this section puts the measurements beside the
theory. Thresholds, tests and margins come from ``config/paper_reference.yaml``
(``oblivious.projection``).

``distance_concentration`` is Hoeffding's inequality for the mean of n i.i.d. bounded
distances: an identity the measurements cannot contradict (the check guards the pipeline).
``dependence_follows_distance`` is tested within γ: across γ the distance d_n and the
dependence of W on S both follow γ (X itself depends on S less as γ grows), so their
correlation across γ says nothing about the claim. Within one γ the draws differ only by
chance, in particular by the estimation error of the cell means, which moves Z away from M;
the claim predicts that the draws whose Z lies farther from M have a W more dependent on S.
The effect is the pooled within-γ correlation of d_n and dCor(W, S): each (γ, repetition)
contributes the product of its within-γ standardised values (times n_γ / (n_γ − 1), so that
the mean over a γ is that γ's Pearson correlation), and the interval is the t-interval of
these per-repetition products (instances are independent draws; the within-γ centring
couples the products of one γ only through n_γ estimated means and sds;
:func:`krepro.stats.within_group_products`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.fairness.projection import hoeffding_radius
from krepro.records import read_records
from krepro.stats import within_group_products
from krepro.studies.claims import judge_claim
from krepro.studies.judging import ClaimSet, Outcome, judge_readings
from krepro.studies.projection.figures import plot_projection
from krepro.studies.projection.tables import aggregate, means_table, tidy
from krepro.studies.render import read_tables, write_outputs, write_section
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import NOT_REPRODUCED, REPRODUCED, Section, judgement_detail

__all__ = ["CHECKS", "projection_section", "projection_verdicts", "summary"]


def _check_distance_concentration(context, claim, seed):
    """Hoeffding's bound against the deviations of every instance (an identity)."""
    _, ok, settings = context
    radius = np.array(
        [
            hoeffding_radius(int(n), float(rho), claim["delta"], range_factor=claim["range_factor"])
            for n, rho in zip(ok["n_points"], ok["rho"], strict=True)
        ]
    )
    deviation = ok["abs_deviation"].to_numpy()
    exceed = float(np.mean(deviation >= radius))
    return Outcome(
        "Identity: Hoeffding's inequality for the mean of n i.i.d. bounded distances,"
        " which no measurement can contradict; the check guards the pipeline. Over"
        f" {len(ok)} independent (γ, repetition) instances, |d_n − d| ≤"
        f" {deviation.max():.4f} (median {np.median(deviation):.4f}), against the Hoeffding"
        f" radius ε = {radius.max():.3f} at δ = {claim['delta']:g} (n ="
        f" {int(ok['n_points'].iloc[0])}, ρ = {ok['rho'].iloc[0]:g}, distances in"
        f" [0, {claim['range_factor']:g}ρ]); share of instances beyond ε: {exceed:.3f}."
        f" d is the mean distance over {settings['n_reference']} independent reference"
        " points with the same estimated conditional means. The bound holds with a wide"
        f" margin: the observed deviations are {deviation.max() / radius.max():.1%} of ε"
        " at most.",
        verdict=REPRODUCED if exceed <= claim["delta"] else NOT_REPRODUCED,
        n_repetitions=len(ok),
        paper_value=f"P(|d_n − d| ≥ ε) ≤ {claim['delta']:g}",
        measured=f"{exceed:.3f}",
        tolerance=f"ε = {radius.max():.3f}",
    )


def _check_dependence_follows_distance(context, claim, seed):
    """The pooled within-γ correlation of d_n and dCor(W, S), against 0."""
    table, ok, _ = context
    products, per_gamma = within_group_products(ok, "gamma", "d_n", "dcor_W")
    across = float(pd.Series(table["d_n_mean"]).rank().corr(pd.Series(table["dcor_W_mean"]).rank()))
    closest = table.loc[table["d_n_mean"].idxmin()]
    farthest = table.loc[table["d_n_mean"].idxmax()]
    across_gamma = (
        f" Across γ the means move together (Spearman {across:+.2f}), but both follow γ:"
        f" closest to M at γ = {closest['gamma']:g} (d_n = {closest['d_n_mean']:.3f}, dCor(W,"
        f" S) = {closest['dcor_W_mean']:.3f}, X: {closest['dcor_X_mean']:.3f}), farthest at"
        f" γ = {farthest['gamma']:g} (d_n = {farthest['d_n_mean']:.3f}, dCor(W, S) ="
        f" {farthest['dcor_W_mean']:.3f}, X: {farthest['dcor_X_mean']:.3f})."
    )
    common = {
        "n_repetitions": int(products.size),
        "measured": f"within-γ correlation {products.mean():+.2f}" if products.size else "",
        "tolerance": f"> 0 (smallest of interest {claim['margin']:g})",
    }
    if products.size < 2:
        return Outcome.inconclusive(
            "Fewer than two draws per γ: no within-γ association." + across_gamma, **common
        )
    result, stability = judge_claim(claim, products, seed=seed)
    listing = ", ".join(f"γ = {g:g}: {r:+.2f}" for g, r in per_gamma.items())
    return Outcome(
        "Within γ (γ held fixed), pooled correlation of d_n(Z, M) and the distance"
        " correlation of W with S over the draws: the claim predicts a positive one."
        f" Per γ: {listing}. {judgement_detail(result.judgement)}" + across_gamma,
        result,
        stability,
        **common,
    )


#: Claim id → check, in the order of the records.
CHECKS = {
    "distance_concentration": _check_distance_concentration,
    "dependence_follows_distance": _check_dependence_follows_distance,
}


def projection_verdicts(table, runs, reference, settings, *, readings, scale):
    """Verdicts of Propositions 3 and 2 from the projection experiment.

    Parameters
    ----------
    table : pandas.DataFrame
        ``tables/projection.csv`` (:func:`krepro.studies.projection.tables.aggregate`).
    runs : pandas.DataFrame
        ``results/projection/projection.csv``, one row per (γ, repetition); the checks read
        the instances whose status is ``ok``.
    reference : mapping
        ``oblivious.projection`` of ``config/paper_reference.yaml``.
    settings : mapping
        The ``projection`` config section.
    readings : list of Reading
        :func:`krepro.studies.projection.readings.readings`.
    scale : str

    Returns
    -------
    list of Verdict
        Per reading, the claims in the order of :data:`CHECKS`; each rests on the instances
        it reads (its ``n_repetitions``), its bootstrap seeded by the experiment and the claim.
    """

    def context(reading):
        rows = reading.select(runs)
        return table, rows[rows["status"] == "ok"], settings

    claims = ClaimSet(
        "projection", "oblivious", reference, scale, seed_names=lambda c, _: ("projection", c)
    )
    return judge_readings(claims, CHECKS, readings, context)


def projection_section(table, runs, reference, settings, *, readings, scale):
    """The projection section: the verdicts of :func:`projection_verdicts` (same parameters),
    the experiment's settings and the per-γ means."""
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
        verdicts=projection_verdicts(
            table, runs, reference, settings, readings=readings, scale=scale
        ),
        intro=intro,
        body="### Means over repetitions\n\n" + markdown_table(means_table(table)) + note,
    )


def summary(job, log):
    """Job ``projection_summary``: tidy run table, per-γ means, the figure (d_n, dependence and
    e_β of X, Z and W against γ) and the verdicts."""
    out, params = job.output, job.params
    runs = tidy(read_records(job.input.runs))
    write_outputs(out, runs=runs, table=aggregate(runs))
    table, runs = read_tables(out, "table", "runs")
    plot_projection(table, out.figure)
    section = projection_section(
        table, runs, params.reference, params.settings, readings=params.readings, scale=params.scale
    )
    write_section(section, out.json, out.md)
