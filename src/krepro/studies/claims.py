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

A claim over a family of settings (a ranking, "in every setting", a sweep) holds only if it
holds for every member: it is an intersection-union test, so each member's support is read at
level α itself and the family's error of calling the claim reproduced is still at most α.
Contradicting the claim takes only one member, found among many: the contradictions are
judged at the levels of Holm's step-down procedure over the members' contradiction p-values
(:func:`krepro.stats.holm_levels`), so that the family's error of calling the claim not
reproduced is at most α. A raw contradiction that does not survive Holm leaves the member
inconclusive; ``family_size`` says how many members there are.

For an inconclusive verdict, :attr:`Judgement.needed_repetitions` is the number of
repetitions that would make the verdict decisive at the observed mean and variance (``None``
when none would: a prediction interval never gets narrower than the run-to-run noise).
:func:`bootstrap_stability` is the share of bootstrap resamples of the repetitions that give
the same verdict.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from scipy.stats import t as student_t

from krepro.stats import holm_levels, repetitions_for_half_width, t_quantile

__all__ = [
    "EQUIVALENCE",
    "EVERY",
    "MAGNITUDE",
    "MEMBER_WORDS",
    "NONINFERIORITY",
    "PARTS",
    "SUPERIORITY",
    "TESTS",
    "ClaimTest",
    "Effect",
    "FamilyJudgement",
    "Judgement",
    "bootstrap_stability",
    "combine_family",
    "combine_parts",
    "combine_verdicts",
    "family_stability",
    "family_verdict",
    "judge",
    "judge_claim",
    "judge_family",
    "judge_parts",
    "judge_settings",
    "judge_values",
    "member_word",
    "stability_seed",
]

SUPERIORITY = "superiority"
EQUIVALENCE = "equivalence"
NONINFERIORITY = "non-inferiority"
MAGNITUDE = "magnitude"
TESTS = (SUPERIORITY, EQUIVALENCE, NONINFERIORITY, MAGNITUDE)

# The verdict vocabulary of krepro.studies.verdicts (kept as plain strings here so that this
# module depends on the statistics only).
REPRODUCED = "reproduced"
INCONCLUSIVE = "inconclusive"
NOT_REPRODUCED = "not reproduced"

# How a detail describes a member or part of a family: never by a verdict word, so that a
# detail names no verdict other than its record's (krepro.studies.verdicts.detail_disagreements).
MEMBER_WORDS = {
    REPRODUCED: "holds",
    NOT_REPRODUCED: "contradicted",
    INCONCLUSIVE: "undecided",
    "partly reproduced": "partly holds",
}


def member_word(verdict: str) -> str:
    """``holds``, ``contradicted``, ``undecided`` or ``partly holds`` for a member's verdict."""
    return MEMBER_WORDS[verdict]


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


def _p_contradiction(test: ClaimTest, effect: Effect) -> float:
    """p-value of the null that the claim holds for this member (what Holm orders by).

    Its rejection at level ``a`` is the member's "not reproduced" at ``a``: superiority
    H0: effect ≥ margin; non-inferiority H0: effect ≥ −margin; equivalence and magnitude
    H0: |effect| ≤ margin (one-sided on the estimate's side for equivalence, whose interval
    is the (1 − 2α) one; two-sided for magnitude).
    """
    spread = effect.spread(test.one_run)
    if not (np.isfinite(spread) and spread > 0):
        return float("nan")
    df, m, d = effect.n - 1, test.margin, effect.mean
    if test.test == SUPERIORITY:
        return float(student_t.cdf((d - m) / spread, df))
    if test.test == NONINFERIORITY:
        return float(student_t.cdf((d + m) / spread, df))
    if test.test == EQUIVALENCE:
        return float(student_t.sf((abs(d) - m) / spread, df))
    return float(min(1.0, 2.0 * student_t.sf((abs(d) - m) / spread, df)))


def _decide(test: ClaimTest, low: float, high: float) -> tuple[str, str]:
    """Verdict and reason from the interval (NaN interval: inconclusive)."""
    m = test.margin
    if not (np.isfinite(low) and np.isfinite(high)):
        return INCONCLUSIVE, "no interval (fewer than two repetitions)"
    if test.test == SUPERIORITY:
        if low > 0:
            return REPRODUCED, "the interval lies above 0"
        if high < m:
            return NOT_REPRODUCED, f"the interval excludes an effect of {m:.4g}"
        return INCONCLUSIVE, f"the interval holds both 0 and {m:.4g}"
    if test.test == NONINFERIORITY:
        if low > -m:
            return REPRODUCED, f"the interval lies above {-m:.4g}"
        if high < -m:
            return NOT_REPRODUCED, f"the interval lies below {-m:.4g}"
        return INCONCLUSIVE, f"the interval holds {-m:.4g}"
    if test.test == EQUIVALENCE:
        if -m <= low and high <= m:
            return REPRODUCED, f"the interval lies within ±{m:.4g}"
        if low > m or high < -m:
            return NOT_REPRODUCED, f"the interval lies outside ±{m:.4g}"
        return INCONCLUSIVE, f"the interval is not within ±{m:.4g}"
    if low > m or high < -m:
        return NOT_REPRODUCED, f"the interval lies outside ±{m:.4g} of the paper's value"
    if test.max_width is not None and high - low > test.max_width:
        return (
            INCONCLUSIVE,
            f"the interval is wider ({high - low:.4g}) than {test.max_width:.4g}",
        )
    return REPRODUCED, f"the interval meets ±{m:.4g} of the paper's value"


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


def judge(
    test: ClaimTest,
    effect: Effect,
    *,
    level: float | None = None,
    family_size=1,
    needed: bool = True,
):
    """The verdict of one claim (or one member of a family, at its Holm ``level``).

    Parameters
    ----------
    test : ClaimTest
    effect : Effect
        The effect, oriented as the claim reads.
    level : float, optional
        Level of this comparison (default ``test.alpha``; a family member's Holm level).
    family_size : int
        Recorded in the judgement.
    needed : bool
        Whether to compute :attr:`Judgement.needed_repetitions` (off in bootstrap loops,
        where only the verdict counts).

    Returns
    -------
    Judgement
    """
    level = test.alpha if level is None else level
    low, high = effect.interval(test.tail(level), test.one_run)
    verdict, reason = _decide(test, low, high)
    needed = (
        _needed(test, effect, level)
        if needed and verdict == INCONCLUSIVE and effect.n > 1
        else None
    )
    return Judgement(
        verdict=verdict,
        effect=effect.mean,
        ci_low=low,
        ci_high=high,
        margin=test.margin,
        alpha=level,
        family_size=family_size,
        needed_repetitions=needed,
        reason=reason,
    )


def judge_family(
    test: ClaimTest, effects: Mapping[str, Effect], *, needed: bool = True
) -> dict[str, Judgement]:
    """Judge every member of a family of settings (support at α, contradictions by Holm).

    A member is **reproduced** when its own interval at ``test.alpha`` supports the claim
    (the family is an intersection-union test: no adjustment is needed to say that every
    member holds); **not reproduced** when its interval at its Holm level (over the
    members' contradiction p-values) contradicts the claim; else **inconclusive**, with the
    Holm-level interval (a raw contradiction that does not survive Holm reads inconclusive).

    Parameters
    ----------
    test : ClaimTest
        The claim's test; ``test.alpha`` is the family-wise level.
    effects : mapping of str to Effect
        One effect per setting (settings that are numerically the same comparison must be
        passed once).
    needed : bool
        As in :func:`judge`.

    Returns
    -------
    dict of str to Judgement
        In the order of ``effects``.
    """
    names = list(effects)
    size = len(names)
    levels = holm_levels([_p_contradiction(test, effects[name]) for name in names], test.alpha)
    out = {}
    for name, level in zip(names, levels, strict=True):
        support = judge(test, effects[name], family_size=size, needed=needed)
        if support.verdict == REPRODUCED or size == 1:
            out[name] = support
        else:
            member = judge(test, effects[name], level=float(level), family_size=size, needed=needed)
            if member.verdict == REPRODUCED:
                # Magnitude only: the wider Holm interval meets the margin although the
                # interval at alpha did not; support is read at alpha, so no verdict.
                member = dataclasses.replace(
                    member,
                    verdict=INCONCLUSIVE,
                    reason="the interval at alpha lies outside the margin, but this"
                    " contradiction does not survive Holm",
                )
            out[name] = member
    return out


def bootstrap_stability(
    values,
    verdict_of: Callable[[np.ndarray], str],
    *,
    n_resamples: int = 200,
    seed: Sequence[int] | int = 0,
) -> float:
    """Share of bootstrap resamples of the repetitions that give the observed verdict.

    Parameters
    ----------
    values : array-like
        Per-repetition data, repetitions along the first axis (a row holds every setting of
        one repetition when settings are paired, so that they are resampled together).
    verdict_of : callable
        Maps such an array to a verdict string.
    n_resamples : int
        Bootstrap resamples (≥ 200 for the reported stability).
    seed : int or sequence of int
        Seed of the resampling (``numpy.random.SeedSequence`` entropy).

    Returns
    -------
    float
        In [0, 1].
    """
    values = np.asarray(values, dtype=float)
    observed = verdict_of(values)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    n = values.shape[0]
    draws = rng.integers(0, n, size=(n_resamples, n))
    same = sum(verdict_of(values[rows]) == observed for rows in draws)
    return same / n_resamples


EVERY = "every"
PARTS = "parts"
FAMILY_RULES = (EVERY, PARTS)
PARTLY = "partly reproduced"


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
    """The verdict of a family from its members' verdicts.

    Rules
    -----
    ``every`` ("in every setting"): reproduced iff every member is; not reproduced iff some
    member is not; else inconclusive.
    ``parts`` (the claim names its parts): reproduced iff every member is; not reproduced iff
    every member is not; ``partly reproduced`` iff some are and some are not; else
    inconclusive.
    """
    if rule not in FAMILY_RULES:
        raise ValueError(f"rule must be one of {FAMILY_RULES}, got {rule!r}.")
    if not members:
        raise ValueError("a family needs at least one member.")
    verdicts = {name: j.verdict for name, j in members.items()}
    against = [name for name, v in verdicts.items() if v == NOT_REPRODUCED]
    support = [name for name, v in verdicts.items() if v == REPRODUCED]
    undecided = [name for name, v in verdicts.items() if v == INCONCLUSIVE]
    if not against and not undecided:
        verdict = REPRODUCED
    elif rule == EVERY:
        verdict = NOT_REPRODUCED if against else INCONCLUSIVE
    elif not support and not undecided:
        verdict = NOT_REPRODUCED
    elif support and against:
        verdict = PARTLY
    else:
        verdict = INCONCLUSIVE
    if verdict == REPRODUCED:
        deciding = min(support, key=lambda name: _weakness(test, members[name]))
    elif verdict in (NOT_REPRODUCED, PARTLY):
        deciding = against[0]
    else:
        deciding = undecided[0]
    return FamilyJudgement(verdict=verdict, deciding=deciding, members=dict(members))


def judge_values(test: ClaimTest, values, *, offset: float = 0.0) -> Judgement:
    """:func:`judge` of the per-repetition ``values`` (minus ``offset``)."""
    return judge(test, Effect.of(values, offset))


def judge_settings(
    test: ClaimTest,
    values: Mapping[str, np.ndarray],
    *,
    offset=None,
    rule: str = EVERY,
    needed: bool = True,
) -> FamilyJudgement:
    """A family of settings, each judged from its per-repetition values at its Holm level.

    Parameters
    ----------
    test : ClaimTest
    values : mapping of str to array-like
        Per-repetition effects of each setting, oriented as the claim reads. Settings that
        are numerically the same comparison must be passed once.
    offset : mapping of str to float, optional
        Subtracted from each setting's values (magnitude claims: the paper's value).
    rule : str
        :data:`EVERY` or :data:`PARTS` (:func:`combine_family`).
    needed : bool
        As in :func:`judge`.
    """
    offset = offset or {}
    effects = {name: Effect.of(v, offset.get(name, 0.0)) for name, v in values.items()}
    return combine_family(test, judge_family(test, effects, needed=needed), rule)


def family_stability(
    values: Mapping[str, np.ndarray],
    verdict_of: Callable[[Mapping[str, np.ndarray]], str],
    *,
    paired: bool = True,
    n_resamples: int = 200,
    seed: Sequence[int] | int = 0,
) -> float:
    """Bootstrap stability of a verdict computed from several settings' repetitions.

    Parameters
    ----------
    values : mapping of str to array-like
        Per-repetition values of each setting (first axis: repetitions).
    verdict_of : callable
        Maps such a mapping to a verdict string.
    paired : bool
        Whether the settings share their repetitions (repetition ``i`` of every setting used
        the same draw): then one resample of the indices serves every setting; otherwise each
        setting is resampled on its own.
    n_resamples, seed
        As in :func:`bootstrap_stability`.
    """
    arrays = {name: np.asarray(v, dtype=float) for name, v in values.items()}
    observed = verdict_of(arrays)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    sizes = {name: a.shape[0] for name, a in arrays.items()}
    if paired and len(set(sizes.values())) != 1:
        raise ValueError(f"paired settings need equal repetitions, got {sizes}.")
    same = 0
    for _ in range(n_resamples):
        if paired:
            n = next(iter(sizes.values()))
            rows = rng.integers(0, n, size=n)
            resample = {name: a[rows] for name, a in arrays.items()}
        else:
            resample = {
                name: a[rng.integers(0, a.shape[0], size=a.shape[0])] for name, a in arrays.items()
            }
        same += verdict_of(resample) == observed
    return same / n_resamples


def stability_seed(*names: str) -> list[int]:
    """A ``SeedSequence`` entropy for the bootstrap of one claim, from its names.

    The same claim under the same reading gets the same resamples on every run and machine
    (CRC-32 of each name; the names are e.g. experiment, claim and reading).
    """
    return [zlib.crc32(name.encode("utf-8")) for name in names]


def judge_claim(
    claim: Mapping,
    values,
    *,
    seed: Sequence[int] | int,
    rule: str = EVERY,
    offset=None,
    paired: bool = True,
    n_resamples: int = 200,
) -> tuple[FamilyJudgement, float]:
    """Judge a claim of ``config/paper_reference.yaml`` and measure its stability.

    Parameters
    ----------
    claim : mapping
        The claim's entry (``test``, ``margin``, ``alpha``, ...; :meth:`ClaimTest.from_reference`).
    values : array-like or mapping of str to array-like
        Per-repetition effects, oriented as the claim reads: one array for a single
        comparison, one per setting for a family (settings that are numerically the same
        comparison passed once).
    seed : int or sequence of int
        Entropy of the bootstrap (:func:`stability_seed` of the claim's names).
    rule, offset, paired, n_resamples
        As in :func:`judge_settings` and :func:`family_stability`.

    Returns
    -------
    FamilyJudgement
        A single comparison is a family of one member named ``""``.
    float
        The bootstrap stability of the verdict.
    """
    test = ClaimTest.from_reference(claim)
    if not isinstance(values, Mapping):
        values = {"": values}
        offset = None if offset is None else {"": offset}

    def verdict_of(resample):
        effects = [Effect.of(v, (offset or {}).get(name, 0.0)) for name, v in resample.items()]
        return family_verdict(test, effects, rule)

    family = judge_settings(test, values, offset=offset, rule=rule)
    stability = family_stability(
        values, verdict_of, paired=paired, n_resamples=n_resamples, seed=seed
    )
    return family, stability


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
    rule :data:`PARTS`: reproduced iff every part is, not reproduced iff none is and every
    part is contradicted, ``partly reproduced`` iff some parts are reproduced and some
    contradicted. Requiring every part is an intersection-union test: no adjustment across
    parts is needed.

    Parameters
    ----------
    claim : mapping
        The claim's entry of ``config/paper_reference.yaml``.
    values : mapping of str to mapping of str to array-like
        Per part, the per-repetition effects of each setting.
    seed, n_resamples
        As in :func:`family_stability`; every setting of every part is resampled with the
        same repetition indices when all have the same number of repetitions (paired).
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

    def judge_all(resample, needed=True):
        families = {
            name: judge_settings(
                tests[name], resample[name], offset=offset.get(name), rule=EVERY, needed=needed
            )
            for name in parts
        }
        return combine_parts(families), families

    def fast_verdict(resample):
        part_verdicts = [
            family_verdict(
                tests[name],
                [Effect.of(v, offset.get(name, {}).get(s, 0.0)) for s, v in resample[name].items()],
                EVERY,
            )
            for name in parts
        ]
        return combine_verdicts(part_verdicts)

    arrays = {
        name: {s: np.asarray(v, dtype=float) for s, v in settings.items()}
        for name, settings in values.items()
    }
    result, _ = judge_all(arrays)
    sizes = {a.shape[0] for settings in arrays.values() for a in settings.values()}
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    same = 0
    for _ in range(n_resamples):
        if len(sizes) == 1:
            n = next(iter(sizes))
            rows = rng.integers(0, n, size=n)
            resample = {p: {s: a[rows] for s, a in st.items()} for p, st in arrays.items()}
        else:
            resample = {
                p: {s: a[rng.integers(0, a.shape[0], size=a.shape[0])] for s, a in st.items()}
                for p, st in arrays.items()
            }
        same += fast_verdict(resample) == result.verdict
    return result, same / n_resamples


def family_verdict(test: ClaimTest, effects: Sequence[Effect], rule: str = EVERY) -> str:
    """The verdict of :func:`judge_family` + :func:`combine_family`, vectorised over members.

    The same p-values, Holm levels, intervals and decisions, without the statistics a record
    needs (intervals, repetition counts): for bootstrap loops, where only the verdict counts
    and the per-member path costs minutes over hundreds of resamples of large families.
    Checked against the per-member path in the tests.
    """
    if rule not in FAMILY_RULES:
        raise ValueError(f"rule must be one of {FAMILY_RULES}, got {rule!r}.")
    mean = np.array([e.mean for e in effects], dtype=float)
    df = np.array([e.n for e in effects], dtype=float) - 1.0
    spread = np.array([e.spread(test.one_run) for e in effects], dtype=float)
    m = test.margin
    valid = np.isfinite(spread) & (spread > 0)
    scale = np.where(valid, spread, 1.0)
    dfv = np.where(df > 0, df, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        if test.test == SUPERIORITY:
            p = student_t.cdf((mean - m) / scale, dfv)
        elif test.test == NONINFERIORITY:
            p = student_t.cdf((mean + m) / scale, dfv)
        elif test.test == EQUIVALENCE:
            p = student_t.sf((np.abs(mean) - m) / scale, dfv)
        else:
            p = np.minimum(1.0, 2.0 * student_t.sf((np.abs(mean) - m) / scale, dfv))
    levels = holm_levels(np.where(valid, p, np.nan), test.alpha)

    def interval(level):
        tail = level if test.test != MAGNITUDE else level / 2.0
        half = student_t.ppf(1.0 - tail, dfv) * spread
        low, high = mean - half, mean + half
        return low, high, valid & np.isfinite(low) & np.isfinite(high)

    low, high, ok = interval(np.full(mean.shape, test.alpha))
    if test.test == SUPERIORITY:
        support = low > 0
    elif test.test == NONINFERIORITY:
        support = low > -m
    elif test.test == EQUIVALENCE:
        support = (-m <= low) & (high <= m)
    else:
        width_ok = True if test.max_width is None else (high - low) <= test.max_width
        support = ~((low > m) | (high < -m)) & width_ok
    support &= ok
    low, high, ok = interval(levels)
    if test.test == SUPERIORITY:
        against = high < m
    elif test.test == NONINFERIORITY:
        against = high < -m
    else:
        against = (low > m) | (high < -m)
    against &= ok & ~support
    if support.all():
        return REPRODUCED
    if rule == EVERY:
        return NOT_REPRODUCED if against.any() else INCONCLUSIVE
    if support.any() and against.any():
        return PARTLY
    return NOT_REPRODUCED if against.all() else INCONCLUSIVE


def combine_verdicts(verdicts: Sequence[str]) -> str:
    """Named parts: all reproduced, some of each (partly), all contradicted, else inconclusive."""
    verdicts = list(verdicts)
    if all(v == REPRODUCED for v in verdicts):
        return REPRODUCED
    if REPRODUCED in verdicts and NOT_REPRODUCED in verdicts:
        return PARTLY
    if all(v == NOT_REPRODUCED for v in verdicts):
        return NOT_REPRODUCED
    return INCONCLUSIVE


def combine_parts(families: Mapping[str, FamilyJudgement]) -> FamilyJudgement:
    """A claim with named parts from its parts' families (:func:`combine_verdicts`).

    The deciding part: the first contradicted one (not reproduced, partly), the first part
    (reproduced), else the first undecided one; each member is its part's deciding judgement.
    """
    verdict = combine_verdicts(family.verdict for family in families.values())
    wanted = {REPRODUCED: REPRODUCED, PARTLY: NOT_REPRODUCED, NOT_REPRODUCED: NOT_REPRODUCED}
    target = wanted.get(verdict, INCONCLUSIVE)
    deciding = next(name for name, family in families.items() if family.verdict == target)
    members = {name: family.judgement for name, family in families.items()}
    return FamilyJudgement(verdict, deciding, members)
