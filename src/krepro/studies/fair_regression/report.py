"""Report section of ``fair_regression``: error–dependence fronts per data set, the
extension claims and the ground-truth check; the summary job.

The claims (``oblivious.fair_regression`` of ``config/paper_reference.yaml``, kind
``extension`` and ``sanity check``) are judged with :mod:`krepro.studies.claims`. The two
extension claims compare the HSIC of the oblivious ridge with a fairlearn peer at the
peer's strongest setting, the oblivious fit read at the peer's error (the largest t whose
mean error is no larger: :func:`claim_settings`), paired over the random splits, with the
data sets as the family (Holm). Readings (:mod:`.readings`): the estimator of E[φ(X)|S] in
the oblivious features, the paper's partition (primary) or the CME.
"""

from __future__ import annotations

import numpy as np

from krepro.records import read_records
from krepro.studies.claims import judge_claim
from krepro.studies.fair_regression.figures import plot_fair_regression
from krepro.studies.fair_regression.fronts import (
    STRONGER,
    matched_setting,
    paired_log_ratios,
    pareto_front,
)
from krepro.studies.fair_regression.run import CLASSIFICATION, PARAMETER_NAMES
from krepro.studies.fair_regression.tables import (
    TABLE_COLUMNS,
    aggregate,
    datasets_in,
    front_summary_markdown,
    tidy,
)
from krepro.studies.families import deciding
from krepro.studies.judging import ClaimSet, Outcome, judge_readings
from krepro.studies.render import read_tables, write_outputs, write_section
from krepro.studies.verdicts import Section, judgement_detail

__all__ = [
    "claim_settings",
    "fair_regression_section",
    "fair_regression_verdicts",
    "summary",
]

PEER_CLAIMS = ("oblivious_below_correlation_remover", "oblivious_below_bounded_group_loss")


def claim_settings(runs, claim, dataset, method):
    """The peer's (method, parameter), the oblivious ``method``'s parameter matched to the
    peer's error, and whether a setting matched (:func:`.fronts.matched_setting`).

    ``peer_parameter: strongest`` takes the sweep's strongest setting of the peer on that
    data set (:data:`.fronts.STRONGER`: the largest α of CorrelationRemover, the smallest
    bound of BoundedGroupLoss); a number is used as it is.
    """
    peer = claim["peer"]
    parameter = claim["peer_parameter"]
    part = runs[(runs["dataset"] == dataset) & (runs["method"] == peer)]
    if part.empty:
        raise ValueError(f"{dataset}: no records of the peer {peer!r}.")
    if parameter == "strongest":
        parameter = STRONGER[peer](part["parameter"].unique())
    parameter = float(parameter)
    level = float(part[np.isclose(part["parameter"], parameter)]["error"].mean())
    own, matched = matched_setting(runs, dataset, method, level)
    return (peer, parameter), own, matched


def _tolerance(claim):
    return f"{claim['test']}, margin {claim['margin']:.3g} (log scale)"


def _peer_below(context, claim, seed):
    """The oblivious fit against a fairlearn peer, at the peer's error, per data set."""
    runs, estimator = context
    method = f"oblivious_{estimator}"
    values, notes = {}, []
    peer_name = PARAMETER_NAMES[claim["peer"]]
    for dataset in datasets_in(runs):
        peer, own, matched = claim_settings(runs, claim, dataset, method)
        values[dataset] = paired_log_ratios(runs, dataset, peer, (method, own), "hsic")
        error_ratio = paired_log_ratios(runs, dataset, (method, own), peer, "error").mean()
        notes.append(
            f"{dataset}: {peer_name} = {peer[1]:g}, t = {own:g}"
            f"{'' if matched else ' (no t as accurate: the smallest)'}, HSIC"
            f" ×{np.exp(-values[dataset].mean()):.2f}, error ×{np.exp(error_ratio):.2f}"
        )
    result, stability = judge_claim(claim, values, seed=seed)
    n_splits = int(runs["split"].nunique())
    detail = (
        f"Oblivious ridge ({estimator} estimator of E[φ(X)|S]) against {claim['peer']} at"
        f" its strongest setting, read at the largest t whose mean error is no larger than"
        f" the peer's, paired over {n_splits} splits per data set. Per data set (the"
        f" oblivious fit's HSIC and error as multiples of the peer's, geometric means of the"
        f" per-split ratios): {'; '.join(notes)}. Effect log(HSIC_peer / HSIC_oblivious),"
        f" Holm over the data sets: {result.listing()}. {deciding(result, 'data set')}"
    )
    measured = "; ".join(f"{d}: HSIC ×{np.exp(-v.mean()):.2f}" for d, v in values.items())
    return Outcome(
        detail,
        result,
        stability,
        paper_value="lower HSIC at the peer's error",
        measured=measured,
        tolerance=_tolerance(claim),
    )


def _truth(context, claim, seed):
    """The estimate of E[k(X, x) | S = s] against the closed form on synthetic data."""
    runs, estimator = context
    synthetic = runs[(runs["dataset"] == "synthetic")].drop_duplicates("split").sort_values("split")
    blind = synthetic["truth_error_blind"].to_numpy(float)
    own = synthetic[f"truth_error_{estimator}"].to_numpy(float)
    result, stability = judge_claim(claim, np.log(blind / own), seed=seed)
    detail = (
        f"Root-mean-square error of the {estimator} estimate of E[k(X, x) | S = s] over a grid"
        f" of (s, x) drawn from the model, against the closed form: {own.mean():.4f} (mean"
        f" over {len(own)} splits) vs {blind.mean():.4f} for the S-blind mean; effect ="
        f" log(error_blind / error_{estimator}) per split. {judgement_detail(result.judgement)}"
    )
    return Outcome(
        detail,
        result,
        stability,
        paper_value="closer than the S-blind mean",
        measured=f"RMSE {own.mean():.4f} vs {blind.mean():.4f}",
        tolerance=_tolerance(claim),
        n_repetitions=len(own),
    )


def fair_regression_verdicts(runs, reference, scale, readings):
    """Verdict records of every claim of ``oblivious.fair_regression``, per reading.

    The ground-truth claim is judged only when the runs hold the synthetic data set.

    Parameters
    ----------
    runs : pandas.DataFrame
        Per-split records (:func:`krepro.studies.fair_regression.tables.tidy`).
    reference : dict
        ``oblivious.fair_regression`` of ``config/paper_reference.yaml``.
    scale : str
    readings : list of Reading
        :func:`krepro.studies.fair_regression.readings.readings` (one per estimator of
        E[φ(X)|S]); their repetitions are the splits the runs hold.

    Returns
    -------
    list of Verdict
        Grouped by claim, the readings in their order.
    """
    checks = dict.fromkeys(PEER_CLAIMS, _peer_below)
    if "synthetic" in set(runs["dataset"]):
        checks["conditional_mean_recovered"] = _truth
    n_splits = int(runs["split"].nunique())
    return judge_readings(
        ClaimSet("fair_regression", "oblivious", reference, scale),
        checks,
        [reading.with_repetitions(n_splits) for reading in readings],
        lambda reading: (runs, reading.name),
        order="claim",
    )


def _front_lines(table):
    """Per data set: which methods' settings lie on the pooled error–HSIC front."""
    lines = []
    for dataset in datasets_in(table):
        part = table[table["dataset"] == dataset].reset_index(drop=True)
        front = part.iloc[pareto_front(part["error"], part["hsic"])]
        points = ", ".join(
            f"{row.method} ({PARAMETER_NAMES[row.method]} = {row.parameter:g}: error"
            f" {row.error:.4g}, HSIC {row.hsic:.2e})"
            for row in front.itertuples()
        )
        lines.append(f"- {dataset}: {points}.")
    return lines


def fair_regression_section(table, runs, reference, *, readings, scale):
    """Report section: verdicts, the fronts' headline numbers and the ground-truth check."""
    unit = ", ".join(
        f"{d}: {'misclassification rate' if d in CLASSIFICATION else 'RMSE'}"
        for d in datasets_in(table)
    )
    intro = (
        "Fair regression with a continuous sensitive feature S (age; synthetic: S ~ U[0, 1]"
        " with a closed-form E[φ(X)|S]). Per data set and random split (Parkinson's: split"
        " by subject), six methods each sweep one trade-off parameter: KRR (λ), oblivious"
        " ridge on Nyström features with the partition or the CME estimator of E[φ(X)|S]"
        " (t, the share of the way from the plain to the oblivious features), fairlearn's"
        " CorrelationRemover + KRR (α), fairlearn's ExponentiatedGradient with"
        " BoundedGroupLoss on quantile bins of age (c, the bound as a share of the"
        " unconstrained worst bin loss) and HSIC-penalised KRR (μ, fair kernel learning)."
        f" Error: {unit}. Dependence of the test predictions on S: HSIC (Gaussian kernels,"
        " median bandwidths, permutation p-value), distance correlation, and the range of"
        " the mean prediction over quantile bins of S (fairlearn's MetricFrame); means and"
        " standard errors over the splits. Readings of the claims: partition (primary) or"
        " CME estimator."
    )
    lines = [
        "### Least HSIC at the error of CorrelationRemover + KRR (α = 1)",
        "",
        "Per data set, the least mean HSIC each method reaches with a mean error no larger"
        " than that of CorrelationRemover + KRR at α = 1 (empty: no setting is as accurate):",
        "",
        front_summary_markdown(table),
        "",
        "### The pooled error–HSIC fronts",
        "",
        "Settings that no other method's setting beats on both mean error and mean HSIC:",
        "",
        *_front_lines(table),
        "",
    ]
    if "truth_error_blind" in runs and runs["truth_error_blind"].notna().any():
        synthetic = runs[runs["dataset"] == "synthetic"].drop_duplicates("split")
        cells = []
        for name in ("partition", "cme", "blind"):
            values = synthetic[f"truth_error_{name}"]
            cells.append(
                f"{name} {values.mean():.4f} ± {values.std(ddof=1) / np.sqrt(len(values)):.4f}"
            )
        lines += [
            "### Ground truth (synthetic)",
            "",
            "Root-mean-square error of the estimates of E[k(X, x) | S = s] against the closed"
            f" form (mean ± s.e. over the splits): {'; '.join(cells)}.",
            "",
        ]
    lines += [
        "Figure: `figures/fair_regression.png`; table: `tables/fair_regression.csv`"
        f" ({len(table)} rows).",
    ]
    return Section(
        experiment="fair_regression",
        title="Fair regression with a continuous sensitive feature (extension)",
        intro=intro,
        verdicts=fair_regression_verdicts(runs, reference, scale, readings),
        body="\n".join(lines),
    )


def summary(job, log):
    """Job ``fair_regression_summary``: per-split table, aggregate table, figure, verdicts."""
    out, params = job.output, job.params
    runs = tidy(read_records(job.input.runs))
    write_outputs(out, runs=runs, table=aggregate(runs)[TABLE_COLUMNS])
    table, runs = read_tables(out, "table", "runs")
    plot_fair_regression(table, out.figure)
    section = fair_regression_section(
        table, runs, params.reference, readings=params.readings, scale=params.scale
    )
    log.info("%d verdicts", len(section.verdicts))
    write_section(section, out.json, out.md)
