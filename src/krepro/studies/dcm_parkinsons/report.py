"""Paper vs reproduced for DCM Table 4 (UCI Parkinson's Telemonitoring): Table 4, the
verdicts, the report section and the summary job.

The paper's Table 4 numbers could not be retrieved from any available text, so every check
is of a *claim*, with paired per-split differences (same subject split, same landmarks) and
their standard errors; verdicts are computed, never typed in. Every method is compared with
the training-mean predictor; one verdict per (claim, reading), the primary reading marked,
and the evidence rule of ``config/paper_reference.yaml`` (``min_repetitions``) applied.
"""

from __future__ import annotations

import pandas as pd

from krepro.stats import paired
from krepro.studies.dcm_parkinsons.figures import plot_nystrom
from krepro.studies.dcm_parkinsons.run import (
    AXES,
    METHODS,
    aggregate,
    reading_name,
    sweep_table,
    tidy,
)
from krepro.studies.dcm_synthetic.readings import (
    checked_primary,
    classify_difference,
    count_outcomes,
    overall_verdict,
    readings_markdown,
    readings_of,
    select_reading,
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
from krepro.workflow.records import atomic_write_text, read_records

__all__ = ["parkinsons_section", "summary", "table4_markdown"]

PAPER = "dcm"


def table4_markdown(table):
    """Table 4: one row per (method, version), RMSE mean ± sd per target and fit times.

    ``table`` holds one reading (filter it first).
    """
    rows = []
    for (method, version), label in METHODS.items():
        part = table[(table["method"] == method) & (table["version"] == version)]
        if part.empty:
            continue
        row = {"method": label, "version": version}
        for target in ("motor", "total"):
            t = part[part["target"] == target]
            if not t.empty:
                row[f"{target} RMSE"] = f"{t['rmse_mean'].iloc[0]:.2f} ± {t['rmse_sd'].iloc[0]:.2f}"
        row["fit CPU s"] = float(part["fit_cpu_seconds"].mean())
        row["fit wall s"] = float(part["fit_wall_seconds"].mean())
        rows.append(row)
    return markdown_table(pd.DataFrame(rows), digits=4)


def _versus_mean(main, z):
    """Every learned method against the training-mean predictor, per target (paired)."""
    rows = []
    for key in sorted(set(main["key"]) - {"mean/baseline"}):
        # positive = the method's RMSE is lower than the mean predictor's
        for r in paired(main, ["target"], "key", key, "mean/baseline", "rmse").itertuples(
            index=False
        ):
            rows.append(
                {
                    "target": r.target,
                    "method": key,
                    "RMSE mean − method": r.mean,
                    "se": r.se,
                    "outcome": classify_difference(r.mean, r.se, z),
                }
            )
    return pd.DataFrame(rows)


def _parkinsons_reading(table, runs, reference, reading, *, is_primary, scale):
    """The verdicts of one reading and its rows for the Markdown body."""
    claims = reference["claims"]
    name = reading_name(reading)
    n_reps = int(table["n_reps"].min())
    main = runs[runs["version"] != "sweep"].copy()
    main["key"] = main["method"] + "/" + main["version"]
    keys = set(main["key"])

    def verdict(claim_id, value, detail, measured, tolerance, n=n_reps):
        return claim_verdict(
            reference,
            claim_id,
            value,
            detail,
            experiment="dcm_parkinsons",
            paper=PAPER,
            scale=scale,
            protocol=name,
            primary=is_primary,
            n_repetitions=n,
            paper_value="not available (qualitative claim)",
            measured=measured,
            tolerance=tolerance,
        )

    out = []
    # Every method against the training-mean predictor.
    z_mean = claims["informative"]["z"]
    versus = _versus_mean(main, z_mean) if "mean/baseline" in keys else pd.DataFrame()
    better = versus[versus["outcome"] == "better"] if not versus.empty else versus
    n_behind = int((versus["RMSE mean − method"] < 0).sum()) if not versus.empty else 0
    mean_rows = table[table["method"] == "mean"]
    means = ", ".join(f"{r.target} {r.rmse_mean:.2f}" for r in mean_rows.itertuples(index=False))
    all_lose = not versus.empty and better.empty
    if versus.empty:
        out.append(
            verdict("informative", INCONCLUSIVE, "No training-mean baseline was run.", "", "")
        )
    elif not better.empty:
        listed = ", ".join(f"{r.method} ({r.target})" for r in better.itertuples(index=False))
        out.append(
            verdict(
                "informative",
                REPRODUCED,
                f"Better than the training-mean predictor beyond {z_mean:g} paired se: {listed}.",
                f"{len(better)} of {len(versus)} method×target beat the mean",
                f"paired difference beyond {z_mean:g} se",
            )
        )
    else:
        out.append(
            verdict(
                "informative",
                NOT_REPRODUCED,
                f"No method predicts held-out subjects better than the training-mean predictor"
                f" (RMSE {means}); {n_behind} of {len(versus)} method×target have a higher"
                " mean RMSE than it. The cross-subject task is uninformative, so the method"
                " comparisons below rank methods by how little they hurt.",
                f"0 of {len(versus)} method×target beat the mean",
                f"paired difference beyond {z_mean:g} se",
            )
        )
    mean_note = (
        " All methods lose to (or tie with) the training-mean predictor under this reading, so"
        " this ranks methods by how little they hurt, not by how well they predict."
        if all_lose
        else ""
    )
    # DCM ahead of COIR and DICA.
    claim = claims["dcm_beats_baselines"]
    z = claim["z"]
    rows, outcomes = [], []
    for version in ("standard", "fast"):
        for other in ("coir", "dica"):
            a, b = f"{other}/{version}", f"dcm/{version}"
            if a not in keys or b not in keys:
                continue
            # positive = DCM has the lower RMSE (better)
            for r in paired(main, ["target"], "key", b, a, "rmse").itertuples(index=False):
                outcome = classify_difference(r.mean, r.se, z)
                outcomes.append(outcome)
                rows.append(
                    {
                        "target": r.target,
                        "comparison": f"RMSE {other.upper()} − DCM ({version})",
                        "difference": f"{r.mean:+.3f} ± {r.se:.3f}",
                        "outcome": f"DCM {outcome}" if outcome != "tie" else "tie",
                    }
                )
    wins, losses, ties = count_outcomes(outcomes)
    value = overall_verdict(outcomes)
    if all_lose and value == REPRODUCED:
        value = PARTLY
        mean_note += " The ranking holds, but no method is useful: partly reproduced at best."
    out.append(
        verdict(
            "dcm_beats_baselines",
            value,
            f"{wins} of {len(outcomes)} paired comparisons favour DCM beyond {z:g} se,"
            f" {losses} favour the baseline, {ties} within noise." + mean_note,
            f"{wins} better / {losses} worse / {ties} ties",
            f"paired difference beyond {z:g} se",
        )
    )
    # FastDCM as accurate as DCM.
    claim = claims["fast_as_accurate"]
    if {"dcm/standard", "dcm/fast"} <= keys:
        d = paired(main, ["target"], "key", "dcm/standard", "dcm/fast", "rmse")
        worse = d[d["mean"] > claim["z"] * d["se"]]
        measured = "; ".join(
            f"{r.target}: {r.mean:+.3f} ± {r.se:.3f}" for r in d.itertuples(index=False)
        )
        out.append(
            verdict(
                "fast_as_accurate",
                REPRODUCED if worse.empty else NOT_REPRODUCED,
                f"RMSE FastDCM − DCM (paired, mean ± se) {measured}; FastDCM counts as less"
                f" accurate beyond {claim['z']:g} se." + mean_note,
                measured,
                f"worse beyond {claim['z']:g} se",
            )
        )
    # Speed.
    claim = claims["fast_much_faster"]
    std = table[(table["method"] == "dcm") & (table["version"] == "standard")]
    fast = table[(table["method"] == "dcm") & (table["version"] == "fast")]
    if not std.empty and not fast.empty:
        ratio = float(std["fit_cpu_seconds"].mean() / max(fast["fit_cpu_seconds"].mean(), 1e-9))
        out.append(
            verdict(
                "fast_much_faster",
                REPRODUCED if ratio >= claim["min_speedup"] else NOT_REPRODUCED,
                f"DCM fit {std['fit_cpu_seconds'].mean():.2f} CPU s vs FastDCM"
                f" {1000 * fast['fit_cpu_seconds'].mean():.1f} CPU ms: {ratio:,.0f}×"
                f" (criterion ≥ {claim['min_speedup']:g}×).",
                f"{ratio:,.0f}×",
                f"≥ {claim['min_speedup']:g}×",
            )
        )
    summary = {
        **reading,
        "repetitions": n_reps,
        "methods beating the mean": f"{len(better)} of {len(versus)}",
        "DCM vs COIR/DICA": f"{wins}+ / {losses}− / {ties}=",
    }
    return out, summary, rows, versus, n_reps


def parkinsons_section(table, runs, sweep, reference, *, primary, scale):
    """Verdicts for Table 4 and the Nyström sweep (RMSE; lower is better), one per (claim,
    reading); every method is compared with the training-mean predictor.

    Parameters
    ----------
    table, runs, sweep : DataFrame
        Table 4, the tidy runs and the landmark sweep, with the reading columns ``centring``
        and ``svr_kernel``.
    reference : mapping
        ``dcm.parkinsons`` of ``config/paper_reference.yaml``.
    primary : mapping
        The primary reading (``dcm_parkinsons.primary`` of the config).
    scale : str
    """
    readings = readings_of(runs, AXES)
    flags = checked_primary(readings, primary, "dcm_parkinsons")
    verdicts, summaries, body = [], [], []
    for reading, is_primary in zip(readings, flags, strict=True):
        records, summary, rows, versus, n_reps = _parkinsons_reading(
            select_reading(table, reading),
            select_reading(runs, reading),
            reference,
            reading,
            is_primary=is_primary,
            scale=scale,
        )
        verdicts += records
        summaries.append(summary)
        if not is_primary:
            continue
        name = reading_name(reading)
        body += [
            f"Table 4 under the primary reading ({name}): RMSE on the held-out subjects,"
            f" mean ± sd over {n_reps} subject splits; fit times are the dimension-reduction"
            " fit only (the paper's numbers are not available).",
            "",
            table4_markdown(select_reading(table, reading)),
            "",
            "Every method against the training-mean predictor (paired per split; positive ="
            " the method predicts better than the mean):",
            "",
            markdown_table(versus) if not versus.empty else "(no mean baseline)",
            "",
            "DCM against COIR and DICA (paired per split, mean ± se):",
            "",
            markdown_table(pd.DataFrame(rows)),
            "",
        ]
    if sweep is not None and not sweep.empty:
        cells = sweep.assign(
            rmse=[
                f"{m:.2f} ± {s:.2f}"
                for m, s in zip(sweep["rmse_mean"], sweep["rmse_sd"], strict=True)
            ],
            cpu_ms=1000 * sweep["fit_cpu_seconds"],
        )[["target", "method", "n_landmarks", "rmse", "cpu_ms"]]
        body += ["Nyström landmark sweep (FastDCM, primary reading):", "", markdown_table(cells)]
    body = [
        "Summary per reading:",
        "",
        markdown_table(pd.DataFrame(summaries)),
        "",
        *body,
    ]
    intro = (
        f"Table 4: Parkinson's Telemonitoring, 29 training / 13 test subjects per split, under"
        f" {len(readings)} readings (kernel centring × ε-SVR kernel; config/README.md says why"
        " the primary one). Every method is compared with the training-mean predictor."
    )
    return Section(
        experiment="dcm_parkinsons",
        title="DCM — Parkinson's Telemonitoring (Table 4)",
        intro=intro,
        verdicts=verdicts,
        body="\n".join(body),
    )


def summary(job, log):
    """Job ``dcm_parkinsons_summary``: tidy run table, Table 4 (CSV, one row per reading ×
    target × method; Markdown, one table per reading), the landmark sweep and its figure, and
    the verdicts.

    The figure and the verdicts each read the tables back from the files just written, as
    separate jobs would.
    """
    out, params = job.output, job.params
    runs = tidy(read_records(job.input.runs))
    table = aggregate(runs)
    atomic_write_text(out.runs, runs.to_csv(index=False))
    atomic_write_text(out.table, table.to_csv(index=False))
    atomic_write_text(out.markdown, readings_markdown(table, AXES, table4_markdown) + "\n")
    atomic_write_text(out.sweep, sweep_table(runs).to_csv(index=False))

    plot_nystrom(pd.read_csv(out.sweep), pd.read_csv(out.table), out.figure)

    reference = paper_reference(job.input.reference, "dcm", "parkinsons")
    section = parkinsons_section(
        pd.read_csv(out.table),
        pd.read_csv(out.runs),
        pd.read_csv(out.sweep),
        reference,
        primary=params.primary,
        scale=params.scale,
    )
    write_section(section, out.json, out.md)
