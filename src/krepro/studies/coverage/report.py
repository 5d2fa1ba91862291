"""Coverage study (distributed regression, Fig. 1 / Table 1): verdicts, report section and
the summary job.

Verdicts (:func:`coverage_verdicts`) are :class:`~krepro.studies.verdicts.Verdict` records, one
per (claim, reading). The readings (:mod:`krepro.studies.coverage.readings`) are the two
ambiguities of the protocol that the study runs side by side: the penalty variant (ρ exponent
6/7 of the authors' code, primary; 8/9 as the ablation) and the band (percentile, the authors'
code, primary; basic, the paper's eqs. (7)/(10)). They are readings, not separate claims:
each is a way to carry out the one simulation the paper describes. The accuracy claim does
not involve the band, so its readings are the variants only.

Each claim is tested by the logical form its entry in ``config/paper_reference.yaml`` states
(``test``, ``margin``, ``alpha``, or named ``parts``), from the per-repetition table
(:class:`Repetitions`): the effects are paired (all settings of a repetition share its data),
families of settings are Holm-adjusted, and the stability is the share of 200 bootstrap
resamples of the repetitions that give the same verdict. Coverage effects are means of 0/1
indicators, whose t-intervals are sound at the paper's 2000 repetitions; their variance is
floored (Agresti–Coull, :func:`krepro.stats.agresti_coull_sd`) so that few, all-alike
repetitions do not give zero-width intervals. The paper's Table 1 values are not available in
any retrievable text, so its qualitative claims are tested, not numbers.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable

import numpy as np

from krepro.stats import agresti_coull_sd, cochran_q, floored_deviation_sd, rmse_ratio
from krepro.studies.claims import (
    EVERY,
    PARTS,
    ClaimTest,
    Effect,
    combine,
    combine_family,
    combine_parts,
    family_verdict,
    judge_family,
    member_word,
    stability,
)
from krepro.studies.coverage.figures import plot_coverage, plot_coverage_heatmap, plot_rmse
from krepro.studies.coverage.readings import BANDS, variant_readings
from krepro.studies.coverage.run import load_shards
from krepro.studies.coverage.tables import (
    aggregate,
    diagnostics_by_t,
    full_repetitions,
    setup_rows,
    table1_markdown,
    table1_wide,
    tidy,
)
from krepro.studies.families import deciding
from krepro.studies.judging import ClaimSet, Outcome, judge_readings
from krepro.studies.readings import the_primary
from krepro.studies.render import read_tables, write_outputs, write_section
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import INCONCLUSIVE, VERDICTS, Section, judgement_detail

__all__ = ["Repetitions", "coverage_section", "coverage_verdicts", "summary"]

# --------------------------------------------------------------------------- verdicts


@dataclasses.dataclass(frozen=True)
class Repetitions:
    """The repetitions of one reading as one paired matrix: what its checks read.

    Attributes
    ----------
    partitions, targets : tuple of int
        The P and T grids (ascending).
    covered : ndarray of shape (n, len(partitions), len(targets))
        Coverage indicators of the reading's band per repetition.
    squared_error : ndarray of shape (n, len(partitions))
        ‖f̄ − f*‖²/T at the largest T per repetition (the RMSE's base).
    nominal : float
        Nominal coverage.
    """

    partitions: tuple
    targets: tuple
    covered: np.ndarray
    squared_error: np.ndarray
    nominal: float

    @classmethod
    def of(cls, runs, reading, nominal):
        """The rows of ``reading`` in the per-repetition table (:func:`tidy`); a reading
        without a band reads the primary band's indicators."""
        part = reading.select(runs).sort_values(["repetition", "P", "T"])
        band = reading.axes.get("band", BANDS[0])
        partitions = tuple(int(p) for p in sorted(part["P"].unique()))
        targets = tuple(int(t) for t in sorted(part["T"].unique()))
        shape = (-1, len(partitions), len(targets))
        covered = part[f"covered_{band}"].to_numpy(dtype=float).reshape(shape)
        error = part["squared_error"].to_numpy(dtype=float).reshape(shape)[:, :, -1]
        return cls(partitions, targets, covered, error, float(nominal))

    def matrix(self) -> np.ndarray:
        """Rows: repetitions; columns: every (P, T) indicator, then every P's squared error."""
        n = self.covered.shape[0]
        return np.hstack([self.covered.reshape(n, -1), self.squared_error])

    def split(self, rows):
        """Inverse of :meth:`matrix` (for a resample of its rows)."""
        cells = len(self.partitions) * len(self.targets)
        covered = rows[:, :cells].reshape(-1, len(self.partitions), len(self.targets))
        return covered, rows[:, cells:]


@dataclasses.dataclass(frozen=True)
class _Family:
    """A family of settings: its test, member names, and their effects from the repetitions.

    ``effects`` maps a (resampled) row matrix of :meth:`Repetitions.matrix` to one
    :class:`~krepro.studies.claims.Effect` per member, so that the bootstrap recomputes every
    effect from resampled repetitions (all settings resampled together: they are paired).
    """

    test: ClaimTest
    names: tuple
    effects: Callable


def _effects(means, sds, n):
    return [Effect(float(m), float(s), n) for m, s in zip(means, sds, strict=True)]


def _family_text(family):
    """Counts of the members' verdicts, the deciding member, and what undecided ones need."""
    counts = Counter(j.verdict for j in family.members.values())
    text = ", ".join(f"{counts[v]} {member_word(v)}" for v in VERDICTS if counts[v])
    undecided = [j for j in family.members.values() if j.verdict == INCONCLUSIVE]
    needed = [j.needed_repetitions for j in undecided]
    if undecided and all(k is not None for k in needed):
        text += f"; the undecided settings would need up to about {max(needed)} repetitions"
    return text


def _judge(what, families, context, seed, measured):
    """The outcome of a claim over its families of one reading, with its stability.

    Each family is judged with Holm over its members and rule ``every``; a claim with named
    parts has one family per part (not one named ``""``), combined by
    :func:`krepro.studies.claims.combine_parts`. The bootstrap resamples whole repetitions
    (rows of :meth:`Repetitions.matrix`: every setting of a repetition together).
    """
    parts = "" not in families
    data = context.matrix()
    judged = {}
    for name, family in families.items():
        effects = dict(zip(family.names, family.effects(data), strict=True))
        judged[name] = combine_family(family.test, judge_family(family.test, effects), EVERY)
    result = combine_parts(judged) if parts else judged[""]

    def verdict_of(rows):
        verdicts = [family_verdict(f.test, f.effects(rows), EVERY) for f in families.values()]
        return combine(PARTS, verdicts) if parts else verdicts[0]

    if not parts:
        detail = (
            f"{what} {len(result.members)} settings (Holm): {_family_text(result)}."
            f" {deciding(result, 'setting')}"
        )
    else:
        texts = "; ".join(
            f"{name}: {member_word(family.verdict)}"
            f" ({len(family.members)} settings: {_family_text(family)})"
            for name, family in judged.items()
        )
        detail = (
            f"{what} Parts — {texts}. Deciding part ({result.deciding}), setting"
            f" {judged[result.deciding].deciding}: {judgement_detail(result.judgement)}"
        )
    return Outcome(
        detail,
        result,
        stability=stability(data, verdict_of, seed=seed, all_at_once=True),
        measured=measured,
    )


def _p_index(context, predicate):
    return [k for k, p in enumerate(context.partitions) if predicate(p)]


def _coverage_family(context, test, indices, sign):
    """Coverage − nominal (``sign`` +1) or nominal − coverage (−1) of every (P, T) cell of the
    partitions ``indices``: the t-interval of the mean 0/1 indicator with the Agresti–Coull
    variance (:func:`krepro.stats.agresti_coull_sd`)."""
    n_t = len(context.targets)
    names = tuple(f"P = {context.partitions[i]}, T = {t}" for i in indices for t in context.targets)
    columns = [i * n_t + j for i in indices for j in range(n_t)]

    def effects(rows):
        covered, _ = context.split(rows)
        flat = covered.reshape(covered.shape[0], -1)[:, columns]
        n, successes = flat.shape[0], flat.sum(axis=0)
        return _effects(sign * (successes / n - context.nominal), agresti_coull_sd(successes, n), n)

    return _Family(test, names, effects)


def _ratio_family(context, test, indices, sign, shift=0.0):
    """``sign · (RMSE(P)/RMSE(smallest P) − 1) − shift`` of the partitions ``indices``, with
    paired delta-method spreads (:func:`krepro.stats.rmse_ratio`)."""
    names = tuple(f"P = {context.partitions[i]} vs {context.partitions[0]}" for i in indices)

    def effects(rows):
        _, error = context.split(rows)
        ratio, sd = rmse_ratio(error, 0, indices)
        return _effects(sign * (ratio - 1.0) - shift, sd, error.shape[0])

    return _Family(test, names, effects)


def _part_test(claim, part):
    return ClaimTest.from_reference({"alpha": claim.get("alpha", 0.05), **claim["parts"][part]})


def _coverage_range(context, indices):
    values = context.covered[:, indices].mean(axis=0)
    return f"{values.min():.3f}–{values.max():.3f}"


def _ratio_text(context):
    error = context.squared_error.mean(axis=0)
    ratio = np.sqrt(error / error[0])
    return ", ".join(f"{p}: {r:.2f}" for p, r in zip(context.partitions, ratio, strict=True))


def _check_t_independence(context, claim, seed):
    if len(context.targets) < 2:
        return None
    names = tuple(f"P = {p}, T = {t}" for p in context.partitions for t in context.targets)

    def effects(rows):
        # covered(T) − its mean over T at the same P, per repetition (floored sd).
        covered, _ = context.split(rows)
        deviation = covered - covered.mean(axis=2, keepdims=True)
        sd = floored_deviation_sd(deviation)
        return _effects(deviation.mean(axis=0).ravel(), sd.ravel(), len(covered))

    deviation = context.covered.mean(axis=0) - context.covered.mean(axis=(0, 2))[:, None]
    i, j = np.unravel_index(np.argmax(np.abs(deviation)), deviation.shape)
    return _judge(
        "Coverage at T minus the coverage averaged over T at the same P, per repetition"
        " (paired: every T shares a repetition's data), over every (P, T):",
        {"": _Family(ClaimTest.from_reference(claim), names, effects)},
        context,
        seed,
        f"largest deviation from the T-average {deviation[i, j]:+.4f}"
        f" (P = {context.partitions[i]}, T = {context.targets[j]})",
    )


def _check_nominal_above(context, claim, seed):
    least = claim["min_partitions"]
    indices = _p_index(context, lambda p: p >= least)
    if not indices:
        return None
    family = _coverage_family(context, ClaimTest.from_reference(claim), indices, sign=1.0)
    return _judge(
        f"Coverage − {context.nominal:g} per (P, T) cell with P ≥ {least}:",
        {"": family},
        context,
        seed,
        f"coverage {_coverage_range(context, indices)} for P ≥ {least}",
    )


def _check_below_nominal(context, claim, seed):
    families, ranges = {}, []
    for part, entry in claim["parts"].items():
        indices = _p_index(context, lambda p, q=entry["partitions"]: p == q)
        if not indices:
            return None
        test = _part_test(claim, part)
        families[part] = _coverage_family(context, test, indices, sign=-1.0)
        ranges.append(f"P = {entry['partitions']}: {_coverage_range(context, indices)}")
    return _judge(
        f"{context.nominal:g} − coverage per (P, T) cell, one part per P (Holm over T within"
        " each):",
        families,
        context,
        seed,
        "; ".join(ranges),
    )


def _check_accuracy(context, claim, seed):
    threshold = float(claim["parts"]["no_decline"]["margin"])
    first, smallest = claim["first_decline"], context.partitions[0]
    flat = _p_index(context, lambda p: smallest < p < first)
    declined = _p_index(context, lambda p: p >= first)
    if not flat or not declined:
        return None
    families = {
        "no_decline": _ratio_family(context, _part_test(claim, "no_decline"), flat, sign=-1.0),
        "declines": _ratio_family(
            context, _part_test(claim, "declines"), declined, sign=1.0, shift=threshold
        ),
    }
    return _judge(
        f"RMSE of f̄ at T = {context.targets[-1]} relative to the smallest P ({smallest}),"
        f" paired delta-method intervals: no_decline = 1 − ratio for {smallest} < P < {first};"
        f" declines = ratio − {1 + threshold:g} for P ≥ {first}.",
        families,
        context,
        seed,
        f"RMSE ratio to the smallest P — {_ratio_text(context)}",
    )


def _check_summary(context, claim, seed):
    low, high = claim["partitions"]
    indices = _p_index(context, lambda p: low <= p <= high)
    ratio = [i for i in indices if i > 0]
    if not indices or not ratio:
        return None
    families = {
        "coverage": _coverage_family(context, _part_test(claim, "coverage"), indices, sign=1.0),
        "accuracy": _ratio_family(context, _part_test(claim, "accuracy"), ratio, sign=-1.0),
    }
    return _judge(
        f"For {low} ≤ P ≤ {high} and every T: coverage = coverage − {context.nominal:g} per"
        f" (P, T); accuracy = 1 − RMSE(P)/RMSE({context.partitions[0]}) at"
        f" T = {context.targets[-1]}.",
        families,
        context,
        seed,
        f"coverage {_coverage_range(context, indices)}; RMSE ratio"
        f" {_ratio_text(context).split(', ', 1)[-1]}",
    )


# Claims judged per (variant, band) reading, and per variant (the band plays no part).
BAND_CHECKS = {
    "t_independence": _check_t_independence,
    "nominal_above_128": _check_nominal_above,
    "below_nominal_up_to_128": _check_below_nominal,
    "summary_wide_range": _check_summary,
}
VARIANT_CHECKS = {"accuracy_declines": _check_accuracy}


def coverage_verdicts(runs, reference, readings, nominal, scale):
    """Verdict records of the coverage claims: one per (claim, reading).

    Parameters
    ----------
    runs : DataFrame
        Per-repetition table (:func:`~krepro.studies.coverage.tables.tidy`): every claim is
        judged from its repetitions.
    reference : dict
        The ``coverage`` section of ``config/paper_reference.yaml``.
    readings : list of Reading
        The (variant, band) readings (:func:`krepro.studies.coverage.readings.readings`), in
        the records' order.
    nominal : float
        Nominal coverage.
    scale : str
        The config's scale name.

    Returns
    -------
    list of Verdict
        Claim by claim: the claims about coverage under every (variant, band) reading, then
        the accuracy claim under every variant
        (:func:`~krepro.studies.coverage.readings.variant_readings`).
    """
    claims = ClaimSet(
        "coverage",
        "coverage",
        reference,
        scale,
        no_data="The runs hold none of the settings this claim is about (see"
        " `coverage.partitions` and `coverage.targets`).",
        reference_paper_values=True,
    )

    def context_of(reading):
        return Repetitions.of(runs, reading, nominal)

    return judge_readings(
        claims, BAND_CHECKS, readings, context_of, order="claim"
    ) + judge_readings(
        claims, VARIANT_CHECKS, variant_readings(readings), context_of, order="claim"
    )


def coverage_section(table, runs, reference, readings, settings, *, scale):
    """The coverage study's report section: the verdicts of :func:`coverage_verdicts` (same
    ``runs``, ``reference``, ``readings`` and ``scale``, the nominal coverage from ``settings``)
    and supporting tables from ``table``, the long Table 1 (:func:`aggregate`), and
    ``settings``, this run's values of the keys in ``reference["setup"]`` (e.g. n_samples)."""
    nominal = float(settings["confidence_level"])
    verdicts = coverage_verdicts(runs, reference, readings, nominal, scale)
    primary_variant = the_primary(readings).axes["variant"]
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
            " configurations are positively correlated (paired), so every claim is judged"
            " from paired per-repetition effects.",
        ]
    )
    primary = full_repetitions(table, primary_variant)
    body = [
        "### Setup: paper vs this run",
        "",
        markdown_table(setup_rows(reference, settings)),
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
    body += [markdown_table(diagnostics_by_t(primary), digits=4), ""]
    repetitions = Repetitions.of(runs, the_primary(readings), nominal)
    q_values = ", ".join(
        f"P = {p}: {cochran_q(repetitions.covered[:, k])[1]:.2g}"
        for k, p in enumerate(repetitions.partitions)
    )
    body += [
        "Cochran's Q p-values for any dependence of the coverage on T (percentile band; a"
        " diagnostic: `t_independence` is judged by its equivalence test): " + q_values + ".",
        "",
    ]
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
    verdicts."""
    out, params = job.output, job.params
    nominal = params.confidence_level
    variant = the_primary(params.readings).axes["variant"]
    shards = load_shards(job.input.shards)
    rho = {str(shard["variant"]): float(shard["setting_rho"]) for shard in shards}
    runs = tidy(shards)
    table = aggregate(runs, params.confidence_level, params.subsets, rho)
    write_outputs(out, runs=runs, table=table, markdown=table1_markdown(table, variant))
    table, runs = read_tables(out, "table", "runs")
    plot_coverage_heatmap(table, out.coverage, variant, nominal)
    plot_coverage(table, out.lines, variant, nominal)
    plot_rmse(table, out.rmse, variant)
    section = coverage_section(
        table, runs, params.reference, params.readings, params.settings, scale=params.scale
    )
    write_section(section, out.json, out.md)
