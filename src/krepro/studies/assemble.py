"""The report of a run: every study's section assembled into ``report.md``, ``verdicts.csv``,
``provenance.json`` and the HTML summary (the workflow's ``report`` job)."""

from __future__ import annotations

import json

from krepro.records import atomic_write_text
from krepro.studies.render import assemble_report, render_section, summary_html
from krepro.studies.verdicts import Section, assign_robustness, verdicts_frame
from krepro.workflow.provenance import collect_provenance

__all__ = ["report_job"]


def read_sections(paths):
    """The :class:`Section` records of the studies' JSON sections, in the given order."""
    sections = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            sections.append(Section.from_dict(json.load(handle)))
    return sections


def report_job(job, log):
    """Write the report files of ``job.output`` from the sections in ``job.input.sections``.

    ``job.params``: ``config`` and ``config_files`` (for the provenance), ``code_directory``,
    ``paper_command`` (named in the preview note of a quick run) and ``paper_titles``
    (the scorecard's rows, by paper key).
    """
    params, out = job.params, job.output
    sections = read_sections(job.input.sections)
    provenance = collect_provenance(params.config, params.config_files, params.code_directory)
    verdicts = verdicts_frame(v for s in sections for v in assign_robustness(s.verdicts))
    atomic_write_text(out.verdicts, verdicts.to_csv(index=False))
    atomic_write_text(out.provenance, json.dumps(provenance, indent=1, ensure_ascii=False) + "\n")
    report = assemble_report(
        sections,
        [render_section(section) for section in sections],
        provenance,
        paper_command=params.paper_command,
        paper_titles=params.paper_titles,
    )
    atomic_write_text(out.report, report)
    atomic_write_text(out.summary, summary_html(report, verdicts))
    log.info("%d sections, %d verdicts", len(sections), len(verdicts))
