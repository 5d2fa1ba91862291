"""The one judging driver (krepro.studies.judging): checks × readings → verdict records."""

from __future__ import annotations

import numpy as np
import pytest

from krepro.studies.claims import judge_claim
from krepro.studies.judging import ClaimSet, Outcome, judge_readings
from krepro.studies.labels import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from krepro.studies.readings import Reading

REFERENCE = {
    "claims": {
        "positive": {"text": "The effect is positive.", "source": "toy", "test": "superiority",
                     "margin": 0.1},
        "closed_form": {"text": "A closed form holds.", "source": "toy", "kind": "identity"},
    }
}  # fmt: skip
READINGS = [Reading("a", {"reading": "a"}, True, 12), Reading("b", {"reading": "b"}, False, 12)]
EFFECTS = {"a": np.linspace(0.5, 1.5, 12), "b": None}


def positive(context, claim, seed):
    if context is None:
        return None
    result, stability = judge_claim(claim, context, seed=seed)
    return Outcome("Mean effect.", result, stability, measured=f"{context.mean():.2f}")


def closed_form(context, claim, seed):
    return Outcome("Exact.", verdict=REPRODUCED, n_repetitions=None)


CHECKS = {"positive": positive, "closed_form": closed_form}


def claims(**kwargs):
    return ClaimSet("toy", "cme", REFERENCE, "quick", **kwargs)


def test_every_claim_under_every_reading_with_the_common_fields():
    records = judge_readings(claims(), CHECKS, READINGS, lambda r: EFFECTS[r.name])
    assert [(v.claim_id, v.protocol) for v in records] == [
        ("positive", "a"),
        ("closed_form", "a"),
        ("positive", "b"),
        ("closed_form", "b"),
    ]
    first = records[0]
    assert (first.verdict, first.primary, first.n_repetitions, first.test) == (
        REPRODUCED,
        True,
        12,
        "superiority",
    )
    assert records[1].n_repetitions is None and records[1].stability == 1.0  # an identity
    by_claim = judge_readings(claims(), CHECKS, READINGS, lambda r: EFFECTS[r.name], order="claim")
    assert [(v.claim_id, v.protocol) for v in by_claim][:2] == [
        ("positive", "a"),
        ("positive", "b"),
    ]


def test_no_data_is_an_inconclusive_record_with_the_studys_words():
    records = judge_readings(
        claims(no_data=lambda claim_id: f"No runs for {claim_id}."),
        CHECKS,
        READINGS,
        lambda r: EFFECTS[r.name],
    )
    missing = records[2]
    assert missing.verdict == INCONCLUSIVE and missing.detail == "No runs for positive."
    assert missing.test == "superiority" and missing.effect is None  # NaN reads as missing


def test_a_guard_overrides_the_verdict_and_keeps_what_the_interval_read():
    def guard(context, claim_id, outcome):
        if claim_id != "positive":
            return outcome
        return outcome.replace(verdict=NOT_REPRODUCED, check_verdict=outcome.result)

    record = judge_readings(claims(), CHECKS, READINGS[:1], lambda r: EFFECTS["a"], guards=[guard])[
        0
    ]
    assert (record.verdict, record.check_verdict) == (NOT_REPRODUCED, REPRODUCED)


def test_the_stability_seed_comes_from_the_claims_names():
    seeds = []

    def check(context, claim, seed):
        seeds.append(seed)
        return closed_form(context, claim, seed)

    judge_readings(claims(), {"closed_form": check}, READINGS[:1], lambda r: None)
    judge_readings(
        claims(seed_names=lambda claim_id, reading: ("toy", claim_id)),
        {"closed_form": check},
        READINGS[:1],
        lambda r: None,
    )
    assert seeds[0] != seeds[1] and len(seeds[0]) == 3 and len(seeds[1]) == 2
    with pytest.raises(ValueError, match="order must be"):
        judge_readings(claims(), CHECKS, READINGS, lambda r: None, order="random")


def test_frame_writes_every_detail_under_its_reading_no_data_included():
    records = judge_readings(
        claims(frame=lambda reading, detail: f"Reading {reading.name}: {detail}"),
        CHECKS,
        READINGS,
        lambda r: EFFECTS[r.name],
    )
    assert records[0].detail == "Reading a: Mean effect."
    assert records[2].detail.startswith("Reading b: The runs hold none")


def test_a_guard_reads_what_the_outcome_is_about():
    def check(context, claim, seed):
        return Outcome("Exact.", verdict=REPRODUCED, about=("x", "y"))

    def guard(context, claim_id, outcome):
        return outcome.replace(detail=f"{outcome.detail} About {', '.join(outcome.about)}.")

    record = judge_readings(
        claims(), {"closed_form": check}, READINGS[:1], lambda r: None, guards=[guard]
    )[0]
    assert record.detail == "Exact. About x, y."


def test_reference_paper_values_fill_records_that_state_none_no_data_included():
    claims_in = REFERENCE["claims"].items()
    reference = {"claims": {k: dict(v, paper_value=f"{k} in the paper") for k, v in claims_in}}

    def stated(context, claim, seed):
        return Outcome("Exact.", verdict=REPRODUCED, paper_value="stated")

    checks = {"positive": positive, "closed_form": stated}
    found = ClaimSet("toy", "cme", reference, "quick", reference_paper_values=True)
    records = judge_readings(found, checks, READINGS, lambda r: EFFECTS[r.name])
    assert [v.paper_value for v in records] == [
        "positive in the paper",
        "stated",
        "positive in the paper",  # no data
        "stated",
    ]
    plain = judge_readings(claims(), CHECKS, READINGS, lambda r: EFFECTS[r.name])
    assert {v.paper_value for v in plain} == {""}


def test_an_inconclusive_outcome_is_a_record_of_no_judgement_with_its_fields():
    def nothing_to_compare(context, claim, seed):
        return Outcome.inconclusive("Nothing to compare.", measured="none")

    (record,) = judge_readings(
        claims(), {"positive": nothing_to_compare}, READINGS[:1], lambda r: None
    )
    assert (record.verdict, record.detail, record.measured) == (
        INCONCLUSIVE,
        "Nothing to compare.",
        "none",
    )
    assert record.test == "superiority" and record.effect is None
