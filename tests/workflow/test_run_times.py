"""Run times in the README come from the committed snapshot's records, never typed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from krepro.studies import STUDIES
from krepro.workflow.run_times import (
    SHARED,
    readme_block,
    replace_block,
    rule_owners,
    snapshot_run_times,
    study_cpu_seconds,
    study_names,
)

REPO = Path(__file__).resolve().parents[2]
PROVENANCE = REPO / "snapshots" / "paper" / "provenance.json"
RULES = REPO / "workflow" / "rules"
NAMES = [s.name for s in sorted(STUDIES.values(), key=lambda s: s.order) if s.target]
# Rules that serve every study: the downloads and the report.
SHARED_RULES = {"fetch_dataset", "report"}


def test_readme_run_time_table_is_generated_from_the_snapshot():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme_block(snapshot_run_times(PROVENANCE, RULES, NAMES), NAMES)
    assert replace_block(readme, block) == readme, (
        "README.md's run-time table is stale: run"
        " `python -m krepro.workflow.run_times --write README.md`"
    )


def test_every_rule_of_the_snapshot_is_attributed():
    record = json.loads(PROVENANCE.read_text(encoding="utf-8"))
    owners = rule_owners(RULES, NAMES)
    unknown = []
    for rule in record["rule_cpu_seconds"]:
        single = study_cpu_seconds({rule: 1.0}, NAMES, owners)
        if single[SHARED] and rule not in SHARED_RULES:
            unknown.append(rule)
    assert not unknown, f"rules of no study (add them to a study's rule file): {unknown}"
    totals = snapshot_run_times(PROVENANCE, RULES, NAMES)["cpu_seconds"]
    assert sum(totals.values()) == pytest.approx(sum(record["rule_cpu_seconds"].values()))


def test_every_study_and_only_studies_have_a_rule_file():
    assert study_names(RULES) == sorted(NAMES)


def test_rule_files_define_every_study_job():
    owners = rule_owners(RULES, NAMES)
    for name in NAMES:
        assert f"{name}_summary" in owners or any(o == name for o in owners.values()), name


def test_replace_block_needs_its_markers():
    with pytest.raises(ValueError, match="run-time block"):
        replace_block("no markers here", "x")
