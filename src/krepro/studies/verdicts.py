"""Verdicts as data: one record per (experiment, claim, reading), rendered into the reports.

Every experiment's report code returns :class:`Verdict` records; ``results/report.md``,
``results/verdicts.csv`` and the HTML report are renderings of them, and the tests assert on
the records. The vocabulary:

* **reproduced** — the number is within the stated tolerance / the claim holds as stated;
* **partly reproduced** — the claim holds with exceptions that the detail lists;
* **inconclusive** — the evidence cannot decide: the interval holds both the claim and its
  contradiction (the detail says how many repetitions would decide);
* **not reproduced** — the measurement contradicts the paper.

Each claim is judged by its logical form, stated with its entry in
``config/paper_reference.yaml`` (``test``, ``margin``, ``alpha``, or named ``parts``;
:mod:`krepro.studies.claims`): a verdict is decided by an interval of its effect, never by a
repetition count. The record carries the test, the effect, the interval, the margin, the
level, the size of the family the claim was judged in and the **stability** (the share of
bootstrap resamples of the repetitions that give the same verdict). Exact and closed-form
checks (identities) state a tolerance instead.

Kinds (:data:`KINDS`, the entry's ``kind``, default ``paper claim``): a **paper claim** is
stated by the paper, an **implied claim** follows from what it states or shows, an
**extension** is a question the paper does not ask, a **sanity check** tests the pipeline
rather than the paper, and an **identity** holds by construction or by a theorem the check
cannot contradict (its detail says which). The scorecard's headline counts paper and implied
claims only.

Robustness (:func:`assign_robustness`): an experiment run under several readings of an
ambiguous protocol gets one verdict per reading; a claim is ``robust`` when every reading gives
the same verdict, ``fragile`` when they differ (the detail names the readings for and
against) and ``single`` when there is only one reading. Robustness covers the readings of the
protocol, not sampling: readings share their random draws. Sampling is what ``stability``
measures.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd
import yaml

__all__ = [
    "HEADLINE_KINDS",
    "INCONCLUSIVE",
    "KINDS",
    "NOT_REPRODUCED",
    "PARTLY",
    "REPRODUCED",
    "ROBUSTNESS",
    "VERDICTS",
    "VERDICT_COLUMNS",
    "Section",
    "Verdict",
    "assign_robustness",
    "claim_kind",
    "claim_verdict",
    "detail_disagreements",
    "judgement_detail",
    "paper_reference",
    "stated_verdicts",
    "verdicts_frame",
    "verdicts_from_frame",
]

REPRODUCED = "reproduced"
PARTLY = "partly reproduced"
INCONCLUSIVE = "inconclusive"
NOT_REPRODUCED = "not reproduced"
VERDICTS = (REPRODUCED, PARTLY, INCONCLUSIVE, NOT_REPRODUCED)

ROBUST = "robust"
FRAGILE = "fragile"
SINGLE = "single"
ROBUSTNESS = (ROBUST, FRAGILE, SINGLE)

PRIMARY = "primary"

PAPER_CLAIM = "paper claim"
IMPLIED_CLAIM = "implied claim"
EXTENSION = "extension"
SANITY_CHECK = "sanity check"
IDENTITY = "identity"
KINDS = (PAPER_CLAIM, IMPLIED_CLAIM, EXTENSION, SANITY_CHECK, IDENTITY)
HEADLINE_KINDS = (PAPER_CLAIM, IMPLIED_CLAIM)

VERDICT_COLUMNS = [
    "paper",
    "experiment",
    "claim_id",
    "kind",
    "claim",
    "source",
    "protocol",
    "primary",
    "verdict",
    "robustness",
    "stability",
    "test",
    "effect",
    "ci_low",
    "ci_high",
    "margin",
    "alpha",
    "family_size",
    "check_verdict",
    "scale",
    "n_repetitions",
    "paper_value",
    "measured",
    "tolerance",
    "detail",
]


_INT_FIELDS = ("n_repetitions", "family_size")
_FLOAT_FIELDS = ("effect", "ci_low", "ci_high", "margin", "alpha", "stability")


def _missing_to_none(value):
    """``None`` for a missing number (``None``, NaN, ``pandas.NA``, empty text)."""
    if value is None or value is pd.NA or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _text(value) -> str:
    """Values of the free-form columns as text (numbers with up to 4 significant digits)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.4g}"
    return str(value).strip()


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The judgement of one claim of a paper under one reading of its protocol.

    Parameters
    ----------
    experiment : str
        Workflow target the claim belongs to: the study's name (a key of
        :data:`krepro.studies.STUDIES`).
    claim_id : str
        Key of the claim in ``config/paper_reference.yaml``.
    claim : str
        The claim as the paper makes it.
    verdict : str
        One of :data:`VERDICTS`.
    detail : str
        What was measured and why the verdict follows (one paragraph of Markdown).
    paper : str
        Key of the paper in ``config/paper_reference.yaml`` (``oblivious``, ``dcm``, ...).
    source : str
        Where the paper makes the claim (section, table, figure).
    protocol : str
        The reading of the protocol (variant, protocol × grid, ...); ``"primary"`` when the
        experiment has a single reading.
    primary : bool
        Whether this is the reading the scorecard uses.
    scale : str
        The config's scale name (``quick``, ``paper``, ...).
    n_repetitions : int or None
        Independent repetitions the verdict rests on (``None``: exact or closed-form check).
    paper_value, measured, tolerance : str
        The paper's number, ours, and the tolerance of the comparison (text: a claim may
        compare several numbers).
    robustness : str
        One of :data:`ROBUSTNESS`, set by :func:`assign_robustness`.
    check_verdict : str
        What the interval test itself read where a guard of the study overrode it (e.g. a
        reading without both classes in a group is inconclusive whatever its interval);
        equal to ``verdict`` otherwise.
    kind : str
        One of :data:`KINDS`.
    test : str
        ``superiority``, ``equivalence`` or ``magnitude`` (:mod:`krepro.studies.claims`);
        empty for a claim that states none.
    effect, ci_low, ci_high : float or None
        The effect, oriented as the claim reads, and the interval the verdict read (for a
        family, those of the member that decides).
    margin, alpha : float or None
        The claim's margin and level.
    family_size : int or None
        Members of the family of settings the claim was judged over (1: one comparison).
    stability : float or None
        Share of bootstrap resamples of the repetitions giving the same verdict (1.0 for an
        identity; ``None`` where nothing is resampled).
    """

    experiment: str
    claim_id: str
    claim: str
    verdict: str
    detail: str
    paper: str = ""
    source: str = ""
    protocol: str = PRIMARY
    primary: bool = True
    scale: str = ""
    n_repetitions: int | None = None
    paper_value: str = ""
    measured: str = ""
    tolerance: str = ""
    robustness: str = SINGLE
    check_verdict: str = ""
    kind: str = PAPER_CLAIM
    test: str = ""
    effect: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    margin: float | None = None
    alpha: float | None = None
    family_size: int | None = None
    stability: float | None = None

    def __post_init__(self):
        if not self.check_verdict:
            object.__setattr__(self, "check_verdict", self.verdict)
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}.")
        if self.check_verdict not in VERDICTS:
            raise ValueError(
                f"check_verdict must be one of {VERDICTS}, got {self.check_verdict!r}."
            )
        if self.robustness not in ROBUSTNESS:
            raise ValueError(f"robustness must be one of {ROBUSTNESS}, got {self.robustness!r}.")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}.")
        for name in ("paper_value", "measured", "tolerance", "test"):
            object.__setattr__(self, name, _text(getattr(self, name)))
        for name in _INT_FIELDS:
            value = _missing_to_none(getattr(self, name))
            object.__setattr__(self, name, None if value is None else int(value))
        for name in _FLOAT_FIELDS:
            value = _missing_to_none(getattr(self, name))
            object.__setattr__(self, name, None if value is None else float(value))

    def replace(self, **changes) -> Verdict:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    @property
    def decisive(self) -> bool:
        """Whether the verdict takes a side (anything but inconclusive)."""
        return self.verdict != INCONCLUSIVE


def _test_text(claim: Mapping) -> str:
    """The ``test`` column: the claim's test, or ``part: test`` for each named part."""
    if "parts" in claim:
        return "; ".join(f"{name}: {entry['test']}" for name, entry in claim["parts"].items())
    return str(claim.get("test", ""))


def claim_kind(claim: Mapping) -> str:
    """The kind of a claim entry (``kind``, default ``paper claim``), checked."""
    kind = str(claim.get("kind", PAPER_CLAIM))
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}.")
    return kind


def judgement_detail(judgement) -> str:
    """One or two sentences: the effect, its interval, and why the verdict follows.

    For an inconclusive judgement, also the repetitions a decisive verdict would need at the
    observed variance (or that none would).
    """
    text = (
        f"Effect {judgement.effect:.4g}, interval [{judgement.ci_low:.4g},"
        f" {judgement.ci_high:.4g}] at level {judgement.alpha:.3g}"
        f"{'' if judgement.family_size == 1 else f' (Holm, family of {judgement.family_size})'}:"
        f" {judgement.reason}."
    )
    if judgement.verdict == INCONCLUSIVE:
        if judgement.needed_repetitions is not None:
            text += (
                f" A decisive verdict would need about {judgement.needed_repetitions}"
                " repetitions at the observed variance."
            )
        else:
            text += " No number of repetitions would decide it at the observed variance."
    return text


def claim_verdict(
    experiment_reference: Mapping,
    claim_id: str,
    verdict: str | None,
    detail: str,
    *,
    experiment: str,
    paper: str,
    scale: str,
    protocol: str = PRIMARY,
    primary: bool = True,
    n_repetitions: int | None = None,
    paper_value="",
    measured="",
    tolerance="",
    judgement=None,
    stability: float | None = None,
    check_verdict: str = "",
) -> Verdict:
    """The :class:`Verdict` of a claim of ``paper_reference.yaml``.

    Parameters
    ----------
    experiment_reference : mapping
        The experiment's entry in ``config/paper_reference.yaml``; its ``claims`` mapping
        holds ``claim_id`` with at least ``text`` and ``source`` (and ``kind``, ``test``,
        ``margin``, ``alpha`` for a claim judged by its logical form).
    claim_id : str
        Key of the claim.
    verdict : str or None
        The check's verdict; ``None`` takes ``judgement.verdict``.
    detail : str
        What was measured and why the verdict follows.
    experiment, paper, scale, protocol, primary, n_repetitions, paper_value, measured, tolerance
        As in :class:`Verdict`.
    judgement : krepro.studies.claims.Judgement or FamilyJudgement, optional
        The interval judgement of the claim; its statistics fill the record's columns. For a
        family (or named parts) pass the :class:`~krepro.studies.claims.FamilyJudgement`:
        the verdict is the family's, the statistics those of the member that decides.
        Required when the claim states a ``test`` or ``parts``.
    stability : float, optional
        Bootstrap stability of the verdict (:func:`krepro.studies.claims.stability`);
        an identity is stable by construction (1.0).
    check_verdict : str, optional
        What the interval test read where a guard of the study overrode it (the detail may
        preview it as "would read *V*"); by default the verdict itself.

    Notes
    -----
    A claim that states a ``test`` (or ``parts``) is decided by its interval; an identity or
    another exact check states its verdict from a tolerance.
    """
    claims = experiment_reference.get("claims", {})
    if claim_id not in claims:
        raise KeyError(f"claim {claim_id!r} is not in the reference's claims {sorted(claims)}.")
    claim = claims[claim_id]
    kind = claim_kind(claim)
    tested = "test" in claim or "parts" in claim
    if tested and judgement is None:
        raise ValueError(f"claim {claim_id!r} states a test: its verdict needs a judgement.")
    if hasattr(judgement, "members"):  # a FamilyJudgement: its verdict, its decider's numbers
        verdict = judgement.verdict if verdict is None else verdict
        judgement = judgement.judgement
    if verdict is None:
        if judgement is None:
            raise ValueError(f"claim {claim_id!r}: give a verdict or a judgement.")
        verdict = judgement.verdict
    statistics = {}
    if judgement is not None:
        statistics = {
            "test": _test_text(claim),
            "effect": judgement.effect,
            "ci_low": judgement.ci_low,
            "ci_high": judgement.ci_high,
            "margin": judgement.margin,
            "alpha": judgement.alpha,
            "family_size": judgement.family_size,
        }
    if kind == IDENTITY and stability is None:
        stability = 1.0
    record = Verdict(
        experiment=experiment,
        claim_id=claim_id,
        claim=" ".join(str(claim["text"]).split()),
        verdict=verdict,
        detail=detail,
        paper=paper,
        source=str(claim.get("source", "")),
        protocol=protocol,
        primary=primary,
        scale=scale,
        n_repetitions=n_repetitions,
        paper_value=paper_value,
        measured=measured,
        tolerance=tolerance,
        kind=kind,
        stability=stability,
        check_verdict=check_verdict,
        **statistics,
    )
    return record


_VERDICT_PATTERN = re.compile(
    r"\b(" + "|".join(re.escape(v) for v in sorted(VERDICTS, key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)
_PREVIEW = re.compile(r"would read \*?(" + "|".join(map(re.escape, VERDICTS)) + r")\*?", re.I)


def stated_verdicts(detail: str, check_verdict: str | None = None) -> list[str]:
    """The verdicts a detail states, in order (lower case).

    Not counted: the robustness note that names the other readings' verdicts (from
    ``" Fragile: "`` on, written by :func:`krepro.studies.verdicts.assign_robustness`), and
    a preview "would read *V*" when ``V`` is the record's ``check_verdict`` (a study
    guard's note; pass ``check_verdict`` only where it differs from the verdict).
    """
    text = detail.split(" Fragile: ")[0]
    if check_verdict:
        text = _PREVIEW.sub(
            lambda m: "" if m.group(1).lower() == check_verdict.lower() else m.group(0), text
        )
    return [m.group(1).lower() for m in _VERDICT_PATTERN.finditer(text)]


def detail_disagreements(record) -> list[str]:
    """Verdicts a record's detail states that differ from the record's verdict (empty: none).

    ``record`` has ``verdict``, ``check_verdict`` and ``detail`` (a
    :class:`~krepro.studies.verdicts.Verdict` or a row of ``verdicts.csv``); a "would read"
    preview is allowed only where ``check_verdict`` differs from ``verdict``, and only of
    ``check_verdict``.
    """
    verdict = str(record.verdict).lower()
    check = str(getattr(record, "check_verdict", "") or "").lower()
    preview = check if check and check != verdict else None
    return [v for v in stated_verdicts(str(record.detail), preview) if v != verdict]


def assign_robustness(verdicts: Iterable[Verdict]) -> list[Verdict]:
    """Set ``robustness`` of every record from the readings of its (experiment, claim).

    ``single`` when the claim was judged under one reading, ``robust`` when every reading
    gives the same verdict, ``fragile`` otherwise; a fragile primary record's detail then
    names the readings for and against its verdict. Order is kept.
    """
    verdicts = list(verdicts)
    groups: dict[tuple[str, str], list[Verdict]] = {}
    for record in verdicts:
        groups.setdefault((record.experiment, record.claim_id), []).append(record)
    out = []
    for record in verdicts:
        group = groups[(record.experiment, record.claim_id)]
        readings = {r.protocol for r in group}
        if len(readings) <= 1:
            out.append(record.replace(robustness=SINGLE))
            continue
        if len({r.verdict for r in group}) == 1:
            out.append(record.replace(robustness=ROBUST))
            continue
        agree = [r.protocol for r in group if r.verdict == record.verdict]
        differ = [f"{r.protocol} ({r.verdict})" for r in group if r.verdict != record.verdict]
        detail = record.detail
        if record.primary and " Fragile: " not in detail:
            detail = (
                f"{detail.rstrip()} Fragile: {record.verdict} under {', '.join(agree)};"
                f" other readings give {', '.join(differ)}."
            )
        out.append(record.replace(robustness=FRAGILE, detail=detail))
    return out


def verdicts_frame(verdicts: Iterable[Verdict]) -> pd.DataFrame:
    """The records as a table with :data:`VERDICT_COLUMNS` (``results/verdicts.csv``)."""
    rows = [dataclasses.asdict(record) for record in verdicts]
    frame = pd.DataFrame(rows, columns=VERDICT_COLUMNS)
    for column in _INT_FIELDS:
        frame[column] = frame[column].astype("Int64")
    for column in _FLOAT_FIELDS:
        frame[column] = frame[column].astype("Float64")
    return frame


def verdicts_from_frame(frame: pd.DataFrame) -> list[Verdict]:
    """Records back from a table written by :func:`verdicts_frame`."""
    fields = {field.name for field in dataclasses.fields(Verdict)}
    records = []
    for row in frame.to_dict("records"):
        values = {key: value for key, value in row.items() if key in fields}
        numeric = set(_INT_FIELDS) | set(_FLOAT_FIELDS)
        for key, value in list(values.items()):
            if key in numeric:
                values[key] = _missing_to_none(value)
            elif value is pd.NA or (isinstance(value, float) and math.isnan(value)):
                values[key] = ""
        values["primary"] = str(values.get("primary", True)).lower() in ("true", "1")
        records.append(Verdict(**values))
    return records


@dataclasses.dataclass
class Section:
    """One experiment's part of the report: its verdicts and the Markdown that supports them.

    Parameters
    ----------
    experiment : str
        Workflow target (also the section's anchor in ``report.md``).
    title : str
        Heading of the section.
    verdicts : sequence of Verdict
        Every claim under every reading.
    body : str
        Markdown after the verdicts: tables, notes, figure references.
    intro : str
        Markdown between the heading and the verdicts (what was run).
    """

    experiment: str
    title: str
    verdicts: Sequence[Verdict]
    body: str = ""
    intro: str = ""

    def to_dict(self) -> dict:
        """JSON-serialisable form (the per-experiment ``results/report/<experiment>.json``)."""
        return {
            "experiment": self.experiment,
            "title": self.title,
            "intro": self.intro,
            "body": self.body,
            "verdicts": [dataclasses.asdict(record) for record in self.verdicts],
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> Section:
        """Inverse of :meth:`to_dict`."""
        return cls(
            experiment=data["experiment"],
            title=data["title"],
            intro=data.get("intro", ""),
            body=data.get("body", ""),
            verdicts=[Verdict(**record) for record in data["verdicts"]],
        )


def paper_reference(path, *keys) -> Mapping:
    """One block of ``config/paper_reference.yaml``: the papers' numbers and the thresholds.

    Parameters
    ----------
    path : path-like
        The reference file.
    *keys : str
        The block's path in the file, e.g. ``"oblivious", "<study>"`` (a paper, then one
        of its studies).
    """
    status = os.stat(path)
    block = _reference_file(os.fspath(path), status.st_mtime_ns, status.st_size)
    for key in keys:
        block = block[key]
    return copy.deepcopy(block)  # the cached parse stays as read


@functools.lru_cache(maxsize=8)
def _reference_file(path, mtime_ns, size):
    """The parsed reference file, once per version of it (the workflow reads one block per
    study while parsing the Snakefile); libyaml's parser where PyYAML has it."""
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
