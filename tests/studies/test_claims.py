"""Claims judged by their logical form (krepro.studies.claims) and Holm's procedure.

Each test type is exercised on synthetic aggregates whose intervals are known in closed form.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from krepro.studies.claims import (
    EQUIVALENCE,
    EVERY,
    MAGNITUDE,
    PARTS,
    SOME,
    SUPERIORITY,
    ClaimTest,
    Effect,
    bootstrap_indices,
    combine,
    combine_family,
    family_verdict,
    judge,
    judge_claim,
    judge_family,
    stability,
)
from krepro.studies.labels import INCONCLUSIVE, NOT_REPRODUCED, PARTLY, REPRODUCED


def sample(mean, sd, n):
    """n values with exactly this mean and sd (ddof = 1)."""
    z = np.random.default_rng(0).normal(size=n)
    z = (z - z.mean()) / z.std(ddof=1)
    return mean + sd * z


def test_effect_interval_is_students_t_interval():
    values = sample(0.3, 1.2, 9)
    effect = Effect.of(values)
    low, high = effect.interval(0.025, prediction=False)
    expected = stats.t.interval(0.95, 8, loc=values.mean(), scale=stats.sem(values))
    np.testing.assert_allclose((low, high), expected, rtol=1e-12)
    low, high = effect.interval(0.025, prediction=True)
    half = stats.t.ppf(0.975, 8) * values.std(ddof=1) * np.sqrt(1 + 1 / 9)
    np.testing.assert_allclose((low, high), (values.mean() - half, values.mean() + half))


# ------------------------------------------------------------------------- superiority


def test_superiority_interval_straddling_zero_is_inconclusive_with_repetitions_needed():
    test = ClaimTest(SUPERIORITY, margin=0.5, alpha=0.05)
    effect = Effect.of(sample(0.1, 1.0, 10))
    result = judge(test, effect)
    assert result.ci_low < 0 < result.ci_high and result.ci_high > 0.5
    assert result.verdict == "inconclusive"
    # (1 - 2α) two-sided interval: its lower end is the one-sided 95 % bound.
    assert result.ci_low == pytest.approx(0.1 - stats.t.ppf(0.95, 9) / np.sqrt(10))
    needed = result.needed_repetitions
    assert needed is not None and needed > 10
    at = lambda n: judge(test, Effect(0.1, 1.0, n)).verdict  # noqa: E731
    # The first decision the mean 0.1 reaches: its interval excludes the margin 0.5 (the
    # distance 0.4 needs fewer runs than the distance 0.1 to zero).
    assert at(needed) == "not reproduced" and at(needed - 1) == "inconclusive"


def test_superiority_reproduced_and_not_reproduced():
    test = ClaimTest(SUPERIORITY, margin=0.2)
    assert judge(test, Effect.of(sample(1.0, 0.5, 8))).verdict == "reproduced"
    refuted = judge(test, Effect.of(sample(-0.3, 0.2, 8)))
    assert refuted.ci_high < 0.2 and refuted.verdict == "not reproduced"
    assert refuted.needed_repetitions is None


def test_one_repetition_has_no_interval():
    result = judge(ClaimTest(SUPERIORITY, margin=0.1), Effect.of([0.5]))
    assert result.verdict == "inconclusive" and np.isnan(result.ci_low)


# ------------------------------------------------------------------------- equivalence


def test_equivalence_interval_wider_than_the_margin_is_inconclusive():
    test = ClaimTest(EQUIVALENCE, margin=0.1)
    wide = judge(test, Effect.of(sample(0.0, 0.5, 10)))
    assert wide.ci_high - wide.ci_low > 2 * 0.1
    assert wide.verdict == "inconclusive"
    assert judge(test, Effect(0.0, 0.5, wide.needed_repetitions)).verdict == "reproduced"
    narrow = judge(test, Effect.of(sample(0.02, 0.05, 20)))
    assert -0.1 <= narrow.ci_low and narrow.ci_high <= 0.1 and narrow.verdict == "reproduced"
    outside = judge(test, Effect.of(sample(0.5, 0.05, 20)))
    assert outside.ci_low > 0.1 and outside.verdict == "not reproduced"


def test_equivalence_decision_is_tost():
    """Reproduced iff both one-sided tests reject at α."""
    test = ClaimTest(EQUIVALENCE, margin=0.3, alpha=0.05)
    rng = np.random.default_rng(1)
    for _ in range(50):
        values = rng.normal(rng.uniform(-0.5, 0.5), rng.uniform(0.05, 0.6), size=12)
        se, df = stats.sem(values), 11
        p_low = stats.t.sf((values.mean() + 0.3) / se, df)
        p_high = stats.t.cdf((values.mean() - 0.3) / se, df)
        tost = max(p_low, p_high) < 0.05
        assert (judge(test, Effect.of(values)).verdict == "reproduced") == tost


# ------------------------------------------------------------------------- magnitude


def test_one_run_paper_value_inside_and_outside_the_prediction_interval():
    ours = sample(0.15, 0.02, 10)
    inside = ClaimTest(MAGNITUDE, margin=0.005, one_run=True)
    result = judge(inside, Effect.of(ours, offset=0.16))
    assert result.ci_low < 0 < result.ci_high
    # The interval of the mean alone would exclude 0.16 - 0.15 = -0.01 ± 0.005: the one-run
    # interval is what a single split of the paper is compared with.
    mean_only = judge(ClaimTest(MAGNITUDE, margin=0.001), Effect.of(ours, offset=0.17))
    assert mean_only.verdict == "not reproduced"
    assert result.verdict == "reproduced"
    outside = judge(inside, Effect.of(ours, offset=0.30))
    assert outside.ci_high < -0.005 and outside.verdict == "not reproduced"


def test_magnitude_too_wide_to_reproduce_is_inconclusive_and_no_repetitions_help():
    ours = sample(0.15, 0.02, 10)
    test = ClaimTest(MAGNITUDE, margin=0.005, one_run=True, max_width=0.05)
    result = judge(test, Effect.of(ours, offset=0.16))
    assert result.ci_high - result.ci_low > 0.05
    assert result.verdict == "inconclusive"
    # A single run's spread (2 z sd = 0.078) never fits in 0.05.
    assert result.needed_repetitions is None
    mean_test = ClaimTest(MAGNITUDE, margin=0.005, max_width=0.01)
    result = judge(mean_test, Effect.of(ours, offset=0.16))
    assert result.verdict == "inconclusive" and result.needed_repetitions > 10


# ------------------------------------------------------------------------- families


def test_a_raw_contradiction_below_alpha_does_not_survive_holm():
    # Superiority, margin 1: member a's interval lies below the margin at α (alone: not
    # reproduced), its contradiction p is between α/3 and α, and the two others contradict
    # nothing: in the family of 3, Holm judges a first at α/3, where it does not reject.
    test = ClaimTest(SUPERIORITY, margin=1.0, alpha=0.05)
    effects = {
        "a": Effect(mean=0.3, sd=1.0, n=10),
        "b": Effect(mean=0.9, sd=1.0, n=10),
        "c": Effect(mean=1.1, sd=1.0, n=10),
    }
    p_a = stats.t.cdf((0.3 - 1.0) / (1 / np.sqrt(10)), 9)
    assert 0.05 / 3 < p_a < 0.05
    assert judge(test, effects["a"]).verdict == "not reproduced"  # alone it contradicts
    family = judge_family(test, effects)
    assert family["a"].verdict == "inconclusive"
    assert family["a"].alpha == pytest.approx(0.05 / 3)
    assert all(result.family_size == 3 for result in family.values())


def test_support_needs_no_adjustment_every_member_at_alpha():
    # "In every setting" is an intersection-union test: each member is read at α itself.
    test = ClaimTest(SUPERIORITY, margin=1.0, alpha=0.05)
    effects = {name: Effect(mean=0.7, sd=1.0, n=10) for name in "abcde"}  # p ≈ 0.027 each
    family = judge_family(test, effects)
    assert all(j.verdict == "reproduced" and j.alpha == 0.05 for j in family.values())


def test_holm_steps_down():
    test = ClaimTest(SUPERIORITY, margin=1.0, alpha=0.05)
    effects = {"strong": Effect(-3.0, 1.0, 10), "next": Effect(0.3, 1.0, 10)}
    family = judge_family(test, effects)
    # The strongest contradiction rejects at α/2, so the next one is judged at α/1.
    assert family["strong"].verdict == "not reproduced"
    assert family["strong"].alpha == pytest.approx(0.025)
    assert family["next"].verdict == "not reproduced"
    assert family["next"].alpha == pytest.approx(0.05)


# ------------------------------------------------------------------------- stability


def test_bootstrap_stability_drawn_all_at_once():
    test = ClaimTest(SUPERIORITY, margin=0.5)

    def verdict_of(values):
        return judge(test, Effect.of(values)).verdict

    clear = sample(2.0, 0.3, 12)
    assert stability(clear, verdict_of, seed=3, all_at_once=True) == 1.0
    borderline = sample(0.5, 1.0, 12)  # one-sided p close to α
    share = stability(borderline, verdict_of, seed=3, all_at_once=True)
    assert 0.2 < share < 0.95
    assert share == stability(borderline, verdict_of, seed=3, all_at_once=True)


def test_claim_test_from_reference_and_refusals():
    test = ClaimTest.from_reference({"test": "equivalence", "margin": 0.01, "alpha": 0.1})
    assert test == ClaimTest(EQUIVALENCE, 0.01, 0.1)
    with pytest.raises(KeyError, match="margin"):
        ClaimTest.from_reference({"test": "superiority"})
    with pytest.raises(ValueError, match="test must be one of"):
        ClaimTest("bigger", 0.1)
    with pytest.raises(ValueError, match="magnitude claims only"):
        ClaimTest(SUPERIORITY, 0.1, one_run=True)
    with pytest.raises(ValueError, match="margin"):
        ClaimTest(EQUIVALENCE, float("nan"))


# ------------------------------------------------------------------------- one decision path


def test_existence_rule_some_member_holds():
    test = ClaimTest(SUPERIORITY, margin=0.5)
    members = {"a": Effect(2.0, 0.5, 30), "b": Effect(0.1, 1.0, 30)}
    family = combine_family(test, judge_family(test, members), SOME)
    assert family.verdict == REPRODUCED and family.deciding == "a"
    against = {"a": Effect(-1.0, 0.5, 30), "b": Effect(-2.0, 0.5, 30)}
    family = combine_family(test, judge_family(test, against), SOME)
    assert family.verdict == NOT_REPRODUCED and family.deciding == "a"  # the closest to holding
    mixed = {"a": Effect(-1.0, 0.5, 30), "b": Effect(0.2, 1.0, 30)}
    assert combine_family(test, judge_family(test, mixed), SOME).verdict == INCONCLUSIVE
    assert family_verdict(test, list(members.values()), SOME) == REPRODUCED
    assert family_verdict(test, list(against.values()), SOME) == NOT_REPRODUCED


@pytest.mark.parametrize(
    ("rule", "verdicts", "expected"),
    [
        (EVERY, [REPRODUCED, INCONCLUSIVE], INCONCLUSIVE),
        (EVERY, [REPRODUCED, NOT_REPRODUCED], NOT_REPRODUCED),
        (PARTS, [REPRODUCED, NOT_REPRODUCED], PARTLY),
        (PARTS, [NOT_REPRODUCED, NOT_REPRODUCED], NOT_REPRODUCED),
        (PARTS, [INCONCLUSIVE, NOT_REPRODUCED], INCONCLUSIVE),
        (SOME, [INCONCLUSIVE, REPRODUCED], REPRODUCED),
        (SOME, [INCONCLUSIVE, NOT_REPRODUCED], INCONCLUSIVE),
        (SOME, [NOT_REPRODUCED, NOT_REPRODUCED], NOT_REPRODUCED),
    ],
)
def test_family_rules_combine(rule, verdicts, expected):
    assert combine(rule, verdicts) == expected


def test_unknown_rule_and_empty_family_are_refused():
    with pytest.raises(ValueError, match="rule must be one of"):
        combine("most", [REPRODUCED])
    with pytest.raises(ValueError, match="at least one member"):
        combine(EVERY, [])


@settings(max_examples=200, deadline=None)
@given(
    form=st.sampled_from(["superiority", "non-inferiority", "equivalence", "magnitude"]),
    rule=st.sampled_from([EVERY, PARTS, SOME]),
    data=st.lists(
        st.tuples(
            st.floats(-2, 2),
            st.sampled_from([0.0, 0.01, 0.3, 1.0, float("nan")]),
            st.integers(1, 12),
        ),
        min_size=1,
        max_size=6,
    ),
    margin=st.sampled_from([0.0, 0.1, 0.5]),
    max_width=st.sampled_from([None, 0.5]),
)
def test_bootstrap_verdict_is_the_records_verdict(form, rule, data, margin, max_width):
    """One decision table: the verdict-only path agrees with the records on every input,
    zero and undefined spreads included (a resample of identical values is decided as a
    record of identical values is)."""
    test = ClaimTest(form, margin, max_width=max_width if form == MAGNITUDE else None)
    effects = {f"m{i}": Effect(mean, sd, n) for i, (mean, sd, n) in enumerate(data)}
    records = combine_family(test, judge_family(test, effects), rule)
    assert family_verdict(test, list(effects.values()), rule) == records.verdict
    if all(sd != 0 for _, sd, _ in data):
        verdict = family_verdict(test, list(effects.values()), rule, constant_decides=False)
        assert verdict == records.verdict


def test_identical_repetitions_in_the_records_and_in_the_stability():
    """A record of identical repetitions is decided by its zero-width interval. The stability
    of single and family claims reads a resample of identical repetitions as undecided (as
    published); that of existence claims decides it as the records do."""
    claim = {"test": "superiority", "margin": 0.1}
    family, share = judge_claim(claim, {"a": np.full(4, 0.5)}, seed=[1], rule=SOME)
    assert family.verdict == REPRODUCED and share == 1.0
    test = ClaimTest(SUPERIORITY, 0.1)
    assert family_verdict(test, [Effect(0.5, 0.0, 4)]) == REPRODUCED
    assert family_verdict(test, [Effect(0.5, 0.0, 4)], constant_decides=False) == INCONCLUSIVE


def test_stability_draws_all_at_once_or_per_resample():
    values = sample(0.4, 1.0, 9)

    def verdict_of(v):
        return judge(ClaimTest(SUPERIORITY, 0.5), Effect.of(v)).verdict

    rng = np.random.default_rng(np.random.SeedSequence([5]))
    rows = bootstrap_indices(rng, 9, 200)
    expected = np.mean([verdict_of(values[r]) == verdict_of(values) for r in rows])
    assert stability(values, verdict_of, seed=[5], all_at_once=True) == expected
    with pytest.raises(ValueError, match="paired data only"):
        stability({"a": values}, verdict_of, seed=[5], paired=False, all_at_once=True)
