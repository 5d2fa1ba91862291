"""Renderings of the verdict records (krepro.studies.render): the scorecard headline; a job's
outputs written and read back."""

from types import SimpleNamespace

import pandas as pd

from krepro.studies.render import read_tables, scorecard, write_outputs
from krepro.studies.verdicts import Verdict


def test_scorecard_headline_counts_paper_and_implied_claims_only_and_flags_instability():
    base = dict(experiment="exp", claim="C.", verdict="reproduced", detail="d", paper="p")
    records = [
        Verdict(claim_id="a", kind="paper claim", stability=0.95, **base),
        Verdict(claim_id="b", kind="implied claim", stability=0.6, **base),
        Verdict(claim_id="c", kind="identity", stability=1.0, **base),
        Verdict(claim_id="d", kind="sanity check", **base),
    ]
    card = scorecard(records, scale="paper", paper_command="C")
    assert "| **paper and implied claims** | 2 | 2 | 0 | 0 | 0 | 0 | 0 | 2 | 1 |" in card
    lines = card.splitlines()
    assert any(line.startswith("| identity") and "| 1 | 1 |" in line for line in lines)
    assert any(line.startswith("| sanity check") and "| 1 | 1 |" in line for line in lines)
    assert "0.60 ⚠" in card and "0.95 ⚠" not in card


def test_outputs_are_written_by_name_and_tables_read_back(tmp_path):
    output = SimpleNamespace(table=tmp_path / "table.csv", note=tmp_path / "note.md")
    write_outputs(output, table=pd.DataFrame({"x": [0.1, 2.0]}), note="# Note\n")
    assert (tmp_path / "note.md").read_text() == "# Note\n"
    assert (tmp_path / "table.csv").read_text() == "x\n0.1\n2.0\n"
    (table,) = read_tables(output, "table")
    pd.testing.assert_frame_equal(table, pd.DataFrame({"x": [0.1, 2.0]}))
