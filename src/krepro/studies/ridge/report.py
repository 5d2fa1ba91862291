"""Paper vs reproduced for the ridge experiments (§7.2, Fig. 4): report section, summary job.

Each check reads the aggregate tables (or tidy run tables) and the claim's thresholds from
``config/paper_reference.yaml``, and returns a verdict and its detail; the section functions
return :class:`~krepro.studies.verdicts.Section` records (see :mod:`krepro.studies.verdicts`).
"""

from __future__ import annotations

import types

import numpy as np
import pandas as pd

from krepro.records import atomic_write_text, read_records
from krepro.studies.claims import Judgement, judge_claim, judge_parts, member_word, stability_seed
from krepro.studies.render import write_section
from krepro.studies.ridge.figures import plot_ridge
from krepro.studies.ridge.run import aggregate, best_constant_table, tidy
from krepro.studies.tables import markdown_table, ridge_wide
from krepro.studies.verdicts import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    Section,
    claim_verdict,
    judgement_detail,
)

__all__ = ["ridge_section", "summary"]

PAPER = "oblivious"


def _row(table, variant, experiment, gamma, method):
    rows = table[
        (table["variant"] == variant)
        & (table["experiment"] == experiment)
        & np.isclose(table["gamma"], gamma)
        & (table["method"] == method)
    ]
    if rows.empty:
        raise KeyError(
            f"No result for variant {variant}, experiment {experiment}, γ = {gamma:g},"
            f" {method}: the comparison needs γ = 0 and γ = 1 in ridge.gammas."
        )
    return rows.iloc[0]


def _mean(table, variant, experiment, gamma, method):
    return float(_row(table, variant, experiment, gamma, method)["mse_mean"])


def _best_constant_rows(best_constants, reference, variant):
    """Closed-form best S-independent MSE beside the paper's; verdict over both experiments."""
    rows, ok = [], True
    for entry in reference["best_constant_mse"]:
        experiment = entry["experiment"]
        value = float(
            best_constants[
                (best_constants["variant"] == variant)
                & (best_constants["experiment"] == experiment)
            ]["best_constant_mse"].iloc[0]
        )
        relative = value / entry["value"] - 1.0
        ok &= abs(relative) <= entry["tolerance_rel"]
        rows.append(
            {
                "experiment": experiment,
                "variant": variant,
                "paper": entry["value"],
                "reproduced (closed form)": round(value, 3),
                "difference": f"{100 * relative:+.1f}%",
                "tolerance": f"±{100 * entry['tolerance_rel']:.0f}%",
            }
        )
    return pd.DataFrame(rows), (REPRODUCED if ok else NOT_REPRODUCED)


def _paired(runs, variant, experiment):
    """Test MSE per (γ, repetition) × method of one variant and experiment (paired runs)."""
    part = runs[(runs["variant"] == variant) & (runs["experiment"] == experiment)]
    return part.pivot_table(index=["gamma", "repetition"], columns="method", values="test_mse")


def _by_gamma(wide, column_values):
    """``{γ label: per-repetition values}`` from a (γ, repetition)-indexed series."""
    return {
        f"γ = {gamma:g}": group.to_numpy()
        for gamma, group in column_values.groupby(level="gamma", sort=True)
    }


def _relative_gap(wide):
    """(M-ORR − ORR) / mean ORR per (γ, repetition): the claims' scale-free gap."""
    orr_mean = wide["ORR"].groupby(level="gamma").transform("mean")
    return (wide["M-ORR"] - wide["ORR"]) / orr_mean


def _judged(claim, values, seed, **kwargs):
    """(verdict, detail, judgement, stability) of a claim judged from ``values``."""
    if "parts" in claim:
        result, stability = judge_parts(claim, values, seed=seed, **kwargs)
    else:
        result, stability = judge_claim(claim, values, seed=seed, **kwargs)
    return result, stability


def _family_detail(result, what):
    """The deciding member and the family in words."""
    judgement = result.judgement
    name = f" ({result.deciding})" if result.deciding else ""
    return f"{what} Deciding comparison{name}: {judgement_detail(judgement)}"


def _experiments(table):
    return sorted(table["experiment"].unique())


def _check_krr_best(ctx, claim, seed):
    table, runs, variant = ctx.table, ctx.runs, ctx.variant
    values = {}
    for experiment in _experiments(table):
        wide = _paired(runs, variant, experiment)
        for other in ("ORR", "M-ORR"):
            for name, v in _by_gamma(wide, wide[other] - wide["KRR"]).items():
                values[f"exp {experiment}, {name}, {other}"] = v
    result, stability = _judged(claim, values, seed)
    members = result.members
    lowest = min(members, key=lambda k: members[k].ci_low)
    detail = _family_detail(
        result,
        f"MSE(method) − MSE(KRR), paired, over {len(values)} (experiment, γ, method) settings"
        f" (Holm); the smallest lower bound is at {lowest}.",
    )
    return result, stability, detail


def _check_close_to_constant(ctx, claim, seed):
    table, runs, variant = ctx.table, ctx.runs, ctx.variant
    best_constants, settings = ctx.best_constants, ctx.settings
    values = {}
    for experiment in _experiments(table):
        constant = float(
            best_constants[
                (best_constants["variant"] == variant)
                & (best_constants["experiment"] == experiment)
            ]["best_constant_mse"].iloc[0]
        )
        wide = _paired(runs, variant, experiment)
        at_zero = wide.xs(0.0, level="gamma") if 0.0 in wide.index.levels[0] else None
        if at_zero is None:
            raise KeyError("the comparison needs γ = 0 in ridge.gammas.")
        for method in ("ORR", "M-ORR"):
            values[f"exp {experiment}, {method}"] = at_zero[method].to_numpy() / constant - 1.0
    result, stability = _judged(claim, values, seed)
    detail = _family_detail(
        result,
        "Relative distance of the test MSE at γ = 0 to the best constant, per (experiment,"
        " method). Values below the constant are possible: the"
        f" {settings['partition']['cells_per_axis']}-cell partition leaves the position of S"
        " inside its cell in Z, so Z is only approximately independent of S; each test MSE"
        f" uses only {settings['n_test']} points.",
    )
    return result, stability, detail


def _check_orr_at_most_morr(ctx, claim, seed):
    table, runs, variant = ctx.table, ctx.runs, ctx.variant
    values = {}
    for experiment in _experiments(table):
        wide = _paired(runs, variant, experiment)
        for name, v in _by_gamma(wide, _relative_gap(wide)).items():
            values[f"exp {experiment}, {name}"] = v
    result, stability = _judged(claim, values, seed)
    detail = _family_detail(result, "(M-ORR − ORR) / mean ORR, paired, per (experiment, γ) (Holm).")
    return result, stability, detail


def _check_morr_gap(ctx, claim, seed):
    table, runs, variant = ctx.table, ctx.runs, ctx.variant
    low, high = claim["gamma_range"]
    if 2 not in _experiments(table):
        return None
    wide = _paired(runs, variant, 2)
    gaps = _by_gamma(wide, _relative_gap(wide))
    gammas = sorted(wide.index.get_level_values("gamma").unique())
    inside = {f"γ = {g:g}": gaps[f"γ = {g:g}"] for g in gammas if low - 1e-9 <= g <= high + 1e-9}
    ends = {f"γ = {g:g}": gaps[f"γ = {g:g}"] for g in gammas if g in (0.0, 1.0)}
    if not inside or not ends:
        return None
    result, stability = _judged(claim, {"worse_inside": inside, "same_at_ends": ends}, seed)
    parts = "; ".join(
        f"{part}: {member_word(j.verdict)} (deciding γ: effect {j.effect:+.3g},"
        f" [{j.ci_low:.3g}, {j.ci_high:.3g}])"
        for part, j in result.members.items()
    )
    detail = (
        f"Experiment 2, (M-ORR − ORR) / mean ORR, paired: M-ORR worse at every γ in"
        f" [{low:g}, {high:g}] ({len(inside)} values, Holm) and the same at γ = 0 and 1."
        f" Parts: {parts}. Deciding part ({result.deciding}):"
        f" {judgement_detail(result.judgement)}"
    )
    return result, stability, detail


def _check_morr_equals_orr_1(ctx, claim, seed):
    table, runs, variant = ctx.table, ctx.runs, ctx.variant
    if 1 not in _experiments(table):
        return None
    wide = _paired(runs, variant, 1)
    values = _by_gamma(wide, _relative_gap(wide))
    result, stability = _judged(claim, values, seed)
    detail = _family_detail(result, "Experiment 1, (M-ORR − ORR) / mean ORR, paired, per γ (Holm).")
    return result, stability, detail


def _check_approach_krr(ctx, claim, seed):
    table, runs, variant = ctx.table, ctx.runs, ctx.variant
    approach, remains = {}, {}
    for experiment in _experiments(table):
        wide = _paired(runs, variant, experiment)
        for method in ("ORR", "M-ORR"):
            gap = wide[method] - wide["KRR"]
            gap0 = gap.xs(0.0, level="gamma").to_numpy()
            gap1 = gap.xs(1.0, level="gamma").to_numpy()
            approach[f"exp {experiment}, {method}"] = claim["max_gap_ratio"] - gap1 / gap0.mean()
            if experiment == 1:
                remains[f"exp 1, {method}"] = gap1
    result, stability = _judged(
        claim, {"approach": approach, "not_reached_experiment_1": remains}, seed
    )
    parts = "; ".join(f"{part}: {member_word(j.verdict)}" for part, j in result.members.items())
    detail = (
        f"approach: {claim['max_gap_ratio']:g} − gap(γ = 1) / mean gap(γ = 0) per (experiment,"
        " method), gap = MSE(method) − MSE(KRR) paired within γ (the mean gap at γ = 0 is"
        " taken as known: its relative standard error is small); not reached: the gap at"
        f" γ = 1 in experiment 1, in MSE units. Parts: {parts}. Deciding part"
        f" ({result.deciding}): {judgement_detail(result.judgement)} In experiment 1 a gap"
        " remains at γ = 1 because the cell means are estimated from few points each."
    )
    return result, stability, detail


CHECKS = {
    "krr_best": _check_krr_best,
    "close_to_best_constant": _check_close_to_constant,
    "orr_at_most_morr": _check_orr_at_most_morr,
    "morr_gap_experiment_2": _check_morr_gap,
    "morr_equals_orr_experiment_1": _check_morr_equals_orr_1,
    "approach_krr": _check_approach_krr,
}


def ridge_section(table, runs, best_constants, reference, settings, *, scale):
    """Verdicts and tables of the ridge experiments (§7.2, Fig. 4), one reading per variant.

    Parameters
    ----------
    table, runs, best_constants : pandas.DataFrame
        ``tables/ridge.csv``, ``results/ridge/ridge.csv`` (one row per run) and
        ``tables/ridge_best_constant.csv``.
    reference : mapping
        ``oblivious.ridge`` of ``config/paper_reference.yaml``.
    settings : mapping
        The ``ridge`` config section (``primary_variant``, sizes, partition).
    scale : str
        The config's scale name.

    Returns
    -------
    Section
    """
    primary_variant = settings["primary_variant"]
    variants = list(dict.fromkeys(table["variant"]))
    n_reps = int(table["n_reps"].min())
    claims = reference["claims"]
    verdicts, constant_tables = [], []
    for variant in variants:

        def verdict(claim_id, outcome, n_repetitions=n_reps, variant=variant, **values):
            return claim_verdict(
                reference,
                claim_id,
                *outcome,
                experiment="ridge",
                paper=PAPER,
                scale=scale,
                protocol=variant,
                primary=variant == primary_variant,
                n_repetitions=n_repetitions,
                **values,
            )

        constants, constant_verdict = _best_constant_rows(best_constants, reference, variant)
        constant_tables.append(constants)
        verdicts.append(
            verdict(
                "best_constant_mse",
                (constant_verdict, f"Closed form: {_constant_text(constants)}."),
                n_repetitions=None,
                paper_value="; ".join(f"{v:g}" for v in constants["paper"]),
                measured="; ".join(f"{v:g}" for v in constants["reproduced (closed form)"]),
                tolerance="; ".join(constants["tolerance"]),
            )
        )
        ctx = types.SimpleNamespace(
            table=table,
            runs=runs,
            best_constants=best_constants,
            variant=variant,
            settings=settings,
        )
        for claim_id, check in CHECKS.items():
            outcome = check(ctx, claims[claim_id], stability_seed("ridge", claim_id, variant))
            if outcome is None:
                verdicts.append(
                    verdict(
                        claim_id,
                        (
                            INCONCLUSIVE,
                            "The runs hold none of the settings this claim is about (see"
                            " `ridge.gammas` and `ridge.experiments`).",
                        ),
                        judgement=Judgement(INCONCLUSIVE, *[float("nan")] * 5),
                    )
                )
                continue
            result, stability, detail = outcome
            verdicts.append(
                verdict(
                    claim_id,
                    (result.verdict, detail),
                    judgement=result.judgement,
                    stability=stability,
                )
            )
    intro = (
        f"Readings (protocol variants): {', '.join(variants)}; primary: {primary_variant}."
        f" Repetitions per γ: {n_reps}. Figure: `figures/oblivious_fig4.png`;"
        " table: `tables/ridge.csv`."
    )
    body = ["### Best S-independent MSE at γ = 0", ""]
    body.append(markdown_table(pd.concat(constant_tables, ignore_index=True)))
    body += [
        "",
        "The reproduced value is the closed form Var(S²)·c² + Var ε (c = 1, 2) for"
        f" S ~ U[{settings['partition']['low']:g}, {settings['partition']['high']:g}]."
        f" {' '.join(reference['best_constant_note'].split())}",
        "",
    ]
    for variant in variants:
        for experiment in sorted(table["experiment"].unique()):
            body += [
                f"### Test MSE, experiment {experiment}, variant {variant} (mean ± sd)",
                "",
                markdown_table(ridge_wide(table, variant, experiment)),
                "",
            ]
    return Section(
        experiment="ridge",
        title="Ridge regression on oblivious features (paper §7.2, Fig. 4)",
        verdicts=verdicts,
        intro=intro,
        body="\n".join(body),
    )


def _constant_text(constants):
    return "; ".join(
        f"experiment {row['experiment']}: {row['reproduced (closed form)']:g} vs the paper's"
        f" {row['paper']:g} ({row['difference']})"
        for row in constants.to_dict("records")
    )


def summary(job, log):
    """Job ``ridge_summary``: tidy run table, aggregate tables, Fig. 4 and the report section.

    The figure and the verdicts each read the tables back from the files just written, as
    separate jobs would.
    """
    out, settings = job.output, job.params.settings
    runs = tidy(read_records(job.input.runs))
    atomic_write_text(out.runs, runs.to_csv(index=False))
    atomic_write_text(out.table, aggregate(runs).to_csv(index=False))
    constants = best_constant_table(settings["variants"], settings["partition"])
    atomic_write_text(out.best_constant, constants.to_csv(index=False))

    written = (out.table, out.best_constant, out.runs)
    plot_ridge(*map(pd.read_csv, written), out.figure)

    reference = job.params.reference
    table, constants, runs = map(pd.read_csv, written)
    section = ridge_section(table, runs, constants, reference, settings, scale=job.params.scale)
    write_section(section, out.json, out.md)
