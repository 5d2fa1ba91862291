"""A claim judged by its logical form: superiority, equivalence or magnitude, with intervals.

A claim of a paper is a statement about an effect, oriented so that the claim reads

* ``superiority``: "effect > 0" (a method beats another);
* ``equivalence``: "|effect| ≤ margin" (no difference that matters);
* ``non-inferiority``: "effect ≥ −margin" (a method is at least as good as another, up to
  a difference that does not matter);
* ``magnitude``: "effect = 0 within margin", where effect = measured − paper value (the
  paper's number is reproduced).

Each form is a test at level ``alpha``, decided by an interval of the effect:

* superiority is the one-sided test of effect ≤ 0; its interval is the two-sided
  (1 − 2α) interval, whose lower end is the one-sided (1 − α) bound. **reproduced** iff
  ``ci_low > 0``; **not reproduced** iff ``ci_high < margin`` (an effect of the smallest size
  of interest is excluded); else **inconclusive**;
* non-inferiority is the one-sided test of effect ≤ −margin, read from the (1 − 2α)
  interval: **reproduced** iff ``ci_low > -margin``; **not reproduced** iff
  ``ci_high < -margin``; else inconclusive;
* equivalence is the two one-sided tests (TOST) at level α, decided by the (1 − 2α)
  interval: **reproduced** iff ``-margin ≤ ci_low`` and ``ci_high ≤ margin``; **not
  reproduced** iff the interval lies wholly outside ``[-margin, margin]``; else inconclusive;
* magnitude uses the two-sided (1 − α) interval of our mean when the paper's value is a mean
  over repetitions, and the (1 − α) **prediction interval of one run** when the paper's value
  comes from a single run (one split, one figure): **reproduced** iff the interval meets
  ``[-margin, margin]`` and is no wider than ``max_width`` (a noisy measurement cannot
  reproduce a precise number); **not reproduced** iff it lies wholly outside; else
  inconclusive.

A claim over a family of settings is judged member by member and combined by its rule
(:data:`FAMILY_RULES`):

* ``every`` ("in every setting", a ranking, a sweep) holds only if every member holds: an
  intersection-union test, so each member's support is read at level α itself and the
  family's error of calling the claim reproduced is still at most α. Contradicting the claim
  takes only one member, found among many: the contradictions are judged at the levels of
  Holm's step-down procedure over the members' contradiction p-values
  (:func:`krepro.stats.holm_levels`), so that the family's error of calling the claim not
  reproduced is at most α. A raw contradiction that does not survive Holm leaves the member
  inconclusive; ``family_size`` says how many members there are.
* ``parts`` (the claim names its parts): reproduced iff every member holds, not reproduced
  iff every member is contradicted, ``partly reproduced`` iff some hold and some are
  contradicted.
* ``some`` ("some setting shows the effect", an existence claim): reproduced iff some member
  holds, not reproduced iff every member is contradicted. Members are judged as for
  ``every``.

There is one decision path: :func:`_decide` turns the members' intervals at given levels into
decisions, and both the records (:func:`judge_family`, with intervals, reasons and the
repetitions an undecided member would need) and the bootstrap (:func:`family_verdict`, the
verdict only) read it; a single comparison is a family of one.

For an inconclusive verdict, :attr:`Judgement.needed_repetitions` is the number of
repetitions that would make the verdict decisive at the observed mean and variance (``None``
when none would: a prediction interval never gets narrower than the run-to-run noise).
:func:`stability` is the share of bootstrap resamples of the repetitions that give the same
verdict; it is the one resampler of the studies (:func:`bootstrap_indices` draws its
indices).
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from scipy.stats import t as student_t

from krepro.stats import holm_levels, repetitions_for_half_width, t_quantile
from krepro.studies.labels import (
    INCONCLUSIVE,
    MEMBER_WORDS,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    member_word,
)

__all__ = [
    "EQUIVALENCE",
    "EVERY",
    "FAMILY_RULES",
    "MAGNITUDE",
    "MEMBER_WORDS",
    "NONINFERIORITY",
    "PARTS",
    "SOME",
    "SUPERIORITY",
    "TESTS",
    "ClaimTest",
    "Effect",
    "FamilyJudgement",
    "Judgement",
    "bootstrap_indices",
    "combine",
    "combine_family",
    "combine_parts",
    "family_verdict",
    "judge",
    "judge_claim",
    "judge_family",
    "judge_parts",
    "judge_settings",
    "member_word",
    "stability",
    "stability_seed",
]

SUPERIORITY = "superiority"
EQUIVALENCE = "equivalence"
NONINFERIORITY = "non-inferiority"
MAGNITUDE = "magnitude"
TESTS = (SUPERIORITY, EQUIVALENCE, NONINFERIORITY, MAGNITUDE)

EVERY = "every"
PARTS = "parts"
SOME = "some"
FAMILY_RULES = (EVERY, PARTS, SOME)


@dataclasses.dataclass(frozen=True)
class ClaimTest:
    """How a claim is tested, as ``config/paper_reference.yaml`` states it.

    Parameters
    ----------
    test : str
        One of :data:`TESTS`.
    margin : float
        The smallest effect of interest (superiority), the equivalence margin, or the
        tolerance around the paper's value (magnitude; at least the paper's rounding). ≥ 0.
    alpha : float
        Level of the test (of the family, for a family of settings).
    max_width : float or None
        Magnitude only: the widest interval that can reproduce a value (``None``: no limit).
    one_run : bool
        Magnitude only: the paper's value comes from one run, so the interval is the
        prediction interval of one run.
    """

    test: str
    margin: float
    alpha: float = 0.05
    max_width: float | None = None
    one_run: bool = False

    def __post_init__(self):
        if self.test not in TESTS:
            raise ValueError(f"test must be one of {TESTS}, got {self.test!r}.")
        if not (np.isfinite(self.margin) and self.margin >= 0):
            raise ValueError(f"margin must be finite and >= 0, got {self.margin!r}.")
        if not 0 < self.alpha < 0.5:
            raise ValueError(f"alpha must be in (0, 0.5), got {self.alpha!r}.")
        if self.max_width is not None and not self.max_width > 0:
            raise ValueError(f"max_width must be > 0, got {self.max_width!r}.")
        if (self.max_width is not None or self.one_run) and self.test != MAGNITUDE:
            raise ValueError("max_width and one_run apply to magnitude claims only.")

    @classmethod
    def from_reference(cls, claim: Mapping) -> ClaimTest:
        """The test of one claim entry of ``config/paper_reference.yaml``.

        The entry holds ``test``, ``margin`` and optionally ``alpha``, ``max_width`` and
        ``one_run``.
        """
        missing = [key for key in ("test", "margin") if key not in claim]
        if missing:
            raise KeyError(f"the claim states no {' or '.join(missing)}: {dict(claim)!r}")
        return cls(
            test=str(claim["test"]),
            margin=float(claim["margin"]),
            alpha=float(claim.get("alpha", 0.05)),
            max_width=None if claim.get("max_width") is None else float(claim["max_width"]),
            one_run=bool(claim.get("one_run", False)),
        )

    def tail(self, level: float) -> float:
        """Probability in each tail of the interval the test reads at ``level``."""
        return level if self.test != MAGNITUDE else level / 2.0


@dataclasses.dataclass(frozen=True)
class Effect:
    """An estimated effect: mean, standard deviation of one repetition, repetitions.

    Parameters
    ----------
    mean : float
        The estimate (oriented as the claim reads; for magnitude: measured − paper value).
    sd : float
        Standard deviation of one repetition's effect (ddof = 1).
    n : int
        Number of independent repetitions (≥ 2 for an interval).
    """

    mean: float
    sd: float
    n: int

    @classmethod
    def of(cls, values, offset: float = 0.0) -> Effect:
        """The effect of per-repetition ``values`` (minus ``offset``, e.g. the paper's value)."""
        values = np.asarray(values, dtype=float)
        n = int(values.size)
        sd = float(values.std(ddof=1)) if n > 1 else float("nan")
        return cls(mean=float(values.mean()) - offset, sd=sd, n=n)

    def spread(self, prediction: bool) -> float:
        """Standard error of the mean, or of one future run about the mean (prediction)."""
        if self.n < 2:
            return float("nan")
        factor = np.sqrt(1.0 + 1.0 / self.n) if prediction else 1.0 / np.sqrt(self.n)
        return self.sd * factor

    def interval(self, tail: float, prediction: bool) -> tuple[float, float]:
        """Interval with probability ``tail`` in each tail (NaN with fewer than 2 runs)."""
        spread = self.spread(prediction)
        if not np.isfinite(spread):
            return float("nan"), float("nan")
        half = t_quantile(1.0 - tail, self.n - 1) * spread
        return self.mean - half, self.mean + half


@dataclasses.dataclass(frozen=True)
class Judgement:
    """A claim's verdict with the statistics it rests on (columns of ``verdicts.csv``).

    Attributes
    ----------
    verdict : str
        ``reproduced``, ``inconclusive`` or ``not reproduced``.
    effect, ci_low, ci_high : float
        The effect and the interval the decision read.
    margin, alpha : float
        As in :class:`ClaimTest`; ``alpha`` is the member's level within its family.
    family_size : int
        Members of the family the claim was judged in (1: a single comparison).
    needed_repetitions : int or None
        For an inconclusive verdict, the repetitions a decisive one would need at the
        observed variance; ``None`` otherwise or when no number would do.
    reason : str
        One sentence: why the interval gives this verdict.
    """

    verdict: str
    effect: float
    ci_low: float
    ci_high: float
    margin: float
    alpha: float
    family_size: int = 1
    needed_repetitions: int | None = None
    reason: str = ""


@dataclasses.dataclass(frozen=True)
class FamilyJudgement:
    """The verdict of a claim over a family of settings, with its members' judgements.

    Attributes
    ----------
    verdict : str
        The family's verdict under its rule (:func:`combine_family`).
    deciding : str
        The member whose judgement the record reports (the first one that contradicts the
        claim, else the weakest one that supports it, else the first undecided one).
    members : dict of str to Judgement
        Every member's judgement at its Holm level.
    """

    verdict: str
    deciding: str
    members: dict

    @property
    def judgement(self) -> Judgement:
        """The deciding member's judgement (the statistics the verdict record carries)."""
        return self.members[self.deciding]

    def listing(self) -> str:
        """``name: holds / contradicted / undecided`` for every member, in order."""
        return "; ".join(f"{name}: {member_word(j.verdict)}" for name, j in self.members.items())


# --------------------------------------------------------------------------- one decision path

# Decision codes of one interval: no interval, holds, contradicted, undecided, too wide.
_NO_INTERVAL, _HOLDS, _CONTRADICTED, _UNDECIDED, _TOO_WIDE = range(5)
_CODE_VERDICTS = {
    _NO_INTERVAL: INCONCLUSIVE,
    _HOLDS: REPRODUCED,
    _CONTRADICTED: NOT_REPRODUCED,
    _UNDECIDED: INCONCLUSIVE,
    _TOO_WIDE: INCONCLUSIVE,
}
_NOT_SURVIVING_HOLM = (
    "the interval at alpha lies outside the margin, but this contradiction does not survive Holm"
)


@dataclasses.dataclass(frozen=True)
class _Members:
    """The members of a family as arrays: effects, spreads and degrees of freedom."""

    mean: np.ndarray
    spread: np.ndarray
    df: np.ndarray

    @classmethod
    def of(
        cls, test: ClaimTest, effects: Sequence[Effect], *, constant_decides: bool = True
    ) -> _Members:
        """The members' arrays; ``constant_decides=False`` reads a zero spread (identical
        repetitions) as no interval instead of a zero-width one."""
        spread = np.array([e.spread(test.one_run) for e in effects], dtype=float)
        if not constant_decides:
            spread = np.where(spread > 0, spread, np.nan)
        return cls(
            mean=np.array([e.mean for e in effects], dtype=float),
            spread=spread,
            df=np.array([e.n - 1 for e in effects], dtype=float),
        )

    def p_contradiction(self, test: ClaimTest) -> np.ndarray:
        """p-values of the nulls that each member holds (what Holm orders by; NaN: none).

        Its rejection at level ``a`` is the member's "contradicted" at ``a``: superiority
        H0: effect ≥ margin; non-inferiority H0: effect ≥ −margin; equivalence and magnitude
        H0: |effect| ≤ margin (one-sided on the estimate's side for equivalence, whose
        interval is the (1 − 2α) one; two-sided for magnitude).
        """
        valid = np.isfinite(self.spread) & (self.spread > 0)
        scale = np.where(valid, self.spread, 1.0)
        df = np.where(self.df > 0, self.df, 1.0)
        m, d = test.margin, self.mean
        if test.test == SUPERIORITY:
            p = student_t.cdf((d - m) / scale, df)
        elif test.test == NONINFERIORITY:
            p = student_t.cdf((d + m) / scale, df)
        elif test.test == EQUIVALENCE:
            p = student_t.sf((np.abs(d) - m) / scale, df)
        else:
            p = np.minimum(1.0, 2.0 * student_t.sf((np.abs(d) - m) / scale, df))
        return np.where(valid, p, np.nan)

    def intervals(self, test: ClaimTest, levels: np.ndarray):
        """Each member's interval at its level (NaN with fewer than two repetitions)."""
        tails = levels if test.test != MAGNITUDE else levels / 2.0
        with np.errstate(invalid="ignore"):
            half = student_t.ppf(1.0 - tails, self.df) * self.spread
        return self.mean - half, self.mean + half


def _decide(test: ClaimTest, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The decision code of each interval: the decision table of every claim form."""
    m = test.margin
    with np.errstate(invalid="ignore"):
        if test.test == SUPERIORITY:
            holds, contradicted, wide = low > 0, high < m, False
        elif test.test == NONINFERIORITY:
            holds, contradicted, wide = low > -m, high < -m, False
        elif test.test == EQUIVALENCE:
            holds, contradicted, wide = (-m <= low) & (high <= m), (low > m) | (high < -m), False
        else:
            contradicted = (low > m) | (high < -m)
            wide = False if test.max_width is None else (high - low) > test.max_width
            holds = ~contradicted & ~wide
    code = np.where(wide, _TOO_WIDE, _UNDECIDED)
    code = np.where(contradicted, _CONTRADICTED, code)
    code = np.where(holds, _HOLDS, code)
    return np.where(np.isfinite(low) & np.isfinite(high), code, _NO_INTERVAL)


def _reason(test: ClaimTest, code: int, low: float, high: float) -> str:
    """One sentence: why the interval gives its decision."""
    m = test.margin
    if code == _NO_INTERVAL:
        return "no interval (fewer than two repetitions)"
    if code == _TOO_WIDE:
        return f"the interval is wider ({high - low:.4g}) than {test.max_width:.4g}"
    reasons = {
        SUPERIORITY: (
            "the interval lies above 0",
            f"the interval excludes an effect of {m:.4g}",
            f"the interval holds both 0 and {m:.4g}",
        ),
        NONINFERIORITY: (
            f"the interval lies above {-m:.4g}",
            f"the interval lies below {-m:.4g}",
            f"the interval holds {-m:.4g}",
        ),
        EQUIVALENCE: (
            f"the interval lies within ±{m:.4g}",
            f"the interval lies outside ±{m:.4g}",
            f"the interval is not within ±{m:.4g}",
        ),
        MAGNITUDE: (
            f"the interval meets ±{m:.4g} of the paper's value",
            f"the interval lies outside ±{m:.4g} of the paper's value",
            "",
        ),
    }[test.test]
    return reasons[{_HOLDS: 0, _CONTRADICTED: 1, _UNDECIDED: 2}[code]]


def _needed(test: ClaimTest, effect: Effect, level: float) -> int | None:
    """Repetitions that would make an inconclusive verdict decisive at the observed values.

    The half-widths that would decide: for superiority, the mean itself (ci_low > 0) and its
    distance below the margin (ci_high < margin), whichever needs fewer runs; for equivalence,
    the distance of |mean| to the margin; for magnitude, the distance outside the margin or
    half of ``max_width``.
    """
    d, m = effect.mean, test.margin
    if test.test == SUPERIORITY:
        targets = [h for h in (d, m - d) if h > 0]
    elif test.test == NONINFERIORITY:
        targets = [abs(d + m)]
    elif test.test == EQUIVALENCE:
        targets = [abs(m - abs(d))]
    elif abs(d) > m:
        targets = [abs(d) - m]
    else:
        targets = [] if test.max_width is None else [test.max_width / 2.0]
    counts = [
        repetitions_for_half_width(effect.sd, h, test.tail(level), prediction=test.one_run)
        for h in targets
    ]
    counts = [n for n in counts if n is not None]
    return min(counts) if counts else None


@dataclasses.dataclass(frozen=True)
class _Decisions:
    """A family's decisions: at α (support) and at the members' Holm levels (contradiction)."""

    levels: np.ndarray
    support: tuple  # (codes, low, high) at alpha
    holm: tuple  # (codes, low, high) at the Holm levels

    @classmethod
    def of(cls, test: ClaimTest, members: _Members) -> _Decisions:
        size = members.mean.size
        at_alpha = np.full(size, test.alpha)
        low, high = members.intervals(test, at_alpha)
        support = (_decide(test, low, high), low, high)
        if size == 1:
            return cls(at_alpha, support, support)
        levels = holm_levels(members.p_contradiction(test), test.alpha)
        low, high = members.intervals(test, levels)
        return cls(levels, support, (_decide(test, low, high), low, high))

    def verdicts(self) -> list[str]:
        """Each member's verdict: holds at α, else contradicted at its Holm level."""
        size = self.levels.size
        out = []
        for i in range(size):
            code = self.support[0][i]
            if code != _HOLDS and size > 1:
                code = self.holm[0][i]
                code = _UNDECIDED if code == _HOLDS else code
            out.append(_CODE_VERDICTS[int(code)])
        return out


def judge(
    test: ClaimTest,
    effect: Effect,
    *,
    level: float | None = None,
    family_size: int = 1,
    needed: bool = True,
) -> Judgement:
    """The verdict of one comparison at one level (a family of one at ``test.alpha``).

    Parameters
    ----------
    test : ClaimTest
    effect : Effect
        The effect, oriented as the claim reads.
    level : float, optional
        Level of this comparison (default ``test.alpha``).
    family_size : int
        Recorded in the judgement.
    needed : bool
        Whether to compute :attr:`Judgement.needed_repetitions`.
    """
    level = test.alpha if level is None else level
    members = _Members.of(test, [effect])
    low, high = members.intervals(test, np.array([level], dtype=float))
    code = int(_decide(test, low, high)[0])
    return _judgement(test, effect, code, low[0], high[0], level, family_size, needed)


def _judgement(test, effect, code, low, high, level, family_size, needed) -> Judgement:
    verdict = _CODE_VERDICTS[code]
    wanted = needed and verdict == INCONCLUSIVE and effect.n > 1
    return Judgement(
        verdict=verdict,
        effect=effect.mean,
        ci_low=low,
        ci_high=high,
        margin=test.margin,
        alpha=level,
        family_size=family_size,
        needed_repetitions=_needed(test, effect, level) if wanted else None,
        reason=_reason(test, code, low, high),
    )


def judge_family(
    test: ClaimTest, effects: Mapping[str, Effect], *, needed: bool = True
) -> dict[str, Judgement]:
    """Judge every member of a family of settings (support at α, contradictions by Holm).

    A member is **reproduced** when its own interval at ``test.alpha`` supports the claim;
    **not reproduced** when its interval at its Holm level (over the members'
    contradiction p-values) contradicts the claim; else **inconclusive**, with the
    Holm-level interval (a raw contradiction that does not survive Holm reads inconclusive).

    Parameters
    ----------
    test : ClaimTest
        The claim's test; ``test.alpha`` is the family-wise level.
    effects : mapping of str to Effect
        One effect per setting (settings that are numerically the same comparison must be
        passed once).
    needed : bool
        Whether to compute :attr:`Judgement.needed_repetitions`.

    Returns
    -------
    dict of str to Judgement
        In the order of ``effects``.
    """
    names = list(effects)
    size = len(names)
    decisions = _Decisions.of(test, _Members.of(test, [effects[n] for n in names]))
    out = {}
    for i, name in enumerate(names):
        code, low, high = (part[i] for part in decisions.support)
        if code == _HOLDS or size == 1:
            out[name] = _judgement(
                test, effects[name], int(code), low, high, test.alpha, size, needed
            )
            continue
        code, low, high = (part[i] for part in decisions.holm)
        level = float(decisions.levels[i])
        if code == _HOLDS:
            # Magnitude only: the wider Holm interval meets the margin although the
            # interval at alpha did not; support is read at alpha, so no verdict.
            member = _judgement(test, effects[name], int(code), low, high, level, size, False)
            member = dataclasses.replace(member, verdict=INCONCLUSIVE, reason=_NOT_SURVIVING_HOLM)
        else:
            member = _judgement(test, effects[name], int(code), low, high, level, size, needed)
        out[name] = member
    return out


def family_verdict(
    test: ClaimTest,
    effects: Sequence[Effect],
    rule: str = EVERY,
    *,
    constant_decides: bool = True,
) -> str:
    """The verdict of :func:`judge_family` + :func:`combine_family`, without the records.

    The same decisions as the records (:func:`_decide`), without the statistics a record
    needs (reasons, repetition counts): for bootstrap loops, where only the verdict counts.

    ``constant_decides``: whether a member whose repetitions are identical (zero spread) is
    decided by its zero-width interval, as in the records (default), or reads as having no
    interval. The stabilities of :func:`judge_claim` (rules ``every`` and ``parts``) and
    :func:`judge_parts` use the latter, as published; with few repetitions a resample of
    identical repetitions is common, so the two readings give different stabilities.
    """
    _check_rule(rule)
    members = _Members.of(test, effects, constant_decides=constant_decides)
    return combine(rule, _Decisions.of(test, members).verdicts())


# --------------------------------------------------------------------------- family rules


def _check_rule(rule: str) -> None:
    if rule not in FAMILY_RULES:
        raise ValueError(f"rule must be one of {FAMILY_RULES}, got {rule!r}.")


def combine(rule: str, verdicts: Sequence[str]) -> str:
    """A family's verdict from its members' verdicts under ``rule`` (:data:`FAMILY_RULES`).

    ``every``: reproduced iff every member is; not reproduced iff some member is; else
    inconclusive. ``parts``: reproduced iff every member is; not reproduced iff every member
    is; partly reproduced iff some are and some are not; else inconclusive. ``some``:
    reproduced iff some member is; not reproduced iff every member is; else inconclusive.
    """
    _check_rule(rule)
    verdicts = list(verdicts)
    if not verdicts:
        raise ValueError("a family needs at least one member.")
    holds = [v == REPRODUCED for v in verdicts]
    against = [v == NOT_REPRODUCED for v in verdicts]
    if rule == SOME:
        if any(holds):
            return REPRODUCED
        return NOT_REPRODUCED if all(against) else INCONCLUSIVE
    if all(holds):
        return REPRODUCED
    if rule == EVERY:
        return NOT_REPRODUCED if any(against) else INCONCLUSIVE
    if all(against):
        return NOT_REPRODUCED
    if any(holds) and any(against):
        return PARTLY
    return INCONCLUSIVE


def _weakness(test: ClaimTest, judgement: Judgement) -> float:
    """How close a supporting interval comes to not supporting (smaller: weaker)."""
    if test.test == SUPERIORITY:
        return judgement.ci_low
    if test.test == NONINFERIORITY:
        return judgement.ci_low + judgement.margin
    if test.test == EQUIVALENCE:
        return judgement.margin - max(abs(judgement.ci_low), abs(judgement.ci_high))
    return -min(abs(judgement.ci_low), abs(judgement.ci_high))


def combine_family(
    test: ClaimTest, members: Mapping[str, Judgement], rule: str = EVERY
) -> FamilyJudgement:
    """The verdict of a family from its members' judgements (:func:`combine`).

    The deciding member: for ``every`` and ``parts``, the weakest support (reproduced), else
    the first contradiction (not or partly reproduced), else the first undecided member; for
    ``some``, the support with the highest lower bound (reproduced), else the contradiction
    with the highest upper bound (not reproduced), else the first undecided member.
    """
    verdict = combine(rule, [j.verdict for j in members.values()])
    names = {
        v: [name for name, j in members.items() if j.verdict == v]
        for v in (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)
    }
    if rule == SOME and verdict == REPRODUCED:
        deciding = max(names[REPRODUCED], key=lambda n: members[n].ci_low)
    elif rule == SOME and verdict == NOT_REPRODUCED:
        deciding = max(names[NOT_REPRODUCED], key=lambda n: members[n].ci_high)
    elif verdict == REPRODUCED:
        deciding = min(names[REPRODUCED], key=lambda n: _weakness(test, members[n]))
    elif verdict in (NOT_REPRODUCED, PARTLY):
        deciding = names[NOT_REPRODUCED][0]
    else:
        deciding = names[INCONCLUSIVE][0]
    return FamilyJudgement(verdict=verdict, deciding=deciding, members=dict(members))


def combine_parts(families: Mapping[str, FamilyJudgement]) -> FamilyJudgement:
    """A claim with named parts from its parts' families (rule ``parts``).

    The deciding part: the first contradicted one (not reproduced, partly), the first part
    (reproduced), else the first undecided one; each member is its part's deciding judgement.
    """
    verdict = combine(PARTS, [family.verdict for family in families.values()])
    wanted = {REPRODUCED: REPRODUCED, PARTLY: NOT_REPRODUCED, NOT_REPRODUCED: NOT_REPRODUCED}
    target = wanted.get(verdict, INCONCLUSIVE)
    deciding = next(name for name, family in families.items() if family.verdict == target)
    members = {name: family.judgement for name, family in families.items()}
    return FamilyJudgement(verdict, deciding, members)


def judge_settings(
    test: ClaimTest,
    values: Mapping[str, np.ndarray],
    *,
    offset=None,
    rule: str = EVERY,
    needed: bool = True,
) -> FamilyJudgement:
    """A family of settings, each judged from its per-repetition values.

    Parameters
    ----------
    test : ClaimTest
    values : mapping of str to array-like
        Per-repetition effects of each setting, oriented as the claim reads. Settings that
        are numerically the same comparison must be passed once.
    offset : mapping of str to float, optional
        Subtracted from each setting's values (magnitude claims: the paper's value).
    rule : str
        One of :data:`FAMILY_RULES` (:func:`combine`).
    needed : bool
        As in :func:`judge_family`.
    """
    offset = offset or {}
    effects = {name: Effect.of(v, offset.get(name, 0.0)) for name, v in values.items()}
    return combine_family(test, judge_family(test, effects, needed=needed), rule)


# --------------------------------------------------------------------------- the resampler


def bootstrap_indices(rng: np.random.Generator, n: int, n_resamples: int) -> np.ndarray:
    """Row indices of ``n_resamples`` bootstrap resamples of ``n`` rows, drawn in one call."""
    return rng.integers(0, n, size=(n_resamples, n))


def _leaves(values, path=()):
    """The arrays of a (nested) mapping with their key paths, in order."""
    if isinstance(values, Mapping):
        return [leaf for key, v in values.items() for leaf in _leaves(v, (*path, key))]
    return [(path, np.asarray(values, dtype=float))]


def _rebuild(values, arrays, counter):
    if isinstance(values, Mapping):
        return {key: _rebuild(v, arrays, counter) for key, v in values.items()}
    counter[0] += 1
    return arrays[counter[0] - 1]


def stability(
    values,
    verdict_of: Callable,
    *,
    seed: Sequence[int] | int = 0,
    n_resamples: int = 200,
    paired: bool | None = True,
    all_at_once: bool = False,
    observed: str | None = None,
) -> float:
    """Share of bootstrap resamples of the repetitions that give the observed verdict.

    Parameters
    ----------
    values : array-like or (nested) mapping of str to array-like
        Per-repetition data, repetitions along the first axis of every array.
    verdict_of : callable
        Maps data of the same structure as ``values`` to a verdict string.
    seed : int or sequence of int
        Seed of the resampling (``numpy.random.SeedSequence`` entropy; :func:`stability_seed`).
    n_resamples : int
        Bootstrap resamples (≥ 200 for the reported stability).
    paired : bool or None
        Whether the arrays share their repetitions (repetition ``i`` of every array used the
        same draw): then one resample of the indices serves every array; otherwise each
        array is resampled on its own. ``None``: paired iff every array has as many
        repetitions.
    all_at_once : bool
        Draw every resample's indices in one call (:func:`bootstrap_indices`) rather than one
        call per resample (paired data only). The two give different resamples of the same
        seed; each study keeps the one its published stabilities were computed with.
    observed : str, optional
        The verdict the resamples are compared with (default: ``verdict_of(values)``; a
        claim with parts passes its record's verdict).

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    ValueError
        When paired arrays have different numbers of repetitions.
    """
    leaves = [array for _, array in _leaves(values)]
    sizes = [a.shape[0] for a in leaves]
    paired = len(set(sizes)) == 1 if paired is None else paired
    if paired and len(set(sizes)) != 1:
        raise ValueError(f"paired settings need equal repetitions, got {sizes}.")
    if all_at_once and not paired:
        raise ValueError("all_at_once draws one index set per resample: paired data only.")
    if observed is None:
        observed = verdict_of(_rebuild(values, leaves, [0]))
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    if all_at_once:
        draws = iter(bootstrap_indices(rng, sizes[0], n_resamples))
    same = 0
    for _ in range(n_resamples):
        if all_at_once:
            rows = next(draws)
            resample = [a[rows] for a in leaves]
        elif paired:
            rows = rng.integers(0, sizes[0], size=sizes[0])
            resample = [a[rows] for a in leaves]
        else:
            resample = [a[rng.integers(0, a.shape[0], size=a.shape[0])] for a in leaves]
        same += verdict_of(_rebuild(values, resample, [0])) == observed
    return same / n_resamples


def stability_seed(*names: str) -> list[int]:
    """A ``SeedSequence`` entropy for the bootstrap of one claim, from its names.

    The same claim under the same reading gets the same resamples on every run and machine
    (CRC-32 of each name; the names are e.g. experiment, claim and reading).
    """
    return [zlib.crc32(name.encode("utf-8")) for name in names]


# --------------------------------------------------------------------------- claims


def judge_claim(
    claim: Mapping,
    values,
    *,
    seed: Sequence[int] | int,
    rule: str = EVERY,
    offset=None,
    paired: bool | None = True,
    n_resamples: int = 200,
) -> tuple[FamilyJudgement, float]:
    """Judge a claim of ``config/paper_reference.yaml`` and measure its stability.

    Parameters
    ----------
    claim : mapping
        The claim's entry (``test``, ``margin``, ``alpha``, ...; :meth:`ClaimTest.from_reference`),
        or an entry with named ``parts`` (:func:`judge_parts`).
    values : array-like or mapping of str to array-like
        Per-repetition effects, oriented as the claim reads: one array for a single
        comparison, one per setting for a family (settings that are numerically the same
        comparison passed once); for a claim with parts, one such mapping per part.
    seed : int or sequence of int
        Entropy of the bootstrap (:func:`stability_seed` of the claim's names).
    rule : str
        One of :data:`FAMILY_RULES` (ignored for a claim with parts).
    offset : float or mapping, optional
        Subtracted from the values (magnitude claims: the paper's value), per setting (per
        part and setting for a claim with parts).
    paired, n_resamples
        As in :func:`stability`.

    Returns
    -------
    FamilyJudgement
        A single comparison is a family of one member named ``""``.
    float
        The bootstrap stability of the verdict.
    """
    if "parts" in claim:
        return judge_parts(claim, values, seed=seed, offset=offset, n_resamples=n_resamples)
    test = ClaimTest.from_reference(claim)
    if not isinstance(values, Mapping):
        values = {"": values}
        offset = None if offset is None else {"": offset}
    offset = offset or {}

    def verdict_of(resample):
        effects = [Effect.of(v, offset.get(name, 0.0)) for name, v in resample.items()]
        return family_verdict(test, effects, rule, constant_decides=rule == SOME)

    family = judge_settings(test, values, offset=offset, rule=rule)
    return family, stability(values, verdict_of, paired=paired, n_resamples=n_resamples, seed=seed)


def judge_parts(
    claim: Mapping,
    values: Mapping[str, Mapping[str, np.ndarray]],
    *,
    seed: Sequence[int] | int,
    offset: Mapping[str, Mapping[str, float]] | None = None,
    n_resamples: int = 200,
) -> tuple[FamilyJudgement, float]:
    """Judge a claim with named parts, each part a family with its own test.

    The claim's entry holds ``alpha`` and ``parts``: one entry per part with ``test`` and
    ``margin`` (and optionally ``alpha``, ``max_width``, ``one_run``). Each part is judged
    over its settings with rule :data:`EVERY` (Holm within the part); the parts combine with
    rule :data:`PARTS` (:func:`combine_parts`). Requiring every part is an
    intersection-union test: no adjustment across parts is needed.

    Parameters
    ----------
    claim : mapping
        The claim's entry of ``config/paper_reference.yaml``.
    values : mapping of str to mapping of str to array-like
        Per part, the per-repetition effects of each setting.
    seed, n_resamples
        As in :func:`stability`; every setting of every part is resampled with the same
        repetition indices when all have the same number of repetitions (paired).
    offset : mapping, optional
        Per part, per setting, subtracted from the values (magnitude parts).

    Returns
    -------
    FamilyJudgement
        Members are named ``part`` (the deciding member of each part); ``deciding`` names
        the part that decides the claim.
    float
        Bootstrap stability of the verdict.
    """
    parts = claim["parts"]
    if set(parts) != set(values):
        raise ValueError(f"the claim's parts are {sorted(parts)}, got values for {sorted(values)}.")
    alpha = claim.get("alpha", 0.05)
    tests = {
        name: ClaimTest.from_reference({"alpha": alpha, **entry}) for name, entry in parts.items()
    }
    offset = offset or {}

    def verdict_of(resample):
        return combine(
            PARTS,
            [
                family_verdict(
                    tests[name],
                    [Effect.of(v, offset.get(name, {}).get(s, 0.0)) for s, v in settings.items()],
                    EVERY,
                    constant_decides=False,
                )
                for name, settings in resample.items()
            ],
        )

    families = {
        name: judge_settings(tests[name], values[name], offset=offset.get(name), rule=EVERY)
        for name in parts
    }
    result = combine_parts(families)
    return result, stability(
        values,
        verdict_of,
        paired=None,
        n_resamples=n_resamples,
        seed=seed,
        observed=result.verdict,
    )
