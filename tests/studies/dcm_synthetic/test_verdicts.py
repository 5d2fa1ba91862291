"""The dcm_synthetic section's verdict details state their own verdict only
(:func:`krepro.studies.verdicts.detail_disagreements`), on sections built from constructed run
tables and on their ``verdicts.csv`` rows. The check and the shared part:
tests/studies/test_verdicts.py."""

from __future__ import annotations

import tests.studies.dcm_synthetic.test_report as syn
from krepro.studies.dcm_synthetic.report import dcm_synthetic_section
from tests.studies.test_verdicts import assert_sections_state_their_own_verdict_only


def _constructed_sections():
    sections = []
    for gains in ({"centred": 0.05, "uncentred": -0.05}, {"centred": 0.0}):
        table, runs = syn.synthetic_runs(gains)
        sections.append(
            dcm_synthetic_section(table, runs, syn.SYN_REFERENCE, syn.SYN_READINGS, scale="t")
        )
    table, runs = syn.synthetic_runs({"centred": 0.005}, n_reps=5, noise=0.03)
    sections.append(
        dcm_synthetic_section(table, runs, syn.SYN_REFERENCE, syn.SYN_READINGS, scale="t")
    )
    return sections


def test_dcm_sections_and_their_csv_rows_state_their_own_verdict_only():
    assert_sections_state_their_own_verdict_only(
        _constructed_sections(), {"reproduced", "not reproduced", "inconclusive"}
    )
