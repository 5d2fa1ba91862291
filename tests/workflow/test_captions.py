"""Every caption of the HTML report is valid reStructuredText (snakemake --report renders them)."""

import io
from pathlib import Path

import pytest

docutils_core = pytest.importorskip("docutils.core")

CAPTIONS = sorted((Path(__file__).resolve().parents[2] / "workflow" / "report").glob("*.rst"))


@pytest.mark.parametrize("path", CAPTIONS, ids=lambda p: p.name)
def test_caption_renders_without_errors(path):
    warnings = io.StringIO()
    docutils_core.publish_doctree(
        path.read_text(encoding="utf-8"),
        settings_overrides={"warning_stream": warnings, "halt_level": 5},
    )
    assert not warnings.getvalue(), warnings.getvalue()
