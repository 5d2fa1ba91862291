"""`snakemake targets`: every experiment with what it reproduces, outputs and run times.

The run times in the studies' records (krepro.studies.STUDIES), in the `all` and `snapshot`
rules' docstrings and in the README's table are the same numbers.
"""

from __future__ import annotations

import re

import pytest
from test_workflow import REPO, ok, snakemake

from krepro.studies import STUDIES

pytestmark = pytest.mark.workflow

# Every study's target (the registry), then the workflow's own targets.
TARGETS = [*(name for name, study in STUDIES.items() if study.target), "all", "snapshot"]
TIME = r"\d+(?:\.\d+)? (?:s|min|h)"
RUN_TIME = re.compile(rf"Run time on 2 cores: quick ({TIME}), paper ({TIME})\.")


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
            rows[match.group(1)] = cells
    assert set(rows) == set(TARGETS), sorted(rows)
    header = next(
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in readme.splitlines()
        if line.startswith("| target |")
    )
    quick, paper = header.index("quick"), header.index("paper")
    for name, description in listing.items():
        times = RUN_TIME.search(" ".join(description.split())).groups()
        assert (rows[name][quick], rows[name][paper]) == times, (name, rows[name], times)
