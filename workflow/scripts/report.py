"""Assemble results/report.md, results/verdicts.csv and results/provenance.json."""

import json

from krepro.records import atomic_write_text
from krepro.report.provenance import collect_provenance
from krepro.report.render import assemble_report, render_section, summary_html
from krepro.report.verdicts import Section, assign_robustness, verdicts_frame
from krepro.runtime import job

with job(snakemake):
    sections = []
    for path in snakemake.input.sections:
        with open(path, encoding="utf-8") as handle:
            sections.append(Section.from_dict(json.load(handle)))
    provenance = collect_provenance(
        snakemake.params.config, snakemake.params.config_files, snakemake.params.code_directory
    )
    command = snakemake.params.paper_command
    verdicts = verdicts_frame(v for s in sections for v in assign_robustness(s.verdicts))
    atomic_write_text(snakemake.output.verdicts, verdicts.to_csv(index=False))
    atomic_write_text(
        snakemake.output.provenance, json.dumps(provenance, indent=1, ensure_ascii=False) + "\n"
    )
    report = assemble_report(
        sections,
        [render_section(section) for section in sections],
        provenance,
        paper_command=command,
    )
    atomic_write_text(snakemake.output.report, report)
    atomic_write_text(snakemake.output.summary, summary_html(report, verdicts))
