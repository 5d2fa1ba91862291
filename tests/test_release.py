"""Release metadata agree with each other: version, citation, changelog, catalog file."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

import krepro

REPO = Path(__file__).resolve().parents[1]


def test_version_is_set_once_and_read_by_pyproject():
    with open(REPO / "pyproject.toml", "rb") as handle:
        project = tomllib.load(handle)
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    dynamic = project["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "krepro.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", krepro.__version__)


def test_citation_cites_this_version_and_the_four_papers():
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["cff-version"] == "1.2.0"
    assert citation["version"] == krepro.__version__
    assert citation["license"] == "MIT"
    titles = {reference["title"] for reference in citation["references"]}
    assert len(titles) == 4
    assert "Oblivious Data for Fairness with Kernels" in titles


def test_changelog_has_an_entry_for_this_version():
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{krepro.__version__}] - " in changelog
    assert "## [Unreleased]" in changelog


def test_license_is_mit():
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "The krepro authors" in text


def test_catalog_file_parses_and_names_the_readme_commands():
    catalog = yaml.safe_load((REPO / ".snakemake-workflow-catalog.yml").read_text(encoding="utf-8"))
    usage = catalog["usage"]
    assert set(usage["mandatory-flags"]) == {"desc", "flags"}
    assert isinstance(usage["software-stack-deployment"], dict)
    desc = usage["mandatory-flags"]["desc"]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for command in re.findall(r"`([^`]*\.venv/bin/[^`]*)`", desc):
        assert command in readme, command
    paths = re.findall(r"`((?:profiles|config|requirements)/[^`]*)`", desc)
    for path in [*paths, "config/README.md", "environment.yml"]:
        assert (REPO / path).exists(), path
