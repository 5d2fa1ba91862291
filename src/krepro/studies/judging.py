"""The claim pipeline: a study's checks × its readings → :class:`~krepro.studies.verdicts.Verdict`
records.

A **check** is one function per claim, ``check(context, claim, seed) -> Outcome | None``:
``context`` is what the study's runs say under one reading, ``claim`` the claim's entry in
``config/paper_reference.yaml`` (its test, margin, level and the claim's own settings), and
``seed`` the entropy of the claim's bootstrap (:func:`krepro.studies.claims.stability_seed`
of the experiment, the claim and the reading). It returns an :class:`Outcome`, or ``None``
when the runs hold none of the settings the claim is about.

:func:`judge_readings` is the one driver: for every reading and claim it calls the check,
writes the "no data" record where the check found nothing, applies the study's guards and
fills the fields every record shares (experiment, paper, scale, reading, primary,
repetitions). A study exposes ``<name>_verdicts(...)``, testable without rendering its
section, and a section builder that only renders; a new claim is one check function plus its
entry in ``config/paper_reference.yaml``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

from krepro.studies.claims import FamilyJudgement, Judgement, stability_seed
from krepro.studies.labels import INCONCLUSIVE
from krepro.studies.readings import Reading
from krepro.studies.verdicts import Verdict, claim_verdict

__all__ = [
    "NO_DATA",
    "NO_JUDGEMENT",
    "READING_REPETITIONS",
    "ClaimSet",
    "Outcome",
    "judge_readings",
    "record",
]

#: The judgement of a claim that no interval could judge (no data): every statistic NaN.
NO_JUDGEMENT = Judgement(INCONCLUSIVE, *[float("nan")] * 5)

#: The detail of a claim whose settings the runs do not hold, unless the study says more.
NO_DATA = "The runs hold none of the settings this claim is about."


class _ReadingRepetitions:
    """The default of :attr:`Outcome.n_repetitions`: the reading's repetitions."""

    def __repr__(self):
        return "READING_REPETITIONS"


READING_REPETITIONS = _ReadingRepetitions()


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a check found for one claim under one reading.

    Parameters
    ----------
    detail : str
        What was measured and why the verdict follows (one paragraph of Markdown).
    judgement : Judgement or FamilyJudgement, optional
        The interval judgement of a claim with a ``test`` (or ``parts``); its verdict is the
        record's unless ``verdict`` is given.
    stability : float, optional
        Bootstrap stability of the verdict.
    verdict : str, optional
        A stated verdict: the verdict of an exact or closed-form check (a claim without a
        test), or a guard's verdict in place of the judgement's.
    measured, paper_value, tolerance : str
        As in :class:`~krepro.studies.verdicts.Verdict`.
    n_repetitions : int or None
        Repetitions the verdict rests on; by default the reading's.
    check_verdict : str
        What the interval test read where a guard overrode it.
    about : tuple of str
        What the outcome rests on where a guard needs to know it (e.g. the classifiers a
        fairness claim compares, :func:`krepro.studies.guards.one_class_guard`).
    """

    detail: str
    judgement: Judgement | FamilyJudgement | None = None
    stability: float | None = None
    verdict: str | None = None
    measured: str = ""
    paper_value: str = ""
    tolerance: str = ""
    n_repetitions: int | _ReadingRepetitions | None = READING_REPETITIONS
    check_verdict: str = ""
    about: tuple = ()

    @classmethod
    def inconclusive(cls, detail: str, **fields) -> Outcome:
        """The inconclusive outcome of a tested claim that no interval could judge (e.g. the
        runs show nothing to compare): :data:`NO_JUDGEMENT`, with the detail and ``fields``."""
        return cls(detail, NO_JUDGEMENT, verdict=INCONCLUSIVE, **fields)

    def replace(self, **changes) -> Outcome:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    @property
    def result(self) -> str:
        """The verdict this outcome gives (stated, else the judgement's)."""
        return self.verdict if self.verdict is not None else self.judgement.verdict


#: ``check(context, claim, seed) -> Outcome | None``.
Check = Callable[[object, Mapping, list], "Outcome | None"]
#: ``guard(context, claim_id, outcome) -> Outcome``: may override a verdict (keeping the
#: interval's in ``check_verdict``).
Guard = Callable[[object, str, Outcome], Outcome]


@dataclasses.dataclass(frozen=True)
class ClaimSet:
    """The claims of one study, as the driver judges them.

    Parameters
    ----------
    experiment : str
        The study's name (the ``experiment`` column).
    paper : str
        The paper's key (the ``paper`` column).
    reference : mapping
        The study's block of ``config/paper_reference.yaml`` (its ``claims``).
    scale : str
        The config's scale name.
    no_data : str or callable, default=NO_DATA
        The detail of a claim whose check found no data (a callable maps the claim's id to
        it).
    seed_names : callable, optional
        ``seed_names(claim_id, reading) -> tuple of str``: the names the claim's bootstrap
        seed is made of (default: experiment, claim, reading).
    reference_paper_values : bool, default=False
        Whether a record whose outcome states no paper value takes the claim's
        ``paper_value`` entry (the reference's words for what the paper reports).
    frame : callable, optional
        ``frame(reading, detail) -> str``: every record's detail under ``reading`` from its
        outcome's (e.g. the reading's name before it), after the guards, the no-data records'
        included (default: the outcome's detail).
    """

    experiment: str
    paper: str
    reference: Mapping
    scale: str
    no_data: str | Callable[[str], str] = NO_DATA
    seed_names: Callable[[str, Reading], tuple] | None = None
    reference_paper_values: bool = False
    frame: Callable[[Reading, str], str] | None = None

    def claim(self, claim_id: str) -> Mapping:
        """The claim's entry in the reference."""
        return self.reference["claims"][claim_id]

    def seed(self, claim_id: str, reading: Reading) -> list[int]:
        """The entropy of the claim's bootstrap under ``reading``."""
        if self.seed_names is None:
            return stability_seed(self.experiment, claim_id, reading.name)
        return stability_seed(*self.seed_names(claim_id, reading))

    def missing(self, claim_id: str) -> Outcome:
        """The outcome of a claim whose settings the runs do not hold: inconclusive."""
        detail = self.no_data(claim_id) if callable(self.no_data) else self.no_data
        claim = self.claim(claim_id)
        tested = "test" in claim or "parts" in claim
        return Outcome(detail, NO_JUDGEMENT if tested else None, verdict=INCONCLUSIVE)


def record(claims: ClaimSet, claim_id: str, outcome: Outcome, reading: Reading) -> Verdict:
    """The :class:`~krepro.studies.verdicts.Verdict` of one outcome under one reading."""
    repetitions = outcome.n_repetitions
    paper_value = (
        claims.claim(claim_id).get("paper_value", "") if claims.reference_paper_values else ""
    )
    if repetitions is READING_REPETITIONS:
        repetitions = reading.repetitions
    detail = outcome.detail if claims.frame is None else claims.frame(reading, outcome.detail)
    return claim_verdict(
        claims.reference,
        claim_id,
        outcome.verdict,
        detail,
        experiment=claims.experiment,
        paper=claims.paper,
        scale=claims.scale,
        protocol=reading.name,
        primary=reading.primary,
        n_repetitions=repetitions,
        paper_value=outcome.paper_value or paper_value,
        measured=outcome.measured,
        tolerance=outcome.tolerance,
        judgement=outcome.judgement,
        stability=outcome.stability,
        check_verdict=outcome.check_verdict,
    )


def judge_readings(
    claims: ClaimSet,
    checks: Mapping[str, Check],
    readings: Sequence[Reading],
    context_of: Callable[[Reading], object],
    *,
    order: str = "reading",
    guards: Sequence[Guard] = (),
) -> list[Verdict]:
    """Every claim under every reading, as verdict records.

    Parameters
    ----------
    claims : ClaimSet
    checks : mapping of str to callable
        Claim id → check, in the order of the records.
    readings : sequence of Reading
        In the order of the records.
    context_of : callable
        ``context_of(reading)``: what the checks read under one reading (built once per
        reading).
    order : {"reading", "claim"}
        Records grouped by reading (every claim of the first reading first) or by claim.
    guards : sequence of callable
        Applied in order to every outcome a check returns.

    Returns
    -------
    list of Verdict
    """
    if order not in ("reading", "claim"):
        raise ValueError(f"order must be 'reading' or 'claim', got {order!r}.")
    contexts = {}

    def context(reading):
        if reading.name not in contexts:
            contexts[reading.name] = context_of(reading)
        return contexts[reading.name]

    def judged(claim_id, reading):
        ctx = context(reading)
        outcome = checks[claim_id](ctx, claims.claim(claim_id), claims.seed(claim_id, reading))
        if outcome is None:
            outcome = claims.missing(claim_id)
        else:
            for guard in guards:
                outcome = guard(ctx, claim_id, outcome)
        return record(claims, claim_id, outcome, reading)

    if order == "reading":
        return [judged(c, r) for r in readings for c in checks]
    return [judged(c, r) for c in checks for r in readings]
