"""Families of paired comparisons (krepro.studies.families)."""

from __future__ import annotations

import numpy as np

from krepro.studies.claims import FamilyJudgement, Judgement
from krepro.studies.families import deciding, member_counts, member_listing, merge_identical
from krepro.studies.labels import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from krepro.studies.verdicts import stated_verdicts


def test_merge_identical_counts_numerically_equal_series_once():
    same = np.array([0.01, 0.02, 0.03])
    merged, groups = merge_identical({"a": same, "b": same + 0.001, "c": same + 0.05}, tol=0.002)
    assert list(merged) == ["a = b", "c"]
    np.testing.assert_allclose(merged["a = b"], same + 0.0005)
    ((names, mean, top),) = groups
    assert names == ("a", "b") and np.isclose(mean, 0.001) and np.isclose(top, 0.001)


def test_members_are_described_and_counted_by_words_that_are_not_verdicts():
    def judged(verdict, effect):
        return Judgement(verdict, effect, effect - 0.01, effect + 0.01, 0.0, 0.05)

    members = {
        "a": judged(REPRODUCED, 0.05),
        "": judged(NOT_REPRODUCED, -0.05),
        "c": judged(INCONCLUSIVE, 0.0),
    }
    listing = member_listing(members)
    assert listing == (
        "a: holds (+0.05, [0.04, 0.06]); the comparison: contradicted (-0.05, [-0.06, -0.04]);"
        " c: undecided (+0, [-0.01, 0.01])"
    )
    assert stated_verdicts(listing) == []
    assert member_counts(members) == "1 holds / 1 contradicted / 1 undecided / 0 partly holds"


def test_a_template_writes_the_members_and_the_deciding_member_is_named():
    members = {
        "a": Judgement(REPRODUCED, 0.05, 0.04, 0.06, 0.0, 0.05),
        "b": Judgement(INCONCLUSIVE, 0.01, -0.02, 0.04, 0.2, 0.05),
    }
    listing = member_listing(
        members, template="{name} {word} {effect:+.2f} [{low:.2f}, {high:.2f}]"
    )
    assert listing == "a holds +0.05 [0.04, 0.06]; b undecided +0.01 [-0.02, 0.04]"
    family = FamilyJudgement(INCONCLUSIVE, "b", members)
    assert deciding(family, "setting", detail=lambda j: f"{j.effect:g}.") == (
        "Deciding setting (b): 0.01."
    )
