"""Coverage study (distributed regression, Fig. 1 / Table 1): verdicts, report section and
the summary job.

:func:`tidy` and :func:`aggregate` (:mod:`krepro.studies.coverage.tables`, re-exported here)
make the per-repetition table and Table 1 in long form; the figures
(:mod:`krepro.studies.coverage.figures`) and the report section read that table and, for the
paired tests, the per-repetition table. (Kept apart from :mod:`krepro.studies.coverage.run`,
so that editing a table does not rerun the simulation's shards, whose rules hash that
module.)

Verdicts (:func:`coverage_verdicts`) are :class:`~krepro.studies.verdicts.Verdict` records, one
per (claim, reading). The readings are the two ambiguities of the protocol that the study
runs side by side: the penalty variant (ρ exponent 6/7 of the authors' code, primary; 8/9 as
the ablation) and the band (percentile, the authors' code, primary; basic, the paper's eqs.
(7)/(10)). They are readings, not separate claims: each is a way to carry out the one
simulation the paper describes. The accuracy claim does not involve the band, so its readings
are the variants only. Thresholds and the evidence rule come from the ``coverage`` section of
``config/paper_reference.yaml``; the paper's Table 1 values are not available in any
retrievable text, so its qualitative claims are checked, not numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import chi2

from krepro.studies.coverage.figures import plot_coverage, plot_coverage_heatmap, plot_rmse
from krepro.studies.coverage.run import BANDS, load_shards
from krepro.studies.coverage.tables import (
    BAND_LABELS,
    aggregate,
    full_repetitions,
    table1_markdown,
    table1_wide,
    tidy,
    variant_order,
)
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
from krepro.workflow.records import atomic_write_text

__all__ = [
    "BAND_LABELS",
    "aggregate",
    "cochran_q",
    "coverage_section",
    "coverage_verdicts",
    "summary",
    "table1_markdown",
    "table1_wide",
    "tidy",
    "variant_order",
]

# --------------------------------------------------------------------------- verdicts


def cochran_q(indicators):
    """Cochran's Q test that k paired binary outcomes have equal success probabilities.

    Parameters
    ----------
    indicators : array-like of shape (n_blocks, k)
        Rows are repetitions (blocks), columns the k settings compared (here: T values,
        which share the data of a repetition, so a test for independent samples is wrong).

    Returns
    -------
    q, p_value : float
        ``p_value = 1`` when every block is all-0 or all-1 (no information).
    """
    x = np.asarray(indicators, dtype=float)
    k = x.shape[1]
    columns, rows = x.sum(axis=0), x.sum(axis=1)
    total = rows.sum()
    denominator = k * total - np.sum(rows**2)
    if denominator <= 0:
        return 0.0, 1.0
    q = (k - 1) * (k * np.sum(columns**2) - total**2) / denominator
    return float(q), float(chi2.sf(q, k - 1))


def _check_t_independence(full, runs, variant, band, claim):
    partitions = sorted(int(p) for p in full["P"].unique())
    alpha = claim["alpha"] / len(partitions)  # Bonferroni over P
    part_runs = runs[runs["variant"] == variant]
    significant, large, parts, spreads = [], [], [], []
    for p in partitions:
        wide = part_runs[part_runs["P"] == p].pivot(
            index="repetition", columns="T", values=f"covered_{band}"
        )
        _, p_value = cochran_q(wide.to_numpy())
        coverage = wide.mean(axis=0)
        spread = float(coverage.max() - coverage.min())
        spreads.append(spread)
        parts.append(f"P = {p}: spread {spread:.3f}, p = {p_value:.2g}")
        if p_value < alpha:
            significant.append(p)
            if spread > claim["max_spread"]:
                large.append(p)
    detail = (
        "Coverage range over T and Cochran's Q test (paired: all T share a repetition's"
        f" data) per P — {'; '.join(parts)}. Criterion: a dependence on T counts where Q is"
        f" significant at {claim['alpha']:g} (Bonferroni over {len(partitions)} P) and the"
        f" spread exceeds {claim['max_spread']:g}."
    )
    measured = f"largest spread over T {max(spreads):.3f}; dependent at P = {large or 'none'}"
    if large:
        verdict = NOT_REPRODUCED if len(large) > len(partitions) / 2 else PARTLY
        return verdict, detail + f" Coverage depends on T at P = {large}.", measured
    if significant:
        detail += f" Significant but within {claim['max_spread']:g} at P = {significant}."
    return REPRODUCED, detail, measured


def _check_nominal_above(full, band, claim, nominal):
    part = full[(full["band"] == band) & (full["P"] >= claim["min_partitions"])]
    bold = part[part["bold"]]
    cells = ", ".join(
        f"(T = {t}, P = {p}: {c:.3f} {'below' if c < nominal else 'above'})"
        for t, p, c in zip(bold["T"], bold["P"], bold["coverage"], strict=True)
    )
    detail = (
        f"{len(bold)} of {len(part)} cells with P ≥ {claim['min_partitions']} exclude"
        f" {nominal:g} from their 99% Wilson interval"
        + (f": {cells}." if cells else ".")
        + f" Coverage there ranges {part['coverage'].min():.3f}–{part['coverage'].max():.3f}."
    )
    measured = f"{len(bold)} of {len(part)} cells exclude {nominal:g}"
    if len(bold) == 0:
        return REPRODUCED, detail, measured
    # Each of these cells excludes a true nominal coverage with probability ~1%.
    if len(bold) <= claim["max_bold_share"] * len(part):
        return PARTLY, detail, measured
    return NOT_REPRODUCED, detail, measured


def _check_below_nominal(full, band, claim, nominal):
    part = full[(full["band"] == band) & (full["P"] <= claim["max_partitions"])]
    per_p = {
        int(p): int((group["bold"] & (group["coverage"] < nominal)).sum())
        for p, group in part.groupby("P")
    }
    n_targets = part["T"].nunique()
    detail = (
        "Cells below nominal (99% interval excludes it) per P: "
        + ", ".join(f"P = {p}: {k} of {n_targets}" for p, k in per_p.items())
        + f"; coverage {part['coverage'].min():.3f}–{part['coverage'].max():.3f}."
    )
    measured = ", ".join(f"P = {p}: {k}/{n_targets} below" for p, k in per_p.items())
    hits = [p for p, k in per_p.items() if k > 0]
    if len(hits) == len(per_p):
        return REPRODUCED, detail, measured
    if hits:
        return PARTLY, detail, measured
    return NOT_REPRODUCED, detail + " Coverage meets the nominal level for these P too.", measured


def _rmse_by_partition(runs, variant):
    """RMSE at the largest T per P, with a delta-method standard error."""
    part = runs[(runs["variant"] == variant) & (runs["T"] == runs["T"].max())]
    stats = part.groupby("P")["squared_error"].agg(["mean", "std", "size"])
    rmse = np.sqrt(stats["mean"])
    se = stats["std"] / np.sqrt(stats["size"]) / (2 * rmse)
    return rmse, se


def _check_accuracy(runs, variant, claim):
    rmse, se = _rmse_by_partition(runs, variant)
    best = float(rmse.min())
    ratio = rmse / best
    # Standard error of the ratio, ignoring the (positive) correlation between P: generous.
    ratio_se = ratio * np.sqrt((se / rmse) ** 2 + float((se / rmse)[rmse.idxmin()]) ** 2)
    threshold = 1.0 + claim["decline_rel"]
    declined = [int(p) for p in ratio.index[ratio > threshold]]
    expected = [int(p) for p in ratio.index if p >= claim["first_decline"]]
    parts = ", ".join(f"P = {p}: {r:.4f} (×{q:.2f})" for p, r, q in
                      zip(rmse.index, rmse, ratio, strict=True))  # fmt: skip
    detail = (
        f'RMSE of f̄ at T = {runs["T"].max()} — {parts}. "Declines" = RMSE more than'
        f" {claim['decline_rel']:.0%} above the smallest over P."
    )
    measured = f"declines at P = {declined or 'none'}"
    uncertain = [int(p) for p in ratio.index if abs(ratio[p] - threshold) < 2 * ratio_se[p]]
    if uncertain:
        return (
            INCONCLUSIVE,
            detail + f" Within 2 se of the threshold at P = {uncertain}.",
            measured,
        )
    if declined == expected:
        return REPRODUCED, detail, measured
    first = min(declined) if declined else None
    grid = sorted(int(p) for p in ratio.index)
    near = first is not None and abs(grid.index(first) - grid.index(min(expected))) <= 1
    monotone = declined == [p for p in grid if p >= (first or np.inf)]
    if near and monotone:
        return PARTLY, detail + f" Accuracy declines from P = {first} on.", measured
    return NOT_REPRODUCED, detail + f" Declined at P = {declined or 'none'}.", measured


def coverage_verdicts(table, runs, reference, primary_variant, nominal, scale):
    """Verdict records of the coverage claims: one per (claim, reading).

    Parameters
    ----------
    table : DataFrame
        Long Table 1 (:func:`aggregate`).
    runs : DataFrame
        Per-repetition table (:func:`tidy`).
    reference : dict
        The ``coverage`` section of ``config/paper_reference.yaml``.
    primary_variant : str
        The penalty variant of the primary reading (with the percentile band).
    nominal : float
        Nominal coverage.
    scale : str
        The config's scale name.

    Returns
    -------
    list of Verdict
        Readings ``"<variant>, <band> band"`` for the three coverage claims, ``"<variant>"``
        for the accuracy claim; the primary reading is the primary variant's percentile band.
    """
    claims = reference["claims"]
    common = {"experiment": "coverage", "paper": "coverage", "scale": scale}
    checks = {
        "t_independence": lambda full, variant, band: _check_t_independence(
            full, runs, variant, band, claims["t_independence"]
        ),
        "nominal_above_128": lambda full, variant, band: _check_nominal_above(
            full, band, claims["nominal_above_128"], nominal
        ),
        "below_nominal_up_to_128": lambda full, variant, band: _check_below_nominal(
            full, band, claims["below_nominal_up_to_128"], nominal
        ),
    }
    records = []
    for claim_id, check in checks.items():
        for variant in variant_order(table, primary_variant):
            full = full_repetitions(table, variant)
            for band in BANDS:
                verdict, detail, measured = check(full, variant, band)
                records.append(
                    claim_verdict(
                        reference,
                        claim_id,
                        verdict,
                        detail,
                        **common,
                        protocol=f"{variant}, {band} band",
                        primary=variant == primary_variant and band == BANDS[0],
                        n_repetitions=int(full["n_reps"].max()),
                        paper_value=claims[claim_id].get("paper_value", ""),
                        measured=measured,
                    )
                )
    claim = claims["accuracy_declines"]
    for variant in variant_order(table, primary_variant):
        verdict, detail, measured = _check_accuracy(runs, variant, claim)
        records.append(
            claim_verdict(
                reference,
                "accuracy_declines",
                verdict,
                detail,
                **common,
                protocol=variant,
                primary=variant == primary_variant,
                n_repetitions=int(runs.loc[runs["variant"] == variant, "repetition"].max()) + 1,
                paper_value=f"declines from P = {claim['first_decline']}",
                measured=measured,
                tolerance=f"decline = RMSE > {1 + claim['decline_rel']:g} × best",
            )
        )
    return records


def _setup_rows(reference, settings):
    rows = []
    for key, entry in reference["setup"].items():
        ours = settings.get(key)
        paper = entry["value"]
        same = ours == paper or (
            isinstance(paper, float) and ours is not None and np.isclose(ours, paper)
        )
        rows.append(
            {
                "setting": key,
                "paper": paper,
                "this run": ours,
                "same": "yes" if same else "**no**",
                "source": entry["source"],
            }
        )
    return pd.DataFrame(rows)


def coverage_section(table, runs, reference, primary_variant, settings, *, scale):
    """The coverage study's report section: verdict records and supporting tables.

    Parameters
    ----------
    table : DataFrame
        Long Table 1 (:func:`aggregate`).
    runs : DataFrame
        Per-repetition table (:func:`tidy`).
    reference : dict
        The ``coverage`` section of ``config/paper_reference.yaml``.
    primary_variant : str
    settings : dict
        This run's values of the keys in ``reference["setup"]`` (e.g. n_samples).
    scale : str
        The config's scale name.

    Returns
    -------
    Section
    """
    nominal = float(settings["confidence_level"])
    verdicts = coverage_verdicts(table, runs, reference, primary_variant, nominal, scale)
    intro = "\n".join(
        [
            reference["values_note"].strip(),
            "",
            "Readings: the penalty variant (ρ exponent 6/7 of the authors' code, primary;"
            " 8/9 as the ablation) × the band (percentile = the authors' code, primary;"
            " basic = the paper's eqs. (7)/(10)). All (P, T) configurations of a repetition"
            " share its training sample and prediction set (smaller T are prefixes of the"
            " largest, finer partitions sub-blocks of the coarsest), and the penalty variants"
            " share them too. Each configuration sees the protocol's distribution;"
            " configurations are positively correlated (paired).",
        ]
    )
    primary = full_repetitions(table, primary_variant)
    body = [
        "### Setup: paper vs this run",
        "",
        markdown_table(_setup_rows(reference, settings)),
        "",
        f"### Table 1 analogue ({primary_variant}, percentile band, 99% Wilson intervals)",
        "",
        markdown_table(table1_wide(table, primary_variant, "percentile")),
        "",
        "### Diagnostics",
        "",
        "Median tail index i of the chosen band (per-side bootstrap tail probability"
        " c ≈ (i + 1)/B, eq. (11)) and mean joint bootstrap coverage, by T"
        f" ({primary_variant}, all P pooled):",
        "",
    ]
    diag = (
        primary[primary["band"] == BANDS[0]]
        .groupby("T")
        .agg(
            tail_index_median=("tail_index_median", "median"),
            bootstrap_coverage=("bootstrap_coverage_mean", "mean"),
        )
        .reset_index()
    )
    body += [markdown_table(diag, digits=4), ""]
    subsets = sorted(set(table["n_reps"]) - {int(primary["n_reps"].max())})
    if subsets:
        part = table[(table["variant"] == primary_variant) & (table["band"] == "percentile")]
        counts = part.groupby("n_reps")["bold"].sum()
        body += [
            "Cells excluding the nominal level (percentile band) with the first k"
            " repetitions: "
            + ", ".join(f"k = {k}: {int(counts[k])}" for k in sorted(counts.index))
            + ".",
            "",
        ]
    body += [
        "Figures: `figures/coverage_fig1.png` (coverage heat map, cells excluding"
        " the nominal level marked), `figures/coverage_fig1_lines.png` (coverage"
        " against log₂ P with Wilson bars), `figures/coverage_rmse.png` (RMSE); tables:"
        " `tables/coverage_table1.csv`, `tables/coverage_table1.md`.",
    ]
    return Section(
        experiment="coverage",
        title="Distributed regression: coverage of bootstrap bands (Avanesov, Fig. 1, Table 1)",
        intro=intro,
        verdicts=verdicts,
        body="\n".join(body),
    )


def summary(job, log):
    """Job ``coverage_summary``: per-repetition table, Table 1 (long CSV and the paper's
    layout), the coverage heat map (Fig. 1 analogue), coverage vs log2 P, RMSE vs P, and the
    verdicts.

    The figures and the verdicts each read the tables back from the files just written, as
    separate jobs would.
    """
    out, params = job.output, job.params
    shards = load_shards(job.input.shards)
    rho = {str(shard["variant"]): float(shard["setting_rho"]) for shard in shards}
    runs = tidy(shards)
    table = aggregate(runs, params.confidence_level, params.subsets, rho)
    atomic_write_text(out.runs, runs.to_csv(index=False))
    atomic_write_text(out.table, table.to_csv(index=False))
    atomic_write_text(out.markdown, table1_markdown(table, params.primary_variant))

    table = pd.read_csv(out.table)
    nominal, variant = params.confidence_level, params.primary_variant
    plot_coverage_heatmap(table, out.coverage, variant, nominal)
    plot_coverage(table, out.lines, variant, nominal)
    plot_rmse(table, out.rmse, variant)

    reference = paper_reference(job.input.reference, "coverage")
    section = coverage_section(
        pd.read_csv(out.table),
        pd.read_csv(out.runs),
        reference,
        variant,
        params.settings,
        scale=params.scale,
    )
    write_section(section, out.json, out.md)
