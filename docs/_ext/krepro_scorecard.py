"""Sphinx extension: the committed snapshot's scorecard, rendered from its ``verdicts.csv``.

``.. krepro-scorecard::`` becomes the scorecard that ``report.md`` opens with (headline counts
per paper, the claims not counted there, one line per claim), computed at every build by
:func:`krepro.studies.render.scorecard` from the file named by the ``krepro_verdicts``
setting (``snapshots/paper/verdicts.csv``), never copied by hand. ``.. krepro-provenance::``
lists the snapshot's ``provenance.json`` (commit, scale, config files, versions, times);
``.. krepro-targets::`` the study's targets (the registry :data:`krepro.studies.STUDIES`)
with the CPU seconds the snapshot's run spent on each
(:mod:`krepro.workflow.run_times`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from docutils import nodes
from docutils.statemachine import StringList
from scorecard_rst import markdown_tables_to_rst, rst_cell
from sphinx.util.docutils import SphinxDirective


class ScorecardDirective(SphinxDirective):
    """The scorecard of ``krepro_verdicts`` (a ``verdicts.csv``)."""

    has_content = False

    def run(self):
        from krepro.studies.render import scorecard
        from krepro.studies.study import PAPERS
        from krepro.studies.verdicts import verdicts_from_frame

        path = Path(self.config.krepro_verdicts)
        self.env.note_dependency(str(path))
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
        verdicts = verdicts_from_frame(frame)
        scales = sorted({v.scale for v in verdicts})
        markdown = scorecard(
            verdicts,
            scale=scales[0] if len(scales) == 1 else ", ".join(scales),
            paper_command="snakemake --configfile config/paper.yaml",
            paper_titles={key: paper.title for key, paper in PAPERS.items()},
        )
        return self._parse(markdown_tables_to_rst(markdown))

    def _parse(self, lines):
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source="krepro-scorecard"), 0, container)
        return container.children


class ProvenanceDirective(SphinxDirective):
    """The provenance record ``krepro_provenance`` as a field list."""

    has_content = False

    def run(self):
        path = Path(self.config.krepro_provenance)
        self.env.note_dependency(str(path))
        record = json.loads(path.read_text(encoding="utf-8"))
        versions = ", ".join(f"{k} {v}" for k, v in record.get("versions", {}).items())
        cpu = sum(record.get("rule_cpu_seconds", {}).values())
        fields = [
            ("commit", f"``{record.get('commit', '?')}``"),
            ("scale", f"``{record.get('scale', '?')}``"),
            ("config files", ", ".join(f"``{f}``" for f in record.get("config_files", []))),
            ("resolved config SHA-256", f"``{record.get('config_sha256', '?')}``"),
            ("date", str(record.get("date", "?"))),
            ("CPUs", str(record.get("cpu_count", "?"))),
            ("wall-clock time", f"{record.get('wall_seconds', 0):,.0f} s"),
            ("CPU time of the jobs", f"{cpu:,.0f} CPU-s"),
            ("versions", versions),
        ]
        lines = [f":{name}: {value}" for name, value in fields] + [""]
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source="krepro-provenance"), 0, container)
        return container.children


class TargetsDirective(SphinxDirective):
    """One row per target of the registry, with the snapshot's CPU seconds per target."""

    has_content = False

    def run(self):
        from krepro.studies import STUDIES
        from krepro.workflow.run_times import SHARED, snapshot_run_times

        provenance = Path(self.config.krepro_provenance)
        rules_dir = Path(self.config.krepro_rules_dir)
        self.env.note_dependency(str(provenance))
        times = snapshot_run_times(provenance, rules_dir, STUDIES)
        cpu = times["cpu_seconds"]
        lines = [
            ".. list-table::",
            "   :header-rows: 1",
            "   :widths: 12 40 30 10",
            "",
            "   * - target",
            "     - what it reproduces",
            "     - outputs",
            f"     - CPU-s ({times['scale']} scale)",
        ]
        for study in sorted(STUDIES.values(), key=lambda s: s.order):
            outputs = ", ".join(f"``{path}``" for path in study.outputs)
            lines += [
                f"   * - ``{study.name}``",
                f"     - {rst_cell(study.summary.strip())}",
                f"     - {outputs}",
                f"     - {cpu.get(study.name, 0.0):,.0f}",
            ]
        total = sum(cpu.values())
        lines += [
            "   * - all",
            f"     - every target, then ``report.md`` (downloads and report: {cpu[SHARED]:,.0f}"
            " CPU-s)",
            "     - ``report.md``, ``verdicts.csv``, ``provenance.json``",
            f"     - {total:,.0f}",
            "",
            f"The committed snapshot's run took {times['wall_seconds']:,.0f} s wall-clock on"
            f" {times['cpu_count']} cores for {total:,.0f} CPU-s of jobs; a target alone takes"
            " at least its CPU seconds divided by the cores its jobs can use in parallel.",
            "",
        ]
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source="krepro-targets"), 0, container)
        return container.children


def setup(app):
    app.add_config_value("krepro_verdicts", "", "env")
    app.add_config_value("krepro_provenance", "", "env")
    app.add_config_value("krepro_rules_dir", "", "env")
    app.add_directive("krepro-targets", TargetsDirective)
    app.add_directive("krepro-scorecard", ScorecardDirective)
    app.add_directive("krepro-provenance", ProvenanceDirective)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
