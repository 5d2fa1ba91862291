"""Verdict records: evidence rule, robustness across readings, renderings, provenance."""

import json

import numpy as np
import pandas as pd
import pytest

from krepro.studies.render import assemble_report, render_section, scorecard, summary_html
from krepro.studies.verdicts import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    VERDICT_COLUMNS,
    Section,
    Verdict,
    assign_robustness,
    claim_verdict,
    verdicts_frame,
    verdicts_from_frame,
)
from krepro.workflow.provenance import collect_provenance, config_sha256

REFERENCE = {
    "claims": {
        "a": {"text": "Claim A.", "source": "§1"},
        "b": {"text": "Claim B.", "source": "§2", "kind": "implied claim"},
    },
}


def _verdict(claim_id="a", verdict=REPRODUCED, n=20, protocol="primary", primary=True):
    return claim_verdict(
        REFERENCE,
        claim_id,
        verdict,
        "measured.",
        experiment="exp",
        paper="p",
        scale="quick",
        protocol=protocol,
        primary=primary,
        n_repetitions=n,
    )


def test_unknown_verdict_and_claim_are_refused():
    with pytest.raises(ValueError, match="verdict must be one of"):
        Verdict(experiment="e", claim_id="c", claim="x", verdict="fine", detail="")
    with pytest.raises(KeyError, match="'zzz'"):
        _verdict("zzz")


@pytest.mark.parametrize("verdict", [REPRODUCED, NOT_REPRODUCED, "partly reproduced"])
def test_no_repetition_count_gates_a_verdict(verdict):
    for n in (2, 10, None):
        record = _verdict(verdict=verdict, n=n)
        assert record.verdict == record.check_verdict == verdict
        assert record.detail == "measured."
    assert _verdict("b").kind == "implied claim" and _verdict("a").kind == "paper claim"
    assert "min_repetitions" not in VERDICT_COLUMNS


def test_robustness_single_robust_fragile():
    single = assign_robustness([_verdict("a")])
    assert single[0].robustness == "single"
    robust = assign_robustness(
        [_verdict("a", protocol="x"), _verdict("a", protocol="y", primary=False)]
    )
    assert {v.robustness for v in robust} == {"robust"}
    fragile = assign_robustness(
        [
            _verdict("a", protocol="x"),
            _verdict("a", NOT_REPRODUCED, protocol="y", primary=False),
            _verdict("b", protocol="x"),
        ]
    )
    assert [v.robustness for v in fragile] == ["fragile", "fragile", "single"]
    assert "y (not reproduced)" in fragile[0].detail
    assert "reproduced under x" in fragile[0].detail
    assert assign_robustness(fragile) == fragile  # idempotent: the detail is not extended twice


def test_frame_and_json_round_trips(tmp_path):
    records = assign_robustness(
        [_verdict("a", n=None), _verdict("b", NOT_REPRODUCED, protocol="x", primary=False)]
    )
    frame = verdicts_frame(records)
    assert list(frame.columns) == VERDICT_COLUMNS
    path = tmp_path / "verdicts.csv"
    frame.to_csv(path, index=False)
    back = verdicts_from_frame(pd.read_csv(path, dtype={"n_repetitions": "Int64"}))
    assert back == records
    section = Section("exp", "Title", records, body="| t |", intro="ran")
    assert Section.from_dict(json.loads(json.dumps(section.to_dict()))) == section


def test_renderings_carry_every_primary_verdict():
    records = [
        _verdict("a", protocol="x"),
        _verdict("a", NOT_REPRODUCED, protocol="y", primary=False),
        _verdict("b", INCONCLUSIVE, n=3, protocol="x"),
    ]
    section = Section("exp", "Title", records, body="BODY")
    markdown = render_section(section)
    assert '<a id="exp"></a>' in markdown and "BODY" in markdown
    assert "| **x** (primary) | reproduced | inconclusive |" in markdown
    card = scorecard(assign_robustness(records), scale="quick", paper_command="CMD")
    piped = scorecard(
        [records[0].replace(claim="E[φ(X)|S] converges.")], scale="q", paper_command="C"
    )
    row = next(line for line in piped.splitlines() if line.startswith("| [exp]"))
    assert row.count("|") == 8, row  # the claim's pipe does not open a new cell
    assert "Preview" in card and "CMD" in card
    # Counts: primary records only (claim a reproduced/fragile, claim b inconclusive/single).
    assert "| **paper and implied claims** | 2 | 1 | 0 | 1 | 0 | 0 | 1 | 1 | 0 |" in card
    assert "Preview" not in scorecard(records, scale="paper", paper_command="CMD")
    provenance = collect_provenance({"scale": "quick", "seed": 1}, [], ".")
    report = assemble_report([section], [markdown], provenance, paper_command="CMD")
    assert report.index("## Provenance") < report.index("## Scorecard") < report.index("BODY")
    page = summary_html(report, verdicts_frame(assign_robustness(records)))
    assert page.count("<td style=") >= 3
    assert "<table>" in page and "BODY" in page and "Scorecard</h2>" in page


def test_provenance_keys_and_config_hash():
    provenance = collect_provenance({"scale": "paper", "seed": 1}, ["config/config.yaml"], ".")
    for key in ("commit", "dirty", "scale", "config_sha256", "versions", "date"):
        assert key in provenance
    assert provenance["scale"] == "paper"
    assert provenance["config_files"] == ["config/config.yaml"]
    assert set(provenance["versions"]) >= {"python", "numpy", "scipy", "scikit-learn"}
    assert config_sha256({"a": 1, "b": [1, 2]}) == config_sha256({"b": [1, 2], "a": 1})
    assert config_sha256({"a": 1}) != config_sha256({"a": 2})


def test_distance_correlation_against_a_loop_oracle():
    from krepro.metrics import distance_correlation, distance_correlation_test

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=30), rng.normal(size=30)

    def centred(x):
        d = np.array([[abs(xi - xj) for xj in x] for xi in x])
        return d - d.mean(0)[None, :] - d.mean(1)[:, None] + d.mean()

    A, B = centred(a), centred(b)
    expected = np.sqrt((A * B).mean() / np.sqrt((A * A).mean() * (B * B).mean()))
    assert distance_correlation(a, b) == pytest.approx(expected, rel=1e-12)
    assert distance_correlation(a, 2 * a + 3) == pytest.approx(1.0)
    # Uncorrelated but dependent: b = a² on a symmetric a.
    s = rng.uniform(-1, 1, 300)
    assert abs(np.corrcoef(s, s**2)[0, 1]) < 0.15
    assert distance_correlation_test(s, s**2, n_permutations=50, random_state=1)[1] == 1 / 51


def test_paper_reference_reads_one_block(tmp_path):
    from krepro.studies.verdicts import paper_reference

    path = tmp_path / "reference.yaml"
    path.write_text("oblivious:\n  ridge: {alpha: 0.05}\ncme: {a: 1}\n")
    assert paper_reference(path, "oblivious", "ridge") == {"alpha": 0.05}
    assert paper_reference(path, "cme") == {"a": 1}
    with pytest.raises(KeyError):
        paper_reference(path, "dcm")


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
