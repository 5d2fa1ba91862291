"""The HTML report's landing page (workflow/report/workflow.rst) names the run's scale and
results directory and links the scorecard, rendered as ``snakemake --report`` renders it:
Jinja with ``snakemake.config`` and the report's files, then reStructuredText."""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from docutils.core import publish_parts
from jinja2 import Environment

REPO = Path(__file__).resolve().parents[2]
LANDING = REPO / "workflow" / "report" / "workflow.rst"

# Snakemake appends these link targets (snakemake/report/__init__.py) before rendering.
LINKS = textwrap.dedent("""

    .. _Workflow: javascript:show_panel('workflow')
    {% for res in files %}
    .. _{{ res.target }}: javascript:app.showResultInfo('{{ res.target }}')
    {% endfor %}
    """)


def render(config, targets):
    files = [SimpleNamespace(target=target) for target in targets]
    snakemake = SimpleNamespace(config=config)
    env = Environment(trim_blocks=True, lstrip_blocks=True)
    text = env.from_string(LANDING.read_text(encoding="utf-8") + LINKS).render(
        snakemake=snakemake, categories={}, files=files
    )
    parts = publish_parts(text, writer_name="html", settings_overrides={"report_level": 2})
    return parts["html_body"]


def load(path):
    return yaml.safe_load((REPO / path).read_text(encoding="utf-8"))


@pytest.mark.filterwarnings('ignore:Argument "writer_name":PendingDeprecationWarning')
@pytest.mark.parametrize("scale", ["quick", "paper", "tiny"])
@pytest.mark.parametrize("targets", [["summary.html", "report.md", "verdicts.csv"], []])
def test_landing_page_names_scale_and_results_and_links_the_scorecard(scale, targets):
    config = load("config/config.yaml")
    if scale == "paper":
        config = {**config, **load("config/paper.yaml")}
    elif scale == "tiny":
        config = load("tests/config/tiny.yaml") | {"results_dir": "results/tiny"}
    html = render(config, targets)
    assert "system-message" not in html, html
    assert f'<tt class="docutils literal">{config["scale"]}</tt>' in html or (
        f"<code>{config['scale']}</code>" in html
    ), html
    assert config["results_dir"] in html
    if targets:
        assert "showResultInfo('summary.html')" in html
    else:
        assert f"{config['results_dir']}/report.md" in html
