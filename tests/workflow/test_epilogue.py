"""The run's last lines name report.md and the HTML command, only when it wrote report.md."""

from __future__ import annotations

import os
import time

from krepro.workflow.epilogue import run_epilogue


def test_epilogue_names_the_report_and_the_html_command(tmp_path):
    default = tmp_path / "config" / "config.yaml"
    results = tmp_path / "results" / "paper"
    results.mkdir(parents=True)
    started = time.time() - 1
    (results / "report.md").write_text("# report\n", encoding="utf-8")
    text = run_epilogue(
        results, [default, tmp_path / "config" / "paper.yaml"], default, started, cwd=tmp_path
    )
    assert f"Report: {results / 'report.md'}" in text
    assert text.endswith(
        f"snakemake --configfile config/paper.yaml --report {results / 'report.html'}"
    )


def test_epilogue_is_silent_when_the_run_did_not_write_the_report(tmp_path):
    default = tmp_path / "config.yaml"
    assert run_epilogue(tmp_path, [default], default, time.time()) == ""  # no report.md
    report = tmp_path / "report.md"
    report.write_text("old\n", encoding="utf-8")
    an_hour_ago = time.time() - 3600
    os.utime(report, (an_hour_ago, an_hour_ago))
    assert run_epilogue(tmp_path, [default], default, time.time()) == ""  # an earlier run's
