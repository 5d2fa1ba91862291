"""Report section of ``cme_oblivious``: oblivious features with a dyadic vs a CME estimator of
E[φ|S]; the summary job.

The claim judged (``dependence_reduced``, from the oblivious-data paper; its test in
``cme.oblivious_features`` of ``config/paper_reference.yaml``) is that oblivious features
reduce the dependence of the predictions on S significantly, in every setting where KRR's
predictions depend on S (a Holm family per reading). Dependence is
measured by HSIC with Gaussian kernels and its permutation test
(:func:`krepro.metrics.hsic_test`), which sees any dependence, not only correlation. The
readings are estimator × dimension of S (:mod:`.readings`); the primary one is the paper's:
the dyadic partition with d = 1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.records import read_records
from krepro.studies.claims import judge_claim, member_word
from krepro.studies.cme_oblivious.figures import plot_cme_oblivious
from krepro.studies.cme_oblivious.run import METHODS
from krepro.studies.cme_oblivious.tables import (
    AT_ZERO_COLUMNS,
    aggregate,
    estimator_summary,
    tidy,
)
from krepro.studies.families import deciding
from krepro.studies.judging import ClaimSet, Outcome, judge_readings
from krepro.studies.readings import present, the_primary
from krepro.studies.render import read_tables, write_outputs, write_section
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import Section

__all__ = ["cme_oblivious_section", "cme_oblivious_verdicts", "summary"]

#: The methods whose dependence on S the claim compares with KRR's.
OBLIVIOUS_METHODS = METHODS[1:]
PAPER_VALUE = "significant reduction"


def _log_reductions(runs, estimator, dim, claim):
    """Per (experiment, γ, method) where KRR depends on S: log(HSIC_KRR / HSIC_method) per
    repetition, paired (KRR and the oblivious methods share each repetition's draw).

    Returns
    -------
    values : dict of str to numpy.ndarray
        The family's members.
    frame : pandas.DataFrame
        One row per (experiment, γ, method) with KRR's share of dependent repetitions and the
        mean HSIC ratio (all settings, dependent or not).
    """
    part = runs[runs["sensitive_dim"] == dim]
    values, rows = {}, []
    for (experiment, gamma), setting in part.groupby(["experiment", "gamma"], sort=True):
        krr = setting[setting["method"] == "KRR"].set_index("repetition")
        krr_dependent = float(np.mean(krr["hsic_p_value"] < claim["dependence_alpha"]))
        for method in OBLIVIOUS_METHODS:
            own = setting[(setting["estimator"] == estimator) & (setting["method"] == method)]
            own = own.set_index("repetition").reindex(krr.index)
            log_ratio = np.log(krr["hsic"] / own["hsic"]).dropna().to_numpy()
            name = f"exp {int(experiment)}, γ = {gamma:g}, {method}"
            dependent = krr_dependent >= 0.5
            if dependent:
                values[name] = log_ratio
            rows.append(
                {
                    "setting": name,
                    "krr_dependent": dependent,
                    "hsic_ratio": float(own["hsic"].mean() / krr["hsic"].mean()),
                    "share_dependent": float(
                        np.mean(own["hsic_p_value"] < claim["dependence_alpha"])
                    ),
                }
            )
    return values, pd.DataFrame(rows)


def _check_dependence_reduced(context, claim, seed):
    """Per (experiment, γ, method) where KRR depends on S, the paired log(HSIC_KRR /
    HSIC_method) against the claim's margin, Holm within the family; inconclusive when no
    setting shows a dependence to reduce."""
    runs, estimator, dim = context
    values, frame = _log_reductions(runs, estimator, dim, claim)
    n_settings = frame["setting"].str.rsplit(",", n=1).str[0].nunique()
    if not values:
        return Outcome.inconclusive(
            f"KRR's predictions depend on S in none of the {n_settings} (experiment, γ)"
            " settings: there is no dependence to reduce.",
            paper_value=PAPER_VALUE,
        )
    result, stability = judge_claim(claim, values, seed=seed)
    dependent = frame[frame["krr_dependent"]]
    members = "; ".join(
        f"{name}: ratio {row['hsic_ratio']:.2f}, {member_word(result.members[name].verdict)}"
        for name, row in zip(dependent["setting"], dependent.to_dict("records"), strict=True)
    )
    detail = (
        f"KRR's predictions depend on S (HSIC permutation test, p <"
        f" {claim['dependence_alpha']:g} in ≥ half of the repetitions) in"
        f" {len(values) // len(OBLIVIOUS_METHODS)} of {n_settings} (experiment, γ)"
        " settings; there, per method, effect = log(HSIC_KRR / HSIC_method), paired"
        f" over repetitions (> 0: reduced; a halving is log 2 = {np.log(2):.3f}),"
        f" Holm over {len(values)} settings. Mean HSIC ratios (method / KRR) and"
        f" verdicts: {members}. The oblivious predictions still reject independence in"
        f" {dependent['share_dependent'].mean():.0%} of those repetitions (the paper"
        f" promises a reduction, not independence). {deciding(result, 'setting')}"
    )
    return Outcome(
        detail,
        result,
        stability,
        paper_value=PAPER_VALUE,
        measured=(
            f"HSIC ratio {dependent['hsic_ratio'].min():.2f}–{dependent['hsic_ratio'].max():.2f}"
        ),
        tolerance=f"{claim['test']}, margin log 2",
    )


def cme_oblivious_verdicts(runs, reference, scale, readings):
    """Verdict records of ``dependence_reduced``: one per reading (estimator × d).

    Parameters
    ----------
    runs : pandas.DataFrame
        The per-run table (:func:`krepro.studies.cme_oblivious.tables.tidy`) with ``hsic`` and
        ``hsic_p_value``.
    reference : dict
        ``cme.oblivious_features`` of ``config/paper_reference.yaml``.
    scale : str
    readings : list of Reading
        :func:`krepro.studies.cme_oblivious.readings.readings`; those the runs hold are
        judged, each with the repetitions its d ran.

    Returns
    -------
    list of Verdict
        Per reading, the family of (experiment, γ, method) settings in which KRR's predictions
        depend on S (its permutation test rejects at ``dependence_alpha`` in at least half of
        the repetitions; the selection reads KRR only) is judged by the claim's test on the
        paired per-repetition log(HSIC_KRR / HSIC_method), Holm within the family: reproduced
        iff every setting is, not reproduced iff some setting contradicts it; inconclusive
        when no setting shows a dependence to reduce.
    """

    def repetitions(reading):
        part = runs[runs["sensitive_dim"] == reading.axes["sensitive_dim"]]
        return reading.with_repetitions(int(part["repetition"].nunique()))

    return judge_readings(
        ClaimSet("cme_oblivious", "oblivious", reference, scale),
        {"dependence_reduced": _check_dependence_reduced},
        [repetitions(reading) for reading in present(readings, runs)],
        lambda reading: (runs, reading.axes["estimator"], reading.axes["sensitive_dim"]),
    )


def cme_oblivious_section(table, runs, reference, *, readings, scale):
    """Report section: the verdicts of :func:`cme_oblivious_verdicts` (same parameters) and
    the estimator comparison of ``table``, the aggregate table
    (:func:`krepro.studies.cme_oblivious.tables.aggregate`)."""
    summary = estimator_summary(table)
    intro = (
        "The paper estimates E[φ(X)|S] on a fixed partition of the range of S; with d"
        " sensitive dimensions a partition with the same number of cells has ℓ^(1/d) cells per"
        " axis and converges at the slow rate of Proposition 6. The CME estimator"
        " Σ α_v(s) φ(x_v) (λ chosen by generalised cross-validation of the regression of"
        " φ(X) on S) needs no partition. Both run on the §7.2 data model (d = 1) and on a"
        " variant with S ∈ [−5, 5]² (d = 2); predictions are compared by test MSE and by their"
        " remaining dependence on S: HSIC (Gaussian kernels, median bandwidths) with a"
        " permutation p-value per run, and |corr| with the mean of S². Readings: estimator ×"
        f" d, primary: {the_primary(readings).name} (the paper's)."
    )
    lines = [
        "### Estimators compared (averages over γ and experiments)",
        "",
        markdown_table(summary),
        "",
        "At γ = 0 (X determined by S; KRR's predictions are a function of S):",
        "",
        markdown_table(table[table["gamma"] == 0.0][AT_ZERO_COLUMNS]),
        "",
    ]
    for dim, group in summary.groupby("sensitive_dim"):
        orr = group[group["method"] == "ORR"].set_index("estimator")
        if not {"cme", "dyadic"} <= set(orr.index):
            continue
        mse_ratio = (
            orr.loc["cme", "mse_mean_over_settings"] / orr.loc["dyadic", "mse_mean_over_settings"]
        )
        dependence = orr["hsic"]
        lower = "CME" if dependence["cme"] < dependence["dyadic"] else "dyadic"
        lines.append(
            f"- d = {dim}: ORR with the CME estimator has {mse_ratio:.2f}× the mean test MSE of"
            f" ORR with the dyadic partition; the remaining dependence on S (mean HSIC) is"
            f" {dependence['cme']:.2e} (CME) vs {dependence['dyadic']:.2e} (dyadic), lower"
            f" for {lower}."
        )
    lines += [
        "",
        "Figure: `figures/cme_oblivious.png`; table: `tables/cme_oblivious.csv`.",
    ]
    return Section(
        experiment="cme_oblivious",
        title="Oblivious features with continuous S: dyadic partition vs CME (extension)",
        intro=intro,
        verdicts=cme_oblivious_verdicts(runs, reference, scale, readings),
        body="\n".join(lines),
    )


def summary(job, log):
    """Job ``cme_oblivious_summary``: tidy run table, aggregate table, figure and verdicts of
    the dyadic-vs-CME oblivious experiment."""
    out, params = job.output, job.params
    runs = tidy(read_records(job.input.runs))
    write_outputs(out, runs=runs, table=aggregate(runs))
    table, runs = read_tables(out, "table", "runs")
    plot_cme_oblivious(table, out.figure)
    section = cme_oblivious_section(
        table, runs, params.reference, readings=params.readings, scale=params.scale
    )
    write_section(section, out.json, out.md)
