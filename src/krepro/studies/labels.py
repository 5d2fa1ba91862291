"""The verdict vocabulary, defined once: what a verdict may say, and how a detail names the
members of a family without naming a verdict.

* **reproduced** — the claim holds as stated (its interval decides for it);
* **partly reproduced** — a claim with named parts: some parts hold, some are contradicted;
* **inconclusive** — the interval holds both the claim and its contradiction;
* **not reproduced** — the measurement contradicts the paper.

:mod:`krepro.studies.claims` decides them, :mod:`krepro.studies.verdicts` records them.
A member (or part) of a family is described by :data:`MEMBER_WORDS` (``holds``,
``contradicted``, ``undecided``, ``partly holds``), never by a verdict word, so that a detail
names no verdict other than its record's
(:func:`krepro.studies.verdicts.detail_disagreements`).
"""

from __future__ import annotations

__all__ = [
    "INCONCLUSIVE",
    "MEMBER_WORDS",
    "NOT_REPRODUCED",
    "PARTLY",
    "REPRODUCED",
    "VERDICTS",
    "member_word",
]

REPRODUCED = "reproduced"
PARTLY = "partly reproduced"
INCONCLUSIVE = "inconclusive"
NOT_REPRODUCED = "not reproduced"
#: Every verdict, in the order of the report's counts.
VERDICTS = (REPRODUCED, PARTLY, INCONCLUSIVE, NOT_REPRODUCED)

#: How a detail describes a member or part of a family.
MEMBER_WORDS = {
    REPRODUCED: "holds",
    NOT_REPRODUCED: "contradicted",
    INCONCLUSIVE: "undecided",
    PARTLY: "partly holds",
}


def member_word(verdict: str) -> str:
    """``holds``, ``contradicted``, ``undecided`` or ``partly holds`` for a member's verdict."""
    return MEMBER_WORDS[verdict]
