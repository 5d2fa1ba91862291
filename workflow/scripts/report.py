"""Concatenate the per-experiment sections into results/report.md."""

from krepro.records import atomic_write_text
from krepro.report.compare import assemble_report
from krepro.runtime import job

with job(snakemake):
    sections = [open(path, encoding="utf-8").read() for path in snakemake.input]
    atomic_write_text(snakemake.output[0], assemble_report(sections))
