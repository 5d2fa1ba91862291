"""The dcm_parkinsons section's verdict details state their own verdict only
(:func:`krepro.studies.verdicts.detail_disagreements`), on sections built from constructed run
tables and on their ``verdicts.csv`` rows. The check and the shared part:
tests/studies/test_verdicts.py."""

from __future__ import annotations

import tests.studies.dcm_parkinsons.test_report as park
from krepro.studies.dcm_parkinsons.report import dcm_parkinsons_section
from tests.studies.test_verdicts import assert_sections_state_their_own_verdict_only


def _constructed_sections():
    sections = []
    for mean, fast, reps, noise in (
        (8.0, 8.7, 20, 0.002),
        (10.0, 9.5, 20, 0.01),
        (10, 9.1, 3, 0.5),
    ):
        rmse = park._rmse(mean=mean)
        rmse[("dcm", "standard")] = 8.7
        rmse[("dcm", "fast")] = fast
        table, runs = park.parkinsons_runs(rmse, n_reps=reps, noise=noise)
        sections.append(
            dcm_parkinsons_section(
                table, runs, None, park.PARK_REFERENCE, park.PARK_READINGS, scale="t"
            )
        )
    return sections


def test_dcm_sections_and_their_csv_rows_state_their_own_verdict_only():
    assert_sections_state_their_own_verdict_only(
        _constructed_sections(),
        {"reproduced", "not reproduced", "inconclusive", "partly reproduced"},
    )
