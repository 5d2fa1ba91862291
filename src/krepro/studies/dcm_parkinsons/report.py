"""Paper vs reproduced for DCM Table 4 (UCI Parkinson's Telemonitoring): the checks of the
paper's claims, the verdicts, the report section and the summary job.

The paper's Table 4 numbers could not be retrieved from any available text, so every check
is of a *claim*, judged by its logical form (:mod:`krepro.studies.claims`) from per-split
paired effects (same subject split, same landmarks): DCM ahead of COIR and DICA (superiority,
parts standard and fast, Holm within each), FastDCM as accurate as DCM (non-inferiority), FastDCM
at least 100× faster (superiority of the log speed-up), and the sanity check that some method
beats the training-mean predictor. One verdict per (claim, reading of the protocol,
:mod:`.readings`), the primary reading marked; verdicts are computed, never typed in.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from krepro.data.parkinsons import TARGETS
from krepro.records import read_records
from krepro.studies.claims import SOME, judge_claim
from krepro.studies.dcm_parkinsons import STUDY
from krepro.studies.dcm_parkinsons.figures import plot_nystrom
from krepro.studies.dcm_parkinsons.tables import (
    aggregate,
    main_runs,
    method_label,
    ranking_rows,
    sweep_cells,
    sweep_table,
    table4_markdown,
    tidy,
    versus_mean_rows,
)
from krepro.studies.families import deciding, member_counts, member_listing, merge_identical
from krepro.studies.judging import ClaimSet, Outcome, judge_readings
from krepro.studies.readings import counted_readings, readings_markdown, the_primary
from krepro.studies.render import read_tables, write_outputs, write_section
from krepro.studies.tables import markdown_table
from krepro.studies.verdicts import Section

__all__ = ["dcm_parkinsons_section", "dcm_parkinsons_verdicts", "summary"]

PAPER_VALUE = "not available (qualitative claim)"


def _outcome(claim, detail, result=None, stability=None, measured=""):
    """A check's outcome: judged (``result``), or inconclusive where there was nothing to judge."""
    fields = {
        "paper_value": PAPER_VALUE,
        "tolerance": f"{claim.get('test', 'parts')}, margin {claim.get('margin', 'parts')}",
    }
    if result is None:
        return Outcome.inconclusive(detail, **fields)
    return Outcome(detail, result, stability, measured=measured, **fields)


def _wide(main, value):
    """``value`` per (target, repetition) × key (``method/version``), complete splits only."""
    wide = main.pivot_table(index=["target", "repetition"], columns="key", values=value)
    return wide.sort_index()


def _relative_gain(wide, worse, better):
    """Per target: (value[worse] − value[better]) / mean value[worse], per repetition."""
    out = {}
    for target in [t for t in TARGETS if t in wide.index.get_level_values("target")]:
        part = wide.xs(target, level="target").dropna(subset=[worse, better])
        if len(part):
            out[target] = ((part[worse] - part[better]) / part[worse].mean()).to_numpy()
    return out


# The checks read one reading's Table 4 runs (:func:`.tables.main_runs`).


def _informative(main, claim, seed):
    """Sanity check: some learned method beats the training-mean predictor (relative RMSE)."""
    wide = _wide(main, "rmse")
    if "mean/baseline" not in wide.columns:
        return _outcome(claim, "No training-mean baseline was run.")
    values, merged = {}, []
    for target in TARGETS:
        series = {}
        for key in [k for k in wide.columns if k != "mean/baseline"]:
            gains = _relative_gain(wide, "mean/baseline", key)
            if target in gains:
                series[method_label(key)] = gains[target]
        kept, groups = merge_identical(series, claim["identical_tol"])
        values.update({f"{target}, {name}": v for name, v in kept.items()})
        merged += [f"{target}: {' = '.join(names)}" for names, _, _ in groups]
    if not values or len({len(v) for v in values.values()}) != 1:
        return _outcome(claim, "No learned method with the baseline's splits was run.")
    result, stability = judge_claim(claim, values, seed=seed, rule=SOME)
    same = f" Counted once (same RMSEs): {'; '.join(merged)}." if merged else ""
    detail = (
        "(RMSE(training mean) − RMSE(method)) / mean RMSE(training mean), paired per split,"
        f" superiority (margin {claim['margin']:g}) for each of {len(values)} (target, method)"
        " with Holm; the check asks for some method that predicts held-out subjects better"
        f" than the training mean.{same} Members: {member_listing(result.members)}."
        f" {deciding(result)}"
    )
    return _outcome(claim, detail, result, stability, member_counts(result.members))


def _beats_baselines(main, claim, seed):
    """DCM ahead of COIR and DICA: parts standard and fast, each over (target, baseline)."""
    wide = _wide(main, "rmse")
    values, merged = {}, []
    for version in claim["parts"]:
        dcm = f"dcm/{version}"
        part = {}
        for target in TARGETS:
            series = {}
            for other in ("coir", "dica"):
                key = f"{other}/{version}"
                if dcm in wide.columns and key in wide.columns:
                    gains = _relative_gain(wide, key, dcm)
                    if target in gains:
                        series[other.upper()] = gains[target]
            kept, groups = merge_identical(series, claim["identical_tol"])
            part.update({f"{target}, {name}": v for name, v in kept.items()})
            merged += [f"{version} {target}: {' = '.join(n)}" for n, _, _ in groups]
        values[version] = part
    if any(not part for part in values.values()):
        missing = ", ".join(version for version, part in values.items() if not part)
        return _outcome(
            claim, f"The runs hold no DCM vs COIR/DICA comparison of the {missing} version."
        )
    result, stability = judge_claim(claim, values, seed=seed)
    same = f" Counted once (same RMSEs): {'; '.join(merged)}." if merged else ""
    margins = ", ".join(f"{part}: {entry['margin']:g}" for part, entry in claim["parts"].items())
    parts = member_listing(
        result.members,
        template="{name}: {word} (deciding effect {effect:+.3g}, [{low:.3g}, {high:.3g}])",
    )
    detail = (
        "(RMSE(baseline) − RMSE(DCM)) / mean RMSE(baseline), paired per split, superiority"
        f" (margins {margins})"
        " per (target, baseline) with Holm within each part (standard: DCM vs COIR, DICA;"
        f" fast: FastDCM vs FastCOIR, FastDICA).{same} Parts: {parts}."
        f" {deciding(result, 'part')} The comparison of every method with the training-mean"
        " predictor is the `informative` check."
    )
    return _outcome(claim, detail, result, stability, parts)


def _fast_as_accurate(main, claim, seed):
    wide = _wide(main, "rmse")
    if not {"dcm/standard", "dcm/fast"} <= set(wide.columns):
        return _outcome(claim, "FastDCM or standard DCM was not run.")
    # (RMSE_standard − RMSE_fast) / mean RMSE_standard: the relative gain of fast.
    values = _relative_gain(wide, "dcm/standard", "dcm/fast")
    result, stability = judge_claim(claim, values, seed=seed)
    detail = (
        "(RMSE(DCM) − RMSE(FastDCM)) / mean RMSE(DCM), paired per split, non-inferiority:"
        f" FastDCM at most {claim['margin']:g} of the RMSE worse, per target, Holm over the"
        f" targets. Targets: {member_listing(result.members)}. {deciding(result, 'target')}"
    )
    return _outcome(claim, detail, result, stability, member_counts(result.members))


def _fast_much_faster(main, claim, seed):
    cpu = _wide(main, "fit_cpu_seconds")
    if not {"dcm/standard", "dcm/fast"} <= set(cpu.columns):
        return _outcome(claim, "FastDCM or standard DCM was not run.")
    floor = claim["timer_resolution"]
    values = {}
    for target in [t for t in TARGETS if t in cpu.index.get_level_values("target")]:
        part = cpu.xs(target, level="target").dropna(subset=["dcm/standard", "dcm/fast"])
        ratio = np.maximum(part["dcm/standard"], floor) / np.maximum(part["dcm/fast"], floor)
        values[target] = np.log(ratio.to_numpy()) - np.log(claim["min_speedup"])
    result, stability = judge_claim(claim, values, seed=seed)
    means = cpu[["dcm/standard", "dcm/fast"]].mean()
    speedups = "; ".join(
        f"{target}: {np.exp(j.effect) * claim['min_speedup']:,.0f}× (geometric mean)"
        for target, j in result.members.items()
    )
    detail = (
        f"log(CPU s of the DCM fit / CPU s of the FastDCM fit) − log {claim['min_speedup']:g},"
        " paired per split, superiority per target with Holm (the speed-up is at least"
        f" {claim['min_speedup']:g}×). DCM {means['dcm/standard']:.2f} CPU s vs FastDCM"
        f" {1000 * means['dcm/fast']:.1f} CPU ms on average; {speedups}. Targets:"
        f" {member_listing(result.members)}. {deciding(result, 'target')} CPU times depend on"
        " the machine (its BLAS, its load): the speed-up is that of the machine that ran the"
        " fits."
    )
    return _outcome(claim, detail, result, stability, speedups)


#: The study's checks, in the order of its records.
CHECKS = {
    "informative": _informative,
    "dcm_beats_baselines": _beats_baselines,
    "fast_as_accurate": _fast_as_accurate,
    "fast_much_faster": _fast_much_faster,
}


def dcm_parkinsons_verdicts(table, runs, reference, readings, *, scale):
    """Verdicts for Table 4 (RMSE; lower is better), one per (claim, reading).

    Parameters
    ----------
    table, runs : DataFrame
        Table 4 (:func:`.tables.aggregate`) and the tidy runs, with the reading columns
        ``centring`` and ``svr_kernel``.
    reference : mapping
        ``dcm.parkinsons`` of ``config/paper_reference.yaml``.
    readings : list of Reading
        The study's readings (:func:`.readings.readings`); those without runs are left out.
    scale : str

    Returns
    -------
    list of Verdict
        Every claim of the first reading first.

    Raises
    ------
    ValueError
        When the runs do not hold the primary reading.
    """
    return judge_readings(
        ClaimSet(STUDY.name, STUDY.paper.key, reference, scale),
        CHECKS,
        counted_readings(readings, runs, table),
        lambda reading: main_runs(reading.select(runs)),
    )


def dcm_parkinsons_section(table, runs, sweep, reference, readings, *, scale):
    """The report section of Table 4 and the Nyström sweep: :func:`dcm_parkinsons_verdicts`, a
    summary row per reading, and the primary reading's tables, where every method is compared
    with the training-mean predictor (``sweep``: :func:`.tables.sweep_table`, or ``None``;
    the other parameters as there)."""
    readings = counted_readings(readings, runs, table)
    verdicts = dcm_parkinsons_verdicts(table, runs, reference, readings, scale=scale)
    summaries = [
        {
            **reading.axes,
            "repetitions": reading.repetitions,
            **{v.claim_id: v.verdict for v in verdicts if v.protocol == reading.name},
        }
        for reading in readings
    ]
    primary = the_primary(readings)
    main = main_runs(primary.select(runs))
    versus = versus_mean_rows(main)
    body = [
        "Summary per reading:",
        "",
        markdown_table(pd.DataFrame(summaries)),
        "",
        f"Table 4 under the primary reading ({primary.name}): RMSE on the held-out subjects,"
        f" mean ± sd over {primary.repetitions} subject splits; fit times are the"
        " dimension-reduction fit only (the paper's numbers are not available).",
        "",
        table4_markdown(primary.select(table)),
        "",
        "Every method against the training-mean predictor (paired per split, mean ± se;"
        " positive = the method predicts better than the mean):",
        "",
        markdown_table(versus) if not versus.empty else "(no mean baseline)",
        "",
        "DCM against COIR and DICA (paired per split, mean ± se):",
        "",
        markdown_table(ranking_rows(main)),
        "",
    ]
    if sweep is not None and not sweep.empty:
        body += [
            "Nyström landmark sweep (FastDCM, primary reading):",
            "",
            markdown_table(sweep_cells(sweep)),
        ]
    intro = (
        f"Table 4: Parkinson's Telemonitoring, 29 training / 13 test subjects per split, under"
        f" {len(readings)} readings (kernel centring × ε-SVR kernel; config/README.md says why"
        " the primary one). Every method is compared with the training-mean predictor."
    )
    return Section(
        experiment=STUDY.name,
        title="DCM — Parkinson's Telemonitoring (Table 4)",
        intro=intro,
        verdicts=verdicts,
        body="\n".join(body),
    )


def summary(job, log):
    """Job ``dcm_parkinsons_summary``: tidy run table, Table 4 (CSV, one row per reading ×
    target × method; Markdown, one table per reading), the landmark sweep and its figure, and
    the verdicts."""
    out, params = job.output, job.params
    runs = tidy(read_records(job.input.runs))
    table = aggregate(runs)
    markdown = readings_markdown(table, params.readings, table4_markdown) + "\n"
    write_outputs(out, runs=runs, table=table, markdown=markdown, sweep=sweep_table(runs))
    table, runs, sweep = read_tables(out, "table", "runs", "sweep")
    plot_nystrom(sweep, table, out.figure)
    section = dcm_parkinsons_section(
        table, runs, sweep, params.reference, params.readings, scale=params.scale
    )
    write_section(section, out.json, out.md)
