"""Paper vs reproduced: each number and claim of ``config/paper_reference.yaml`` with a verdict.

Every check here reads the aggregate tables (or tidy run tables) and the reference file, and
returns Markdown. Verdicts are computed, never typed in:

* **reproduced** — the number is within the stated tolerance / the claim holds as stated;
* **partly reproduced** — the claim holds with exceptions that are listed;
* **inconclusive** — the effect has the claimed sign but is within the noise of this many
  repetitions;
* **not reproduced** — the measurement contradicts the paper; the text says how and why
  where the reason is known.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.report.tables import markdown_table, paired_differences, ridge_wide

__all__ = ["assemble_report", "illustration_section", "ridge_section"]

REPRODUCED = "reproduced"
PARTLY = "partly reproduced"
INCONCLUSIVE = "inconclusive"
NOT_REPRODUCED = "not reproduced"


def _verdict_line(claim, verdict, detail):
    return f"- **{verdict}** — {claim['text'].strip()} *({claim['source']})*\n  {detail}"


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


def _best_constant_rows(best_constants, reference, variants):
    rows = []
    for entry in reference["best_constant_mse"]:
        experiment = entry["experiment"]
        for variant in variants:
            value = float(
                best_constants[
                    (best_constants["variant"] == variant)
                    & (best_constants["experiment"] == experiment)
                ]["best_constant_mse"].iloc[0]
            )
            relative = value / entry["value"] - 1.0
            verdict = REPRODUCED if abs(relative) <= entry["tolerance_rel"] else NOT_REPRODUCED
            rows.append(
                {
                    "experiment": experiment,
                    "variant": variant,
                    "paper": entry["value"],
                    "reproduced (closed form)": round(value, 3),
                    "difference": f"{100 * relative:+.1f}%",
                    "verdict": verdict,
                }
            )
    return pd.DataFrame(rows)


def _check_krr_best(table, runs, variant, claim):
    z = claim["z"]
    exceptions, ties = [], []
    for experiment in sorted(table["experiment"].unique()):
        for other in ("ORR", "M-ORR"):
            diff = paired_differences(runs, variant, experiment, "KRR", other)
            worse = diff[diff["mean"] < -z * diff["se"]]
            tied = diff[diff["mean"].abs() <= z * diff["se"]]
            exceptions += [f"exp {experiment}, γ = {g:g} ({other})" for g in worse["gamma"]]
            ties += [f"exp {experiment}, γ = {g:g} ({other})" for g in tied["gamma"]]
    if exceptions:
        return NOT_REPRODUCED, "KRR is significantly worse at " + ", ".join(exceptions) + "."
    detail = "KRR has the lowest mean test MSE wherever the paired difference is significant"
    if ties:
        detail += (
            f" (z = {z:g}); ties within noise at {', '.join(ties)} — at γ = 1 in experiment 2"
            " X is independent of S, so S² is irreducible noise for every method."
        )
        return REPRODUCED, detail
    return REPRODUCED, detail + "."


def _check_close_to_constant(table, best_constants, variant, claim):
    parts, ok = [], True
    for experiment in sorted(table["experiment"].unique()):
        constant = float(
            best_constants[
                (best_constants["variant"] == variant)
                & (best_constants["experiment"] == experiment)
            ]["best_constant_mse"].iloc[0]
        )
        for method in ("ORR", "M-ORR"):
            row = _row(table, variant, experiment, 0.0, method)
            value, se = float(row["mse_mean"]), float(row["mse_se"])
            relative = value / constant - 1.0
            # Within the tolerance, up to z standard errors of the mean over repetitions.
            ok &= abs(value - constant) <= claim["tolerance_rel"] * constant + claim["z"] * se
            parts.append(
                f"exp {experiment} {method} {value:.2f} ± {se:.2f} (se) vs {constant:.2f}"
                f" ({relative:+.1%})"
            )
    detail = "; ".join(parts) + (
        f". Criterion: within {claim['tolerance_rel']:.0%} of the constant, up to"
        f" {claim['z']:g} standard errors. Values below the constant are possible: the"
        " 16-cell partition leaves the position of S inside its cell in Z, so Z is only"
        " approximately independent of S; each test MSE uses only 100 points."
    )
    return (REPRODUCED if ok else NOT_REPRODUCED), detail


def _check_orr_at_most_morr(table, runs, variant, claim):
    z = claim["z"]
    exceptions = []
    for experiment in sorted(table["experiment"].unique()):
        diff = paired_differences(runs, variant, experiment, "ORR", "M-ORR")
        bad = diff[diff["mean"] < -z * diff["se"]]
        exceptions += [f"exp {experiment}, γ = {g:g}" for g in bad["gamma"]]
    if exceptions:
        return PARTLY, "M-ORR is significantly better than ORR at " + ", ".join(exceptions) + "."
    return REPRODUCED, f"No γ where M-ORR beats ORR by more than {z:g} paired standard errors."


def _pooled(diff):
    """Mean over γ of the per-γ mean differences and its standard error."""
    k = len(diff)
    return float(diff["mean"].mean()), float(np.sqrt((diff["se"] ** 2).sum()) / k)


def _check_morr_gap(table, runs, variant, claim):
    z = claim["z"]
    low, high = claim["gamma_range"]
    diff2 = paired_differences(runs, variant, 2, "ORR", "M-ORR")
    inside = diff2[(diff2["gamma"] >= low - 1e-9) & (diff2["gamma"] <= high + 1e-9)]
    ends = diff2[np.isclose(diff2["gamma"], 0.0) | np.isclose(diff2["gamma"], 1.0)]
    diff1 = paired_differences(runs, variant, 1, "ORR", "M-ORR")
    gap2, se2 = _pooled(inside)
    gap1, se1 = _pooled(diff1)
    significant = int((inside["mean"] > z * inside["se"]).sum())
    # "Essentially the same": within z paired standard errors or a practically negligible
    # share of the MSE itself.
    orr_at_ends = [_mean(table, variant, 2, g, "ORR") for g in ends["gamma"]]
    ends_tied = all(
        abs(d) <= z * s or abs(d) <= claim["equal_rel"] * m
        for d, s, m in zip(ends["mean"], ends["se"], orr_at_ends, strict=True)
    )
    end_values = ", ".join(
        f"{d:+.2f} ± {s:.2f}" for d, s in zip(ends["mean"], ends["se"], strict=True)
    )
    lines = (
        f"Experiment 2, γ ∈ [{low:g}, {high:g}]: mean M-ORR − ORR = {gap2:+.2f} ± {se2:.2f}"
        f" (pooled se), significant at {significant}/{len(inside)} γ values;"
        f" at γ = 0 and 1: {end_values}"
        f". Experiment 1, all γ: {gap1:+.2f} ± {se1:.2f}."
    )
    gap_visible = gap2 > z * se2
    exp1_equal = abs(gap1) <= z * se1 or abs(gap1) < 0.1 * abs(gap2)
    if gap_visible and exp1_equal and ends_tied:
        return REPRODUCED, lines
    if gap_visible:
        return PARTLY, lines
    if gap2 > 0:
        return INCONCLUSIVE, lines + (
            f" The gap has the claimed sign but is within {z:g} standard errors at"
            " this number of repetitions; run more repetitions to resolve it."
        )
    return NOT_REPRODUCED, lines + " M-ORR is not worse than ORR in experiment 2."


def _check_approach_krr(table, variant, claim):
    parts, ok = [], True
    for experiment in sorted(table["experiment"].unique()):
        krr0 = _mean(table, variant, experiment, 0.0, "KRR")
        krr1 = _mean(table, variant, experiment, 1.0, "KRR")
        for method in ("ORR", "M-ORR"):
            gap0 = _mean(table, variant, experiment, 0.0, method) - krr0
            gap1 = _mean(table, variant, experiment, 1.0, method) - krr1
            ratio = gap1 / gap0
            ok &= ratio <= claim["max_gap_ratio"]
            parts.append(
                f"exp {experiment} {method}: gap to KRR {gap0:.2f} at γ=0 → {gap1:.2f} at γ=1"
            )
    detail = "; ".join(parts) + (
        ". In experiment 1 a gap of order 1 remains at γ = 1 (KRR is at the noise floor):"
        " the cell means are estimated from ~31 points each."
    )
    return (REPRODUCED if ok else NOT_REPRODUCED), detail


def ridge_section(table, runs, best_constants, reference, primary_variant):
    """Markdown section comparing the ridge experiments with the paper (§7.2, Fig. 4)."""
    variants = list(dict.fromkeys(table["variant"]))
    out = ["## Ridge regression on oblivious features (paper §7.2, Fig. 4)", ""]
    n_reps = sorted(table["n_reps"].unique().tolist())
    out.append(
        f"Variants: {', '.join(variants)} (primary: `{primary_variant}`); repetitions per γ:"
        f" {', '.join(map(str, n_reps))}. Figure: `results/figures/oblivious_fig4.png`;"
        " table: `results/tables/ridge.csv`."
    )
    out += ["", "### Best S-independent MSE at γ = 0", ""]
    out.append(markdown_table(_best_constant_rows(best_constants, reference, variants)))
    out += [
        "",
        "The reproduced value is the closed form Var(S²)·c² + Var ε (c = 1, 2) for"
        " S ~ U[−5, 5], Var(S²) = 500/9. The paper's 56.2 and 224.8 are about 1% high:"
        " they follow from rounding E S² = 25/3 to 8.3 (125 − 8.3² + 0.1 = 56.21) and"
        " multiplying by 4.",
        "",
        "### Claims",
        "",
    ]
    claims = reference["claims"]
    for variant in variants:
        checks = [
            ("krr_best", _check_krr_best(table, runs, variant, claims["krr_best"])),
            (
                "close_to_best_constant",
                _check_close_to_constant(
                    table, best_constants, variant, claims["close_to_best_constant"]
                ),
            ),
            (
                "orr_at_most_morr",
                _check_orr_at_most_morr(table, runs, variant, claims["orr_at_most_morr"]),
            ),
            (
                "morr_gap_experiment_2",
                _check_morr_gap(table, runs, variant, claims["morr_gap_experiment_2"]),
            ),
            ("approach_krr", _check_approach_krr(table, variant, claims["approach_krr"])),
        ]
        out += [f"Variant `{variant}`:", ""]
        out += [_verdict_line(claims[key], verdict, detail) for key, (verdict, detail) in checks]
        out.append("")
    for variant in variants:
        for experiment in sorted(table["experiment"].unique()):
            out += [
                f"### Test MSE, experiment {experiment}, variant `{variant}` (mean ± sd)",
                "",
                markdown_table(ridge_wide(table, variant, experiment)),
                "",
            ]
    return "\n".join(out)


def illustration_section(summary, reference):
    """Markdown section for Fig. 2: dependence on S of h(X) and of ⟨h, Z⟩."""
    claim = reference["claims"]["uncorrelated"]
    out = ["## Illustration: raw vs oblivious features (paper §5, Fig. 2)", ""]
    out.append(markdown_table(summary))
    out.append("")
    ok, parts = True, []
    for setting, group in summary.groupby("setting", sort=False):
        raw = group[group["features"] == "raw"].iloc[0]
        obl = group[group["features"] == "oblivious"].iloc[0]
        ok &= abs(obl["corr_with_s"]) <= claim["max_abs_correlation"]
        ok &= obl["variance_explained_by_s"] < 0.25 * raw["variance_explained_by_s"]
        parts.append(
            f"{setting}: corr with S {raw['corr_with_s']:+.3f} → {obl['corr_with_s']:+.3f},"
            f" variance explained by S {raw['variance_explained_by_s']:.3f} →"
            f" {obl['variance_explained_by_s']:.3f}"
        )
    detail = "; ".join(parts) + (
        ". The conditional expectation is the plug-in estimate on a dyadic partition, so a"
        " small within-cell dependence remains."
    )
    out.append(_verdict_line(claim, REPRODUCED if ok else NOT_REPRODUCED, detail))
    return "\n".join(out) + "\n"


def assemble_report(sections):
    """results/report.md: a header explaining the verdicts, then the experiment sections."""
    header = [
        "# Paper vs reproduced",
        "",
        "Generated by `snakemake` from the aggregate tables and `config/paper_reference.yaml`.",
        "Verdicts are computed: **reproduced** (within the stated tolerance, or the claim holds),",
        "**partly reproduced** (holds with listed exceptions), **inconclusive** (the claimed",
        "effect has the right sign but is within the noise of the repetitions run), **not",
        "reproduced** (the measurement contradicts the paper; the reason is given where known).",
        "",
    ]
    return "\n".join(header) + "\n" + "\n\n".join(s.strip() + "\n" for s in sections)
