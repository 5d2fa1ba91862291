"""Verdict records (krepro.studies.verdicts): evidence rule, robustness across readings,
renderings, records of claims judged by their logical form, details that state their own
verdict only."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from krepro.studies import STUDIES
from krepro.studies.claims import (
    EVERY,
    PARTS,
    ClaimTest,
    Effect,
    combine_family,
    judge,
    judge_claim,
    judge_parts,
    judge_settings,
    stability,
    stability_seed,
)
from krepro.studies.render import assemble_report, render_section, scorecard, summary_html
from krepro.studies.verdicts import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    VERDICT_COLUMNS,
    Section,
    Verdict,
    assign_robustness,
    claim_verdict,
    detail_disagreements,
    stated_verdicts,
    verdicts_frame,
    verdicts_from_frame,
)
from krepro.workflow.provenance import collect_provenance

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


def test_paper_reference_reads_one_block(tmp_path):
    from krepro.studies.verdicts import paper_reference

    path = tmp_path / "reference.yaml"
    path.write_text("oblivious:\n  ridge: {alpha: 0.05}\ncme: {a: 1}\n")
    assert paper_reference(path, "oblivious", "ridge") == {"alpha": 0.05}
    assert paper_reference(path, "cme") == {"a": 1}
    with pytest.raises(KeyError):
        paper_reference(path, "dcm")


# ---------------------------------------------------------------------------------------------
# Verdict records of claims judged by their logical form (krepro.studies.verdicts + claims).
#
# Synthetic aggregates with intervals known in closed form go through the same path as a
# study's report code (``claim_verdict`` with a judgement) and the tests assert on the records.


def sample(mean, sd, n, seed=0):
    """n values with exactly this mean and sd (ddof = 1)."""
    z = np.random.default_rng(seed).normal(size=n)
    z = (z - z.mean()) / z.std(ddof=1)
    return mean + sd * z


def reference(**claim):
    entry = {"text": "A claim.", "source": "§1", **claim}
    return {"claims": {"c": entry}}


def record(ref, judgement, **kwargs):
    return claim_verdict(
        ref,
        "c",
        None,
        "Measured.",
        experiment="e",
        paper="p",
        scale="s",
        n_repetitions=10,
        judgement=judgement,
        **kwargs,
    )


def test_superiority_straddling_zero_is_an_inconclusive_record_without_repetition_gate():
    ref = reference(test="superiority", margin=0.5, alpha=0.05)
    test = ClaimTest.from_reference(ref["claims"]["c"])
    straddling = record(ref, judge(test, Effect.of(sample(0.1, 1.0, 10))))
    assert straddling.verdict == INCONCLUSIVE
    assert straddling.ci_low < 0 < straddling.ci_high
    assert straddling.test == "superiority" and straddling.margin == 0.5
    clear = record(ref, judge(test, Effect.of(sample(2.0, 1.0, 10))))
    assert clear.verdict == REPRODUCED and clear.check_verdict == REPRODUCED
    assert clear.ci_low > 0


def test_equivalence_interval_wider_than_margin_is_an_inconclusive_record():
    ref = reference(test="equivalence", margin=0.2, alpha=0.05)
    test = ClaimTest.from_reference(ref["claims"]["c"])
    wide = record(ref, judge(test, Effect.of(sample(0.0, 1.0, 10))))
    assert wide.verdict == INCONCLUSIVE
    assert wide.ci_high - wide.ci_low > 2 * 0.2
    narrow = record(ref, judge(test, Effect.of(sample(0.0, 0.1, 30))))
    assert narrow.verdict == REPRODUCED
    assert -0.2 <= narrow.ci_low and narrow.ci_high <= 0.2


def test_one_run_paper_value_inside_and_outside_the_prediction_interval_records():
    ref = reference(test="magnitude", margin=0.005, alpha=0.05, one_run=True, max_width=0.2)
    test = ClaimTest.from_reference(ref["claims"]["c"])
    runs = sample(0.80, 0.02, 10)  # our runs; one run sd 0.02 -> prediction half-width ~0.047
    inside = record(ref, judge(test, Effect.of(runs, offset=0.83)))
    assert inside.verdict == REPRODUCED and inside.ci_low < 0 < inside.ci_high
    outside = record(ref, judge(test, Effect.of(runs, offset=0.90)))
    assert outside.verdict == NOT_REPRODUCED and outside.ci_high < -0.005
    # The prediction interval of one run is wider than the interval of the mean.
    mean_interval = Effect.of(runs).interval(0.025, prediction=False)
    assert inside.ci_high - inside.ci_low > mean_interval[1] - mean_interval[0]


def test_family_where_one_raw_p_below_alpha_does_not_survive_holm():
    ref = reference(test="superiority", margin=0.3, alpha=0.05)
    test = ClaimTest.from_reference(ref["claims"]["c"])
    # Setting a alone: its interval lies below the margin (contradiction p ~ 0.02 < 0.05);
    # among 5 settings Holm judges it first, at 0.01, where it does not contradict.
    values = {"a": sample(0.1, 0.3, 12)}
    values |= {name: sample(0.6, 0.3, 12, seed=i) for i, name in enumerate("bcde", 1)}
    assert judge(test, Effect.of(values["a"])).verdict == NOT_REPRODUCED
    family = judge_settings(test, values, rule=EVERY)
    assert family.members["a"].verdict == INCONCLUSIVE
    assert all(family.members[name].verdict == REPRODUCED for name in "bcde")
    assert family.verdict == INCONCLUSIVE and family.deciding == "a"
    rec = record(ref, family.judgement)
    assert rec.family_size == 5 and rec.alpha == pytest.approx(0.01)
    assert rec.verdict == INCONCLUSIVE and rec.ci_low < 0.3 < rec.ci_high


def test_family_rules():
    test = ClaimTest("superiority", margin=0.5)
    yes = judge(test, Effect(2.0, 0.5, 20))
    no = judge(test, Effect(-2.0, 0.5, 20))
    maybe = judge(test, Effect(0.2, 2.0, 20))
    assert (yes.verdict, no.verdict, maybe.verdict) == (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)
    assert combine_family(test, {"a": yes, "b": no}, EVERY).verdict == NOT_REPRODUCED
    assert combine_family(test, {"a": yes, "b": no}, PARTS).verdict == PARTLY
    assert combine_family(test, {"a": yes, "b": maybe}, PARTS).verdict == INCONCLUSIVE
    assert combine_family(test, {"a": no, "b": no}, PARTS).verdict == NOT_REPRODUCED
    assert combine_family(test, {"a": yes, "b": yes}, EVERY).verdict == REPRODUCED
    weaker = judge(test, Effect(1.0, 0.5, 20))
    assert combine_family(test, {"a": yes, "b": weaker}, EVERY).deciding == "b"
    with pytest.raises(ValueError, match="rule"):
        combine_family(test, {"a": yes}, "most")


def test_claim_with_a_test_needs_a_judgement_and_identity_is_stable():
    ref = reference(test="superiority", margin=0.5)
    with pytest.raises(ValueError, match="needs a judgement"):
        claim_verdict(ref, "c", REPRODUCED, "x", experiment="e", paper="p", scale="s")
    ident = {"claims": {"c": {"text": "t", "source": "s", "kind": "identity"}}}
    rec = claim_verdict(ident, "c", REPRODUCED, "Exact.", experiment="e", paper="p", scale="s")
    assert rec.kind == "identity" and rec.stability == 1.0
    bad = {"claims": {"c": {"text": "t", "source": "s", "kind": "anecdote"}}}
    with pytest.raises(ValueError, match="kind must be one of"):
        claim_verdict(bad, "c", REPRODUCED, "x", experiment="e", paper="p", scale="s")


def test_records_round_trip_through_the_table_with_every_column():
    ref = reference(test="superiority", margin=0.5)
    test = ClaimTest.from_reference(ref["claims"]["c"])
    untested = claim_verdict(
        {"claims": {"d": {"text": "t", "source": "s"}}},
        "d",
        REPRODUCED,
        "x",
        experiment="e",
        paper="p",
        scale="s",
    )
    records = [record(ref, judge(test, Effect.of(sample(1.0, 1.0, 10))), stability=0.9), untested]
    frame = verdicts_frame(records)
    assert list(frame.columns) == VERDICT_COLUMNS
    for column in ("kind", "test", "effect", "ci_low", "ci_high", "margin", "alpha"):
        assert column in frame.columns
    text = frame.to_csv(index=False)
    back = verdicts_from_frame(pd.read_csv(__import__("io").StringIO(text)))
    assert back[0].stability == 0.9 and back[0].family_size == 1
    assert back[0].ci_low == pytest.approx(records[0].ci_low)
    assert back[1].effect is None and back[1].test == ""


def test_stability_paired_and_unpaired():
    test = ClaimTest("superiority", margin=0.5)
    clear = {"a": sample(3.0, 0.5, 15), "b": sample(2.0, 0.5, 15, seed=1)}

    def verdict_of(values):
        return judge_settings(test, values).verdict

    assert stability(clear, verdict_of, seed=stability_seed("e", "c")) == 1.0
    borderline = {"a": sample(0.35, 1.0, 15)}
    share = stability(borderline, verdict_of, paired=False, seed=[1, 2])
    assert 0.0 < share < 1.0
    with pytest.raises(ValueError, match="equal repetitions"):
        stability({"a": np.ones(3), "b": np.ones(4)}, verdict_of)
    assert stability_seed("e", "c") == stability_seed("e", "c") != stability_seed("e", "d")


def test_non_inferiority():
    test = ClaimTest("non-inferiority", margin=0.5)
    assert judge(test, Effect(0.0, 0.5, 30)).verdict == REPRODUCED  # ci_low ~ -0.15 > -0.5
    assert judge(test, Effect(-2.0, 0.5, 30)).verdict == NOT_REPRODUCED
    undecided = judge(test, Effect(-0.5, 0.5, 30))
    assert undecided.verdict == INCONCLUSIVE and undecided.ci_low < -0.5 < undecided.ci_high
    assert undecided.needed_repetitions is None or undecided.needed_repetitions > 30


def test_judge_claim_single_and_family():
    claim = {"test": "superiority", "margin": 0.2, "alpha": 0.05}
    family, stability = judge_claim(claim, sample(1.0, 0.5, 20), seed=[1])
    assert family.verdict == REPRODUCED and family.deciding == "" and stability == 1.0
    magnitude = {"test": "magnitude", "margin": 0.01, "alpha": 0.05}
    family, _ = judge_claim(
        magnitude,
        {"a": sample(0.5, 0.01, 20), "b": sample(0.7, 0.01, 20)},
        offset={"a": 0.5, "b": 0.5},
        rule=PARTS,
        seed=[2],
    )
    assert family.verdict == PARTLY and family.deciding == "b"


def test_judge_parts_partly_only_when_parts_disagree():
    claim = {
        "alpha": 0.05,
        "parts": {
            "gap": {"test": "superiority", "margin": 0.2},
            "ends": {"test": "equivalence", "margin": 0.1},
        },
    }
    gap_yes = {"0.5": sample(1.0, 0.3, 20)}
    ends_yes = {"0": sample(0.0, 0.05, 20, seed=1), "1": sample(0.0, 0.05, 20, seed=2)}
    ends_no = {"0": sample(1.0, 0.05, 20, seed=1), "1": sample(0.0, 0.05, 20, seed=2)}
    result, stability = judge_parts(claim, {"gap": gap_yes, "ends": ends_yes}, seed=[3])
    assert result.verdict == REPRODUCED and stability == 1.0
    result, _ = judge_parts(claim, {"gap": gap_yes, "ends": ends_no}, seed=[3])
    assert result.verdict == PARTLY and result.deciding == "ends"
    assert result.judgement.ci_low > 0.1  # the contradicting member: setting "0"
    undecided = {"0.5": sample(0.1, 1.0, 20)}
    result, _ = judge_parts(claim, {"gap": undecided, "ends": ends_yes}, seed=[3])
    assert result.verdict == INCONCLUSIVE and result.deciding == "gap"
    with pytest.raises(ValueError, match="parts"):
        judge_parts(claim, {"gap": gap_yes}, seed=[3])


@pytest.mark.parametrize("form", ["superiority", "non-inferiority", "equivalence", "magnitude"])
@pytest.mark.parametrize("rule", [EVERY, PARTS])
def test_vectorised_family_verdict_is_the_per_member_one(form, rule):
    from krepro.studies.claims import family_verdict, judge_family

    rng = np.random.default_rng(hash((form, rule)) % 2**32)
    test = ClaimTest(form, margin=0.3, alpha=0.05, max_width=1.0 if form == "magnitude" else None)
    agree = 0
    for _ in range(150):
        k = int(rng.integers(1, 7))
        effects = {
            str(i): Effect(
                float(rng.normal(0.3, 0.5)), float(rng.uniform(0.05, 1.5)), int(rng.integers(2, 40))
            )
            for i in range(k)
        }
        slow = combine_family(test, judge_family(test, effects, needed=False), rule).verdict
        agree += slow == family_verdict(test, list(effects.values()), rule)
    assert agree == 150


# ---------------------------------------------------------------------------------------------
# No verdict's detail states a different verdict than its record.
#
# The check (:func:`krepro.studies.verdicts.detail_disagreements`) scans a
# detail for the verdict phrases (word boundaries; "not reproduced" and "partly reproduced" are
# not also read as "reproduced"), leaving out the robustness note on other readings and a
# "would read" preview where the record's ``check_verdict`` differs from its verdict. It runs
# on the rows of a written ``verdicts.csv`` or section JSON built by the current reports, and,
# in a study's folder (tests/studies/<name>/test_verdicts.py), on sections built from
# constructed run tables and on their ``verdicts.csv`` rows.


ROOT = Path(__file__).resolve().parents[2]


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


def assert_sections_state_their_own_verdict_only(sections, verdicts):
    """No record of ``sections`` (a study's sections built from constructed run tables), nor
    its ``verdicts.csv`` row, states another verdict than its own; ``verdicts``: the verdicts
    the sections must reach between them (so that each phrase is exercised)."""
    records = assign_robustness([v for section in sections for v in section.verdicts])
    assert set(verdicts) <= {r.verdict for r in records}
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
    for study in STUDIES.values():
        path = ROOT / "results" / study.section
        if path.suffix == ".json" and path.exists():
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
