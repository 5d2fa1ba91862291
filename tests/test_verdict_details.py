"""No verdict's detail states a different verdict than its record.

The check (:func:`krepro.studies.verdicts.detail_disagreements`) scans a
detail for the verdict phrases (word boundaries; "not reproduced" and "partly reproduced" are
not also read as "reproduced"), leaving out the robustness note on other readings and a
"would read" preview where the record's ``check_verdict`` differs from its verdict. It runs
on the DCM sections built from constructed run tables, on their ``verdicts.csv`` rows, and on
any DCM rows of a written ``verdicts.csv`` or section JSON built by the current reports.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from krepro.studies.verdicts import (
    Verdict,
    assign_robustness,
    detail_disagreements,
    stated_verdicts,
    verdicts_frame,
    verdicts_from_frame,
)

ROOT = Path(__file__).resolve().parents[1]
DCM_EXPERIMENTS = ("dcm_synthetic", "dcm_parkinsons")


def _record(verdict, detail, check_verdict=""):
    return Verdict(
        experiment="x",
        claim_id="c",
        claim="C.",
        verdict=verdict,
        detail=detail,
        check_verdict=check_verdict,
    )


def test_verdict_phrases_are_read_with_word_boundaries_longest_first():
    text = "Not reproduced here, partly reproduced there; reproduced. Inconclusive; irreproducible."
    assert stated_verdicts(text) == [
        "not reproduced",
        "partly reproduced",
        "reproduced",
        "inconclusive",
    ]


def test_a_detail_naming_another_verdict_is_caught():
    # The bug this guards against: a reproduced record whose detail hedges.
    record = _record(
        "reproduced", "The ranking holds, but no method is useful: partly reproduced at best."
    )
    assert detail_disagreements(record) == ["partly reproduced"]
    assert detail_disagreements(_record("reproduced", "Members: a: holds; b: holds.")) == []
    assert detail_disagreements(_record("not reproduced", "Effect −1: not reproduced.")) == []


def test_previews_only_where_the_check_verdict_differs_and_fragile_notes_are_skipped():
    preview = "At 5 repetitions this would read *partly reproduced*; the rule needs 20."
    assert detail_disagreements(_record("inconclusive", preview, "partly reproduced")) == []
    # The same preview without a differing check verdict is a contradiction.
    assert detail_disagreements(_record("inconclusive", preview)) == ["partly reproduced"]
    # A preview of another verdict than the check verdict is one too.
    assert detail_disagreements(_record("inconclusive", preview, "reproduced")) == [
        "partly reproduced"
    ]
    fragile = "d. Fragile: inconclusive under r1; other readings give r2 (not reproduced)."
    assert detail_disagreements(_record("inconclusive", fragile)) == []


def _constructed_sections():
    import test_dcm_parkinsons as park
    import test_report_dcm as syn

    from krepro.studies.dcm_parkinsons.report import parkinsons_section
    from krepro.studies.dcm_synthetic.report import synthetic_section

    sections = []
    for gains in ({"centred": 0.05, "uncentred": -0.05}, {"centred": 0.0}):
        table, runs = syn.synthetic_runs(gains)
        sections.append(
            synthetic_section(table, runs, syn.SYN_REFERENCE, primary=syn.SYN_PRIMARY, scale="t")
        )
    table, runs = syn.synthetic_runs({"centred": 0.005}, n_reps=5, noise=0.03)
    sections.append(
        synthetic_section(table, runs, syn.SYN_REFERENCE, primary=syn.SYN_PRIMARY, scale="t")
    )
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
            parkinsons_section(
                table, runs, None, park.PARK_REFERENCE, primary=park.PARK_PRIMARY, scale="t"
            )
        )
    return sections


def test_dcm_sections_and_their_csv_rows_state_their_own_verdict_only():
    sections = _constructed_sections()
    records = assign_robustness([v for section in sections for v in section.verdicts])
    verdicts = {r.verdict for r in records}
    assert {"reproduced", "not reproduced", "inconclusive", "partly reproduced"} <= verdicts
    for record in records:
        assert not detail_disagreements(record), (record.claim_id, record.detail)
    text = verdicts_frame(records).to_csv(index=False)
    for row in verdicts_from_frame(pd.read_csv(io.StringIO(text))):
        assert not detail_disagreements(row), (row.claim_id, row.detail)


def _written_rows():
    """Rows of written outputs built by the current reports (rows that state a test)."""
    rows = []
    for path in (ROOT / "results" / "verdicts.csv", ROOT / "snapshots" / "paper" / "verdicts.csv"):
        if path.exists():
            frame = pd.read_csv(path)
            if "test" in frame.columns:
                rows += [
                    (str(path), r)
                    for r in frame.itertuples(index=False)
                    if isinstance(r.test, str) and r.test
                ]
    for experiment in DCM_EXPERIMENTS:
        path = ROOT / "results" / "report" / f"{experiment}.json"
        if path.exists():
            for record in json.loads(path.read_text(encoding="utf-8"))["verdicts"]:
                if record.get("test"):
                    rows.append((str(path), Verdict(**record)))
    return rows


def test_written_rows_state_their_own_verdict_only():
    rows = _written_rows()
    if not rows:
        pytest.skip("no verdicts.csv or section JSON built by the current reports")
    for path, row in rows:
        assert not detail_disagreements(row), (path, row.claim_id, row.protocol, row.detail)
