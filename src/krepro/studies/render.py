"""Renderings of :class:`~krepro.studies.verdicts.Verdict` records: Markdown sections, the
scorecard at the top of ``report.md``, and an HTML summary for ``snakemake --report``."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from krepro.records import atomic_write_text
from krepro.studies.verdicts import (
    HEADLINE_KINDS,
    INCONCLUSIVE,
    KINDS,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    ROBUSTNESS,
    VERDICTS,
    Section,
    Verdict,
    assign_robustness,
)

__all__ = [
    "assemble_report",
    "read_tables",
    "readings_table",
    "render_section",
    "scorecard",
    "summary_html",
    "verdict_line",
    "write_outputs",
    "write_section",
]


def verdict_line(verdict: Verdict, *, with_protocol: bool = False) -> str:
    """One Markdown bullet: verdict, claim, source, then the detail on the next line."""
    reading = f" [{verdict.protocol}]" if with_protocol else ""
    robustness = f", {verdict.robustness}" if verdict.robustness != "single" else ""
    evidence = ""
    if verdict.n_repetitions is not None:
        evidence = f"; {verdict.n_repetitions} repetitions"
    if verdict.stability is not None:
        evidence += f"; stability {verdict.stability:.2f}"
    return (
        f"- **{verdict.verdict}**{reading} — {verdict.claim} *({verdict.source}{robustness}"
        f"{evidence})*\n  {verdict.detail.strip()}"
    )


def readings_table(verdicts: Sequence[Verdict]) -> str:
    """Markdown readings × claims table; empty when the experiment has a single reading."""
    readings = list(dict.fromkeys(v.protocol for v in verdicts))
    if len(readings) <= 1:
        return ""
    claims = list(dict.fromkeys(v.claim_id for v in verdicts))
    primary = {v.protocol for v in verdicts if v.primary}
    cell = {(v.protocol, v.claim_id): v.verdict for v in verdicts}
    header = "| reading | " + " | ".join(f"`{c}`" for c in claims) + " |"
    lines = [header, "|" + "---|" * (len(claims) + 1)]
    for reading in readings:
        name = f"**{reading}** (primary)" if reading in primary else reading
        values = [cell.get((reading, claim), "—") for claim in claims]
        lines.append(f"| {name} | " + " | ".join(values) + " |")
    return "\n".join(lines)


def render_section(section: Section) -> str:
    """Markdown of one experiment: heading, intro, primary verdicts, readings, body."""
    verdicts = assign_robustness(section.verdicts)
    out = [f'<a id="{section.experiment}"></a>', "", f"## {section.title}", ""]
    if section.intro.strip():
        out += [section.intro.strip(), ""]
    primary = [v for v in verdicts if v.primary]
    others = [v for v in verdicts if not v.primary]
    if primary:
        out += ["### Verdicts", ""]
        out += [verdict_line(v) for v in primary]
        out.append("")
    table = readings_table(verdicts)
    if table:
        out += ["### Readings × claims", "", table, ""]
    if others:
        out += ["### Other readings", ""]
        out += [verdict_line(v, with_protocol=True) for v in others]
        out.append("")
    if section.body.strip():
        out += [section.body.strip(), ""]
    return "\n".join(out)


def write_section(section: Section, json_path, markdown_path) -> None:
    """Write an experiment's section as data (JSON) and as Markdown, atomically."""
    section = Section(
        experiment=section.experiment,
        title=section.title,
        verdicts=assign_robustness(section.verdicts),
        body=section.body,
        intro=section.intro,
    )
    atomic_write_text(json_path, json.dumps(section.to_dict(), indent=1, ensure_ascii=False))
    atomic_write_text(markdown_path, render_section(section))


def write_outputs(output, **contents) -> None:
    """Write a job's outputs atomically, each to the output of its name: a data frame as CSV
    (without its index), a text as it is."""
    for name, content in contents.items():
        text = content.to_csv(index=False) if isinstance(content, pd.DataFrame) else content
        atomic_write_text(getattr(output, name), text)


def read_tables(output, *names) -> list[pd.DataFrame]:
    """The CSV outputs ``names`` of a job, read back from the files just written.

    A summary job's figures and verdicts read its tables back, as separate jobs would, so
    that they see what the files hold.
    """
    return [pd.read_csv(getattr(output, name)) for name in names]


def _counts(verdicts: Iterable[Verdict]) -> dict[str, int]:
    counts = dict.fromkeys(VERDICTS, 0)
    for verdict in verdicts:
        counts[verdict.verdict] += 1
    return counts


STABILITY_FLAG = 0.8  # verdicts whose bootstrap stability is below this are flagged


def _count_rows(groups: Sequence[tuple[str, Sequence[Verdict]]]) -> list[list]:
    rows = []
    for name, group in groups:
        counts = _counts(group)
        robustness = [sum(v.robustness == r for v in group) for r in ROBUSTNESS]
        unstable = sum(v.stability is not None and v.stability < STABILITY_FLAG for v in group)
        rows.append([name, len(group), *counts.values(), *robustness, unstable])
    return rows


def _table(header: Sequence[str], rows: Sequence[Sequence]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return out + ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]


def _stability_text(verdict: Verdict) -> str:
    if verdict.stability is None:
        return "—"
    flag = " ⚠" if verdict.stability < STABILITY_FLAG else ""
    return f"{verdict.stability:.2f}{flag}"


def scorecard(
    verdicts: Sequence[Verdict],
    *,
    scale: str,
    paper_command: str,
    paper_titles: Mapping[str, str] | None = None,
) -> str:
    """Markdown scorecard of the primary readings.

    The headline table counts the claims the papers make or imply (:data:`HEADLINE_KINDS`),
    per paper; extensions, sanity checks and identities are counted on their own lines. Then
    one line per claim with its kind, verdict, stability (flagged below
    :data:`STABILITY_FLAG`), robustness and repetitions.
    """
    primary = [v for v in verdicts if v.primary]
    headline = [v for v in primary if v.kind in HEADLINE_KINDS]
    out = ["## Scorecard", ""]
    if scale != "paper":
        out += [
            f"> **Preview.** These verdicts come from the `{scale}` scale, with fewer"
            " repetitions than the papers': intervals are wider and more claims are"
            f" *inconclusive*. The papers' scale: `{paper_command}`.",
            "",
        ]
    header = ["paper", "claims", *VERDICTS, *ROBUSTNESS, f"stability < {STABILITY_FLAG:g}"]
    papers = list(dict.fromkeys(v.paper for v in headline))
    groups = [
        ((paper_titles or {}).get(paper, paper), [v for v in headline if v.paper == paper])
        for paper in papers
    ]
    rows = _count_rows(groups)
    rows += [
        ["**" + r[0] + "**", *r[1:]] for r in _count_rows([("paper and implied claims", headline)])
    ]
    out += _table(header, rows)
    others = [
        (kind, [v for v in primary if v.kind == kind])
        for kind in KINDS
        if kind not in HEADLINE_KINDS
    ]
    others = [(kind, group) for kind, group in others if group]
    if others:
        out += ["", "Not counted above (not claims of the papers):", ""]
        out += _table(["kind", *header[1:]], _count_rows(others))
    out += [
        "",
        "| experiment | claim | kind | verdict | stability | robustness | repetitions |",
        "|---|---|---|---|---|---|---|",
    ]
    for v in primary:
        reps = "—" if v.n_repetitions is None else str(v.n_repetitions)
        claim = v.claim if len(v.claim) <= 110 else v.claim[:107].rstrip() + "…"
        claim = claim.replace("|", "∣")  # a literal pipe would split the table cell
        preview = f" (reads {v.check_verdict})" if v.check_verdict != v.verdict else ""
        out.append(
            f"| [{v.experiment}](#{v.experiment}) | `{v.claim_id}`: {claim} | {v.kind} |"
            f" **{v.verdict}**{preview} | {_stability_text(v)} | {v.robustness} | {reps} |"
        )
    return "\n".join(out)


def provenance_markdown(provenance: Mapping) -> str:
    """Markdown list of the provenance record."""
    versions = ", ".join(f"{k} {v}" for k, v in provenance["versions"].items())
    dirty = " (working tree with uncommitted changes)" if provenance["dirty"] else ""
    configs = ", ".join(f"`{c}`" for c in provenance["config_files"]) or "—"
    return "\n".join(
        [
            "## Provenance",
            "",
            f"- commit: `{provenance['commit']}`{dirty}",
            f"- scale: `{provenance['scale']}`; config files: {configs};"
            f" resolved config SHA-256 `{provenance['config_sha256']}`",
            f"- date: {provenance['date']}; CPUs: {provenance['cpu_count']}",
            f"- versions: {versions}",
            "- paths of figures and tables (`figures/…`, `tables/…`) are relative to the"
            " run's results directory (`results/`, `results/paper/`) and to a snapshot"
            " (`snapshots/paper/`)",
        ]
    )


def assemble_report(
    sections: Sequence[Section],
    section_markdown: Sequence[str],
    provenance,
    *,
    paper_command: str,
    paper_titles: Mapping[str, str] | None = None,
) -> str:
    """``results/report.md``: title, provenance, scorecard, the vocabulary, then the sections."""
    verdicts = [v for section in sections for v in assign_robustness(section.verdicts)]
    header = [
        "# Paper vs reproduced",
        "",
        "Generated by `snakemake` from the aggregate tables and `config/paper_reference.yaml`;",
        "every verdict is also a row of `results/verdicts.csv`.",
        "",
        provenance_markdown(provenance),
        "",
        scorecard(
            verdicts,
            scale=provenance["scale"],
            paper_command=paper_command,
            paper_titles=paper_titles,
        ),
        "",
        "Verdicts: **reproduced** (the claim's interval test holds, or the number is within"
        " its stated tolerance), **partly reproduced** (the claim names parts: some hold,"
        " some are contradicted), **inconclusive** (the interval cannot decide; the detail"
        " says how many repetitions would), **not reproduced** (the measurement"
        " contradicts the paper). Tests (`config/paper_reference.yaml`): **superiority**"
        " (reproduced iff the interval's lower end is above 0), **non-inferiority** (iff it"
        " is above −margin), **equivalence** (TOST: the"
        " interval within ±margin), **magnitude** (the interval of our mean, or the"
        " prediction interval of one run where the paper reports one run, meets ±margin of"
        " the paper's value); a claim over a family of settings holds only if every member"
        " does (read at α), and a contradiction by one member counts after Holm's"
        " adjustment. Kinds: **paper"
        " claim**, **implied claim** (counted in the headline), **extension**, **sanity"
        " check**, **identity** (true by construction or by a theorem; counted apart)."
        " Stability: the share of 200 bootstrap resamples of the repetitions that give the"
        " same verdict (sampling). Robustness: **robust** (same verdict under every reading"
        " of an ambiguous protocol), **fragile** (readings disagree), **single** (one"
        " reading); readings share their random draws, so robustness says nothing about"
        " sampling.",
        "",
    ]
    return "\n".join(header) + "\n" + "\n\n".join(s.strip() + "\n" for s in section_markdown)


_VERDICT_COLOURS = {
    REPRODUCED: "#d9f2d9",
    PARTLY: "#fff2cc",
    INCONCLUSIVE: "#e6e6e6",
    NOT_REPRODUCED: "#f8d7da",
}


def summary_html(report_markdown: str, verdicts: pd.DataFrame) -> str:
    """Self-contained HTML page of the whole report, for ``snakemake --report``.

    The Markdown of ``report.md`` (provenance, scorecard, every section with its tables)
    rendered to HTML, then every verdict as one colour-coded table. Needs the ``markdown``
    package (the ``workflow`` extra).
    """
    import markdown  # only the workflow's report rule renders HTML

    body = markdown.markdown(report_markdown, extensions=["tables"])
    for verdict, colour in _VERDICT_COLOURS.items():
        body = body.replace(
            f"<strong>{verdict}</strong>",
            f'<strong style="background:{colour}">{verdict}</strong>',
        )
    table = verdicts[
        [
            "experiment",
            "claim_id",
            "protocol",
            "primary",
            "verdict",
            "check_verdict",
            "robustness",
            "n_repetitions",
            "kind",
            "test",
            "effect",
            "ci_low",
            "ci_high",
            "stability",
            "paper_value",
            "measured",
            "tolerance",
        ]
    ]
    rows_html = table.to_html(index=False, escape=True, na_rep="—")
    for verdict, colour in _VERDICT_COLOURS.items():
        rows_html = rows_html.replace(
            f"<td>{verdict}</td>", f'<td style="background:{colour}">{verdict}</td>'
        )
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Paper vs reproduced</title>"
        "<style>body{font-family:sans-serif;font-size:13px;max-width:1200px}"
        " table{border-collapse:collapse;margin:6px 0}"
        " td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top}</style></head><body>"
        f"{body}<h2>Every verdict</h2>{rows_html}</body></html>"
    )
