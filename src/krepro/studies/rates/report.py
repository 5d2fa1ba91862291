"""Paper vs reproduced for the rates of the E[φ(X)|S] estimators (Props. 5, 6): the report
section and the summary job.

The paper proves rates for its estimator of E[φ(X)|S] without measuring them; this section
puts the measured log-log slopes beside the theory. Thresholds come from
``config/paper_reference.yaml`` (``oblivious.rates``).
"""

from __future__ import annotations

import pandas as pd

from krepro.studies.rates.figures import ESTIMATOR_LABELS, plot_rates
from krepro.studies.rates.run import error_table, slope_table, tidy
from krepro.studies.render import write_section
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import (
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    Section,
    claim_verdict,
    paper_reference,
)
from krepro.workflow.records import atomic_write_text, read_records

__all__ = ["rates_section", "summary"]

PAPER = "oblivious"


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
        (:func:`krepro.studies.rates.run.slope_table`).
    errors : pandas.DataFrame
        ``results/rates/errors.csv`` (:func:`krepro.studies.rates.run.error_table`).
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


def summary(job, log):
    """Job ``rates_summary``: tidy run table, mean errors per n, the log-log slopes beside the
    theory, the error-vs-n figure and the verdicts.

    The figure and the verdicts each read the tables back from the files just written, as
    separate jobs would.
    """
    out, params = job.output, job.params
    runs = tidy(read_records(job.input.runs))
    atomic_write_text(out.runs, runs.to_csv(index=False))
    atomic_write_text(out.errors, error_table(runs).to_csv(index=False))
    slopes = slope_table(
        runs,
        seed=params.seed,
        n_bootstrap=params.settings["n_bootstrap"],
        confidence=params.settings["confidence"],
    )
    atomic_write_text(out.table, slopes.to_csv(index=False))

    plot_rates(pd.read_csv(out.errors), pd.read_csv(out.table), out.figure)

    reference = paper_reference(job.input.reference, "oblivious", "rates")
    section = rates_section(
        pd.read_csv(out.table),
        pd.read_csv(out.errors),
        reference,
        params.settings,
        scale=params.scale,
    )
    write_section(section, out.json, out.md)
