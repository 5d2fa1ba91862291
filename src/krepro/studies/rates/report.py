"""Paper vs reproduced for the rates of the E[φ(X)|S] estimators (Props. 5, 6) and the cost of
the oblivious Gram matrix (§1, §6): the verdicts, the report section and the summary job.

The paper proves rates for its estimator of E[φ(X)|S] without measuring them; this section
tests the measured exponents against the theory's. Each claim is judged from per-repetition
log-log slopes (repetition r's errors, or CPU times, over the n grid, fitted by least squares
of the log on log n; repetitions are independent draws, so are their slopes), by the test its
entry in ``config/paper_reference.yaml`` (``oblivious.rates``) states, over the family of
settings with Holm's procedure.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pandas as pd

from krepro.fairness.rates import theory_slope
from krepro.records import read_records
from krepro.studies.claims import judge_claim, member_word
from krepro.studies.families import deciding
from krepro.studies.judging import ClaimSet, Outcome, judge_readings
from krepro.studies.rates.figures import plot_rates
from krepro.studies.rates.tables import (
    error_table,
    errors_by_n,
    gram_cost_table,
    gram_timing,
    per_repetition_slopes,
    rate_slopes,
    shown_slopes,
    slope_table,
    tidy,
)
from krepro.studies.render import read_tables, write_outputs, write_section
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import Section, judgement_detail

__all__ = ["rates_section", "rates_verdicts", "summary"]


@dataclasses.dataclass(frozen=True)
class _Runs:
    """What the checks read: the run table and the Gram timings (``None``: not run)."""

    runs: pd.DataFrame
    gram_cost: pd.DataFrame | None


def _theories(runs, settings):
    """The theory's exponent of each setting (Prop. 5: −1/2; Prop. 6: −1/(2(d+1)))."""
    first = runs.drop_duplicates("setting").set_index("setting")
    return {
        name: theory_slope(first.loc[name, "kind"], int(first.loc[name, "d"])) for name in settings
    }


# Per kind of setting: what the effect is, and (what, why) of the settings whose slope is
# below the theory's by more than the margin.
_RATE_TEXTS = {
    "finite": (
        "Per k, effect = mean per-repetition slope of log error on log n − (−1/2); with a"
        " finite S the estimator is k sample means, whose error falls exactly like n^(−1/2), so"
        " the exponent itself is tested (magnitude).",
        "Steeper than −1/2",
        "at the smallest n some values of S have few or no estimation points (an empty"
        " cell's estimate is 0), an extra error that vanishes exponentially in n and"
        " steepens the fit.",
    ),
    "continuous": (
        "Per d, effect = −1/(2(d+1)) − per-repetition slope of log error on log n (positive:"
        " faster than the rate); Proposition 6 is an upper bound (O_P), so the claim is that"
        " the error falls at least as fast (non-inferiority).",
        "Faster than the bound",
        "with ℓ = n^(1/(2(d+1))) cells per axis the variance term ℓ^(d/2) n^(−1/2) ="
        " n^(−(d+2)/(4(d+1))) still weighs at these n beside the bias term"
        " 1/ℓ = n^(−1/(2(d+1))), and it falls faster; the bound's exponent is the slower"
        " of the two.",
    ),
}


def _check_rate(kind, context, claim, seed):
    """A rate claim over its settings of ``kind`` (:data:`_RATE_TEXTS`)."""
    what, below_what, below_why = _RATE_TEXTS[kind]
    slopes = rate_slopes(context.runs, kind)
    if not slopes:
        return None
    theories = _theories(context.runs, slopes)
    if kind == "finite":  # the exponent itself: slope − theory
        result, stability = judge_claim(claim, slopes, seed=seed, offset=theories, paired=False)
    else:  # effect = theory − slope: positive when the error falls faster than the bound
        values = {name: theories[name] - v for name, v in slopes.items()}
        result, stability = judge_claim(claim, values, seed=seed, paired=False)
    listing = "; ".join(
        f"{name}: slope {np.mean(slopes[name]):+.3f} vs {theories[name]:+.3f}"
        f" ({member_word(result.members[name].verdict)})"
        for name in result.members
    )
    detail = f"{what} Settings: {listing}. {deciding(result, 'setting')}"
    below = [n for n in slopes if np.mean(slopes[n]) < theories[n] - claim["margin"]]
    if below:
        detail += f" {below_what} for {', '.join(below)}: {below_why}"
    return Outcome(
        detail,
        result,
        stability,
        n_repetitions=int(min(len(v) for v in slopes.values())),
        paper_value="; ".join(f"{theories[n]:+.3f}" for n in slopes),
        measured="; ".join(f"{np.mean(v):+.3f}" for v in slopes.values()),
        tolerance=f"{claim['test']} ±{claim['margin']:g}",
    )


def _check_gram_cost(context, claim, seed):
    gram_cost = context.gram_cost
    if gram_cost is None or gram_cost.empty:
        return None
    slopes = per_repetition_slopes(gram_cost)
    if slopes.size == 0:
        return None
    result, stability = judge_claim(claim, 2.0 - slopes, seed=seed)
    sizes = sorted(gram_cost["n"].unique())
    threads = (
        f" with {int(gram_cost['threads'].max())} BLAS thread(s)" if "threads" in gram_cost else ""
    )
    largest = gram_cost[gram_cost["n"] == sizes[-1]]["cpu_seconds"].median()
    detail = (
        f"CPU time (process time{threads}) of ObliviousKernel.fit on n estimation points and"
        f" .gram on n learner points, n = {sizes[0]}…{sizes[-1]} ({len(sizes)} sizes),"
        f" {slopes.size} repetitions; median {largest:.3g} s at n = {sizes[-1]}. Effect = 2 −"
        f" per-repetition slope of log time on log n (mean slope {slopes.mean():.2f}, range"
        f" {slopes.min():.2f}–{slopes.max():.2f}); O(n²) is an upper bound, so the claim is that"
        " the time grows no faster than n² (non-inferiority). A slope below 2 is the O(n)"
        " work and fixed overheads that still weigh at small n (the n² kernel entries dominate"
        " only asymptotically). Timing depends on the machine, its BLAS and its load; only"
        f" the slope is compared. {judgement_detail(result.judgement)}"
    )
    return Outcome(
        detail,
        result,
        stability,
        n_repetitions=int(slopes.size),
        paper_value=claim["paper_value"],
        measured=f"slope {slopes.mean():.2f}",
        tolerance=f"{claim['test']}, margin {claim['margin']:g}",
    )


# The claims in the records' order, with the config keys that hold their settings.
CHECKS = {
    "finite_rate": functools.partial(_check_rate, "finite"),
    "continuous_rate": functools.partial(_check_rate, "continuous"),
    "gram_quadratic_cost": _check_gram_cost,
}
_SETTINGS_KEYS = {
    "finite_rate": "`rates.finite.n_values`",
    "continuous_rate": "`rates.continuous.dims`",
    "gram_quadratic_cost": "`rates.gram_cost`",
}
# The Gram cost's bootstrap seed is named after its job (as the published stabilities are).
_SEED_NAMES = {"gram_quadratic_cost": "gram_cost"}


def rates_verdicts(runs, reference, readings, *, scale, gram_cost=None):
    """Verdicts of Propositions 5 and 6 and of the O(n²) Gram cost.

    Parameters
    ----------
    runs : pandas.DataFrame
        ``results/rates/rates.csv``: one row per (estimator, setting, n, repetition); the
        verdicts read its per-repetition slopes
        (:func:`~krepro.studies.rates.tables.rate_slopes`).
    reference : mapping
        ``oblivious.rates`` of ``config/paper_reference.yaml``.
    readings : list of Reading
        The study's readings (one, ``primary``: ``STUDY.readings_of``).
    scale : str
    gram_cost : pandas.DataFrame, optional
        ``results/rates/gram_cost.csv`` (n, repetition, cpu_seconds, threads); without it
        ``gram_quadratic_cost`` is inconclusive.

    Returns
    -------
    list of Verdict
    """
    claims = ClaimSet(
        "rates",
        "oblivious",
        reference,
        scale,
        no_data=lambda claim_id: (
            f"The runs hold none of the settings this claim is about ({_SETTINGS_KEYS[claim_id]})."
        ),
        seed_names=lambda claim_id, r: ("rates", _SEED_NAMES.get(claim_id, claim_id), r.name),
    )
    return judge_readings(claims, CHECKS, readings, lambda reading: _Runs(runs, gram_cost))


def rates_section(slopes, errors, runs, reference, settings, readings, *, scale, gram_cost=None):
    """The rates section: the verdicts (:func:`rates_verdicts`), the slopes beside the theory,
    the mean errors and the Gram timings.

    Parameters
    ----------
    slopes : pandas.DataFrame
        ``tables/oblivious_rates.csv`` (:func:`krepro.studies.rates.tables.slope_table`):
        slopes of the mean error with bootstrap intervals, shown in the table.
    errors : pandas.DataFrame
        ``results/rates/errors.csv`` (:func:`krepro.studies.rates.tables.error_table`).
    runs, reference, readings, scale, gram_cost
        As in :func:`rates_verdicts`.
    settings : mapping
        The ``rates`` config section.

    Returns
    -------
    Section
    """
    verdicts = rates_verdicts(runs, reference, readings, scale=scale, gram_cost=gram_cost)
    n_reps = int(settings["n_repetitions"])
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
        f" against n; {n_reps} repetitions per n. Finite S: uniform on k"
        " values, one cell per value. Continuous S: uniform on [0, 1]^d, dyadic partition with"
        f" ℓ = ⌈{settings['continuous']['cells_scale']:g}·n^(1/(2(d+1)))⌉ cells per axis"
        " (Prop. 6's schedule), error integrated by the midpoint rule on a grid aligned with"
        " the cells. The verdicts read one log-log slope per repetition; the table shows the"
        " slope of the mean error with a bootstrap interval. The cost of the oblivious Gram"
        " matrix is CPU time against n (machine-dependent; only its slope is compared). Table:"
        " `tables/oblivious_rates.csv`; figure: `figures/oblivious_rates.png`."
    )
    body = [
        "### Log-log slopes beside the theory",
        "",
        markdown_table(shown_slopes(slopes)),
        "",
        "theory_slope: −1/2 (Prop. 5, finite S), −1/(2(d+1)) (Prop. 6, continuous S);"
        " empty for the CME." + cme_text,
        "",
        "### Mean error against n",
        "",
        markdown_table(errors_by_n(errors), digits=4),
    ]
    if gram_cost is not None and not gram_cost.empty:
        body += [
            "",
            "### CPU seconds of the oblivious Gram matrix against n (this machine)",
            "",
            markdown_table(gram_timing(gram_cost), digits=4),
        ]
    return Section(
        experiment="rates",
        title=(
            "Convergence rates of the estimators of E[φ(X)|S] (paper Props. 5 and 6) and the"
            " cost of the oblivious Gram matrix"
        ),
        verdicts=verdicts,
        intro=intro,
        body="\n".join(body),
    )


def summary(job, log):
    """Job ``rates_summary``: tidy run table, mean errors per n, the log-log slopes beside the
    theory, the Gram timing table, the error-vs-n figure and the verdicts."""
    out, params, settings = job.output, job.params, job.params.settings
    runs = tidy(read_records(job.input.runs))
    write_outputs(
        out,
        runs=runs,
        errors=error_table(runs),
        gram_cost=gram_cost_table(read_records([job.input.gram_cost])),
        table=slope_table(
            runs,
            seed=params.seed,
            n_bootstrap=settings["n_bootstrap"],
            confidence=settings["confidence"],
        ),
    )
    slopes, errors, runs, timing = read_tables(out, "table", "errors", "runs", "gram_cost")
    plot_rates(errors, slopes, out.figure)
    section = rates_section(
        slopes,
        errors,
        runs,
        params.reference,
        settings,
        params.readings,
        scale=params.scale,
        gram_cost=timing,
    )
    write_section(section, out.json, out.md)
