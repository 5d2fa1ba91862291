"""`snakemake targets`: every experiment with what it reproduces, outputs and run times.

The quick-scale estimates in the studies' records (krepro.studies.STUDIES), in the `all` and
`snapshot` rules' docstrings and in the README's table are the same; the papers' scale is
read from the committed snapshot's provenance.json.
"""

from __future__ import annotations

import re

import pytest

from krepro.studies import STUDIES
from tests.workflow.test_workflow import REPO, ok, snakemake

pytestmark = pytest.mark.workflow

# Every study's target (the registry), then the workflow's own targets.
TARGETS = [*(name for name, study in STUDIES.items() if study.target), "all", "snapshot"]
TIME = r"\d+(?:\.\d+)? (?:s|min|h)"
# quick: an estimate; paper: measured, from the committed snapshot's provenance.json
RUN_TIME = re.compile(
    rf"Run time: quick scale about ({TIME}) on 2 cores \(estimate\); paper scale "
    r"([\d,]+ (?:CPU-s|s wall-clock)[^.]* in the committed snapshot's run)\."
)


@pytest.fixture(scope="module")
def listing(tmp_path_factory) -> dict[str, str]:
    """The README's command `snakemake targets --quiet all`, as {target: description}."""
    out = ok(snakemake("targets", "--quiet", "all", workdir=tmp_path_factory.mktemp("targets")))
    blocks = re.split(r"^(?=\S)", out, flags=re.MULTILINE)
    listed = {}
    for block in blocks:
        name, _, description = block.partition("\n")
        if name.strip() in TARGETS:
            listed[name.strip()] = description
    return listed


def test_every_target_is_listed_with_a_description_outputs_and_times(listing):
    assert list(listing) == TARGETS, listing
    for name, description in listing.items():
        assert description.startswith("    "), (name, description)
        assert "(no description)" not in description, name
        assert "Outputs: " in description, (name, description)
        assert RUN_TIME.search(" ".join(description.split())), (name, description)


def test_readme_table_carries_the_same_times(listing):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    rows = {}
    for line in readme.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        match = (
            re.fullmatch(r"`(\w+)`(?: \(default\))?", cells[0]) if line.startswith("|") else None
        )
        if match and match.group(1) in TARGETS:
            rows.setdefault(match.group(1), cells)  # the first table; the run-time table follows
    assert set(rows) == set(TARGETS), sorted(rows)
    header = next(
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in readme.splitlines()
        if line.startswith("| target |")
    )
    quick = header.index("quick")
    for name, description in listing.items():
        estimate = RUN_TIME.search(" ".join(description.split())).group(1)
        assert rows[name][quick] == estimate, (name, rows[name], estimate)
