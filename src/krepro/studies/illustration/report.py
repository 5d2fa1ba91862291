"""Paper vs reproduced for the illustration (§5, Fig. 2): the report section and the summary job.

The paper draws one sample per setting; the sample job draws ``n_repetitions`` independent
ones (the figure shows the first), and the claims about the dependence on S are judged by
their logical form over these repetitions (:mod:`krepro.studies.claims`). The dependence
measure is the distance correlation's excess over its permutation level (the mean of the
permuted statistics: what the V-statistic shows for independent samples of this size), so
that "no dependence" reads 0; the effect of a repetition is the ratio of the excess of
⟨h, Z⟩ to that of h(X) on the same draw, as the claims compare the two. Thresholds, tests and
margins come from ``config/paper_reference.yaml`` (``oblivious.illustration``).
"""

from __future__ import annotations

import types

import numpy as np
import pandas as pd

from krepro.studies.claims import judge_claim, member_word
from krepro.studies.families import deciding
from krepro.studies.illustration.figures import plot_illustration
from krepro.studies.illustration.tables import shown
from krepro.studies.judging import ClaimSet, Outcome, judge_readings
from krepro.studies.render import write_section
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import NOT_REPRODUCED, REPRODUCED, Section, judgement_detail

__all__ = ["dependence_ratios", "illustration_section", "illustration_verdicts", "summary"]


def dependence_ratios(dependence):
    """Per setting, per repetition: excess dCor of ⟨h, Z⟩ over that of h(X), same draw.

    Parameters
    ----------
    dependence : pandas.DataFrame
        ``results/illustration/dependence.csv``
        (:func:`krepro.studies.illustration.run.dependence_summary`).

    Returns
    -------
    dict of str to numpy.ndarray
        In the order of the settings, repetitions sorted.
    """
    wide = dependence.pivot_table(
        index=["setting", "repetition"], columns="features", values="dcor_excess"
    )
    ratio = wide["oblivious"] / wide["raw"]
    settings = list(dict.fromkeys(dependence["setting"]))
    return {s: ratio.xs(s, level="setting").sort_index().to_numpy() for s in settings}


def _check_uncorrelated(ctx, claim, seed):
    """The identity's check in every repetition: |corr| and the η² ratio within bounds."""
    wide = ctx.dependence.pivot_table(
        index=["setting", "repetition"],
        columns="features",
        values=["corr_with_s", "variance_explained_by_s"],
    )
    corr = wide[("corr_with_s", "oblivious")].abs()
    eta2 = wide[("variance_explained_by_s", "oblivious")] / wide[("variance_explained_by_s", "raw")]
    ok = bool((corr <= claim["max_abs_correlation"]).all())
    ok &= bool((eta2 <= claim["max_eta2_ratio"]).all())
    text = "; ".join(
        f"{setting}: corr with S"
        f" {wide[('corr_with_s', 'raw')].xs(setting, level='setting').mean():+.3f} → max"
        f" |corr| {corr.xs(setting, level='setting').max():.3f}, η² ratio ≤"
        f" {eta2.xs(setting, level='setting').max():.3f}"
        for setting in ctx.ratios
    )
    return Outcome(
        f"Identity: ⟨h, Z⟩ = h(X) − Ê[h(X)|S] + Ê h(X), so E[⟨h, Z⟩ | S] = E h(X) +"
        " (E[h(X)|S] − Ê[h(X)|S]) is constant up to the plug-in error of the conditional"
        " mean: the check can fail only through that error or a bug. Over"
        f" {ctx.n_reps} repetitions: {text}. The plug-in conditional mean on a dyadic"
        " partition leaves a small within-cell trend.",
        verdict=REPRODUCED if ok else NOT_REPRODUCED,
        measured=f"max |corr| {corr.max():.3f}",
        tolerance=f"|corr| ≤ {claim['max_abs_correlation']:g},"
        f" η² ratio ≤ {claim['max_eta2_ratio']:g} in every repetition",
    )


def _check_much_smaller(ctx, claim, seed):
    ratios = ctx.ratios
    result, stability = judge_claim(
        claim, {s: -r for s, r in ratios.items()}, seed=seed, paired=False
    )
    listing = "; ".join(
        f"{s}: ratio {r.mean():.3f} ({member_word(result.members[s].verdict)})"
        for s, r in ratios.items()
    )
    return Outcome(
        "Per repetition, ratio = excess dCor(⟨h, Z⟩, S) / excess dCor(h(X), S) on the same"
        f" draw; claim: ratio ≤ {claim['margin']:g} in every setting (effect = −ratio, Holm"
        f" over {len(ratios)} settings). {listing}. {deciding(result, 'setting')} ⟨h, Z⟩ ="
        " h(X) − E[h(X)|S] + E h(X) removes the conditional mean only: its spread given S is"
        " that of h(X) given S, which changes with S (for h1 = x², X = S + U, h(X) − E[h(X)|S]"
        " = 2S(U − E U) + U² − E U²).",
        result,
        stability,
        measured="; ".join(f"{s} {r.mean():.2f}" for s, r in ratios.items()),
        tolerance=f"ratio ≤ {claim['margin']:g}",
    )


def _check_sine(ctx, claim, seed):
    setting = claim["setting"]
    ratio = ctx.ratios[setting]
    result, stability = judge_claim(claim, -ratio, seed=seed)
    rows = ctx.dependence[ctx.dependence["setting"] == setting]
    obl = rows[rows["features"] == "oblivious"]
    detected = float(np.mean(obl["dcor_p_value"] <= ctx.detection_alpha))
    return Outcome(
        f"{setting}: ratio of excess distance correlations {ratio.mean():.3f}"
        f" (⟨h, Z⟩: dCor {obl['distance_correlation'].mean():.3f} against the permutation"
        f" level {obl['dcor_null'].mean():.3f}); claim: ratio ≤ {claim['margin']:g}, an order"
        f" of magnitude below h(X)'s dependence. {judgement_detail(result.judgement)} The"
        f" permutation test ({int(obl['n_permutations'].iloc[0])} permutations,"
        f" {int(obl['n_points'].iloc[0])} points) detects the dependence at level"
        f" {ctx.detection_alpha:g} in {detected:.0%} of the repetitions: the spread"
        " of ⟨h, Z⟩ changes with S although its mean does not.",
        result,
        stability,
        measured=f"ratio {ratio.mean():.3f}",
        tolerance=f"ratio ≤ {claim['margin']:g}",
    )


#: Claim id → check, in the order of the records.
CHECKS = {
    "uncorrelated": _check_uncorrelated,
    "dependence_much_smaller": _check_much_smaller,
    "sine_hard_to_see": _check_sine,
}


def _repetitions(dependence):
    """The fewest repetitions of any (setting, features)."""
    return int(dependence.groupby(["setting", "features"]).size().min())


def illustration_verdicts(dependence, reference, *, readings, scale):
    """Verdicts for Fig. 2: how ⟨h, Z⟩ depends on S, against h(X).

    ``uncorrelated`` is an identity (the construction removes the conditional mean) checked
    by correlation and η² in every repetition; ``dependence_much_smaller`` (every setting,
    Holm) and ``sine_hard_to_see`` are tests of the per-repetition ratio of excess distance
    correlations against the claim's bound (non-inferiority of −ratio: ratio ≤ margin).

    Parameters
    ----------
    dependence : pandas.DataFrame
        ``results/illustration/dependence.csv``, one row per (setting, features, repetition).
    reference : mapping
        ``oblivious.illustration`` of ``config/paper_reference.yaml``.
    readings : list of Reading
        :func:`krepro.studies.illustration.readings.readings`; each rests on the fewest
        repetitions of any (setting, features) of ``dependence``.
    scale : str
        The config's scale name.

    Returns
    -------
    list of Verdict
        Per reading, the claims in the order of :data:`CHECKS`; each bootstrap seeded by the
        experiment and the claim.
    """
    n_reps = _repetitions(dependence)
    context = types.SimpleNamespace(
        dependence=dependence,
        ratios=dependence_ratios(dependence),
        detection_alpha=reference["detection_alpha"],
        n_reps=n_reps,
    )
    claims = ClaimSet(
        "illustration", "oblivious", reference, scale, seed_names=lambda c, _: ("illustration", c)
    )
    readings = [reading.with_repetitions(n_reps) for reading in readings]
    return judge_readings(claims, CHECKS, readings, lambda reading: context)


def illustration_section(dependence, table, reference, *, readings, scale):
    """The section: the verdicts of :func:`illustration_verdicts` (same parameters) and
    ``table``, ``tables/illustration.csv`` (:func:`krepro.studies.illustration.run.aggregate`),
    as mean ± sd."""
    return Section(
        experiment="illustration",
        title="Illustration: raw vs oblivious features (paper §5, Fig. 2)",
        verdicts=illustration_verdicts(dependence, reference, readings=readings, scale=scale),
        intro=(
            f"{_repetitions(dependence)} independent draws per setting (the figure shows the"
            " first). Figure: `figures/oblivious_fig2.png`; table (mean and sd over"
            " repetitions): `tables/illustration.csv`."
        ),
        body=markdown_table(shown(table)),
    )


def summary(job, log):
    """Job ``illustration_summary``: Fig. 2 from the sampled points, and the verdicts on the
    dependence on S of h(X) and of ⟨h, Z⟩."""
    plot_illustration(pd.read_csv(job.input.points), job.output.figure)

    params = job.params
    section = illustration_section(
        pd.read_csv(job.input.dependence),
        pd.read_csv(job.input.summary),
        params.reference,
        readings=params.readings,
        scale=params.scale,
    )
    write_section(section, job.output.json, job.output.md)
