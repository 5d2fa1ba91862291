"""The documentation site (docs/) covers the public API and renders the committed scorecard.

The build itself (``sphinx-build -W``, every gallery example run) is a step of ``.ci/run``;
these tests check, without Sphinx, what the build cannot notice: a public name missing from
the API reference, a gallery below six examples, a scorecard that drops claims.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pandas as pd
import pytest

import krepro

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"

# The library's public modules (krepro.studies and krepro.workflow serve the workflow).
LIBRARY_MODULES = [
    "krepro",
    "krepro.fairness",
    "krepro.fairness.conditional",
    "krepro.fairness.oblivious",
    "krepro.fairness.oblivious_features",
    "krepro.fairness.ridge",
    "krepro.fairness.ferm",
    "krepro.fairness.ferm_dual",
    "krepro.fairness.ferm_features",
    "krepro.fairness.linear_svc",
    "krepro.fairness.linear_svr",
    "krepro.fairness.projection",
    "krepro.fairness.rates",
    "krepro.dcm",
    "krepro.distributed",
    "krepro.distributed.bootstrap",
    "krepro.distributed.bands",
    "krepro.distributed.matern_krr",
    "krepro.cme",
    "krepro.kernels",
    "krepro.kernel_safety",
    "krepro.matern",
    "krepro.metrics",
    "krepro.stats",
    "krepro.validation",
    "krepro.seeding",
    "krepro.spectral",
    "krepro.content_key",
    "krepro.data.download",
    "krepro.data.adult",
    "krepro.data.parkinsons",
    "krepro.data.students",
    "krepro.data.synthetic",
    "krepro.data.domains",
    "krepro.data.cme_law",
]


def documented_objects():
    """The objects the autosummary lists of docs/api.rst name (with their current module)."""
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    objects, module = {}, None
    in_list = False
    for line in text.splitlines():
        if match := re.match(r"\.\. currentmodule:: (\S+)", line):
            module = match.group(1)
        elif line.startswith(".. autosummary::"):
            in_list = True
        elif in_list and re.match(r"   [A-Za-z_]\w*$", line):
            name = line.strip()
            objects[f"{module}.{name}"] = getattr(importlib.import_module(module), name)
        elif in_list and line and not line.startswith(" "):
            in_list = False
    return objects


def test_api_reference_names_every_public_class_and_function():
    documented = {id(obj) for obj in documented_objects().values()}
    missing = []
    for module_name in LIBRARY_MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if (isinstance(obj, type) or callable(obj)) and id(obj) not in documented:
                missing.append(f"{module_name}.{name}")
    assert not missing, f"add to docs/api.rst: {missing}"


def test_api_reference_documents_each_object_once():
    paths = documented_objects()
    by_object = {}
    for path, obj in paths.items():
        by_object.setdefault(id(obj), []).append(path)
    twice = [names for names in by_object.values() if len(names) > 1]
    assert not twice, twice
    assert {f"krepro.{name}" for name in krepro.__all__ if name != "__version__"} <= set(paths)


def test_gallery_has_six_examples_each_with_a_title():
    examples = sorted((DOCS / "examples").glob("plot_*.py"))
    assert len(examples) >= 6, examples
    for path in examples:
        docstring = path.read_text(encoding="utf-8").split('"""')[1]
        title, underline = docstring.strip().splitlines()[:2]
        assert set(underline) == {"="} and len(underline) >= len(title), path.name


def test_user_guide_has_a_page_per_method_family():
    pages = {path.stem for path in (DOCS / "user_guide").glob("*.rst")}
    assert {"oblivious", "ferm", "dcm", "distributed", "cme"} <= pages
    for page in ("oblivious", "ferm", "dcm", "distributed", "cme"):
        text = (DOCS / "user_guide" / f"{page}.rst").read_text(encoding="utf-8")
        for heading in ("What it does", "When to use it", "Cost", "Pitfalls"):
            assert f"\n{heading}\n" in text, (page, heading)
        assert ".. math::" in text, page


@pytest.fixture(scope="module")
def scorecard_extension():
    """The extension's Markdown-to-reStructuredText part (no Sphinx needed)."""
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        yield importlib.import_module("scorecard_rst")
    finally:
        sys.path.remove(str(DOCS / "_ext"))


def test_scorecard_page_lists_every_primary_claim_of_the_snapshot(scorecard_extension):
    from krepro.studies.render import scorecard
    from krepro.studies.study import PAPERS
    from krepro.studies.verdicts import verdicts_from_frame

    frame = pd.read_csv(
        REPO / "snapshots" / "paper" / "verdicts.csv", keep_default_na=False, na_values=[""]
    )
    verdicts = verdicts_from_frame(frame)
    rst = scorecard_extension.markdown_tables_to_rst(
        scorecard(
            verdicts,
            scale="paper",
            paper_command="snakemake",
            paper_titles={key: paper.title for key, paper in PAPERS.items()},
        )
    )
    experiments = {f"   * - {v.experiment}" for v in verdicts}
    claims = [line for line in rst if line in experiments]
    # The claims table has one row per primary claim, headed by its experiment.
    assert len(claims) == sum(v.primary for v in verdicts)
    assert not any("](#" in line for line in rst)  # Markdown links converted
